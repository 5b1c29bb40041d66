import Foundation

/// A purchase of a subscription (SuperwallKit's `SubscriptionTransaction`).
public struct SubscriptionTransaction: Sendable, Hashable, Codable {
    public var transactionId: String
    public var productId: String
    public var purchaseDate: Date
    public var willRenew: Bool
    public var isRevoked: Bool
    public var isInGracePeriod: Bool
    public var isInBillingRetryPeriod: Bool
    public var isActive: Bool
    public var expirationDate: Date?
    public var offerType: Entitlement.OfferType?
    public var subscriptionGroupId: String?
    public var store: Entitlement.Store

    public init(
        transactionId: String,
        productId: String,
        purchaseDate: Date,
        willRenew: Bool,
        isRevoked: Bool = false,
        isInGracePeriod: Bool = false,
        isInBillingRetryPeriod: Bool = false,
        isActive: Bool,
        expirationDate: Date?,
        offerType: Entitlement.OfferType? = nil,
        subscriptionGroupId: String? = nil,
        store: Entitlement.Store
    ) {
        self.transactionId = transactionId
        self.productId = productId
        self.purchaseDate = purchaseDate
        self.willRenew = willRenew
        self.isRevoked = isRevoked
        self.isInGracePeriod = isInGracePeriod
        self.isInBillingRetryPeriod = isInBillingRetryPeriod
        self.isActive = isActive
        self.expirationDate = expirationDate
        self.offerType = offerType
        self.subscriptionGroupId = subscriptionGroupId
        self.store = store
    }

    private enum Keys: String, CodingKey {
        case transactionId, productId, purchaseDate, willRenew, isRevoked, isInGracePeriod, isInBillingRetryPeriod,
            isActive
        case expirationDate, offerType, subscriptionGroupId, store
    }

    /// The web API's camelCase, dates in milliseconds or ISO-8601.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: Keys.self)
        transactionId = try container.decode(String.self, forKey: .transactionId)
        productId = try container.decode(String.self, forKey: .productId)
        purchaseDate = try container.decodeRequiredFlexibleDate(forKey: .purchaseDate)
        willRenew = try container.decodeIfPresent(Bool.self, forKey: .willRenew) ?? false
        isRevoked = try container.decodeIfPresent(Bool.self, forKey: .isRevoked) ?? false
        isInGracePeriod = try container.decodeIfPresent(Bool.self, forKey: .isInGracePeriod) ?? false
        isInBillingRetryPeriod = try container.decodeIfPresent(Bool.self, forKey: .isInBillingRetryPeriod) ?? false
        isActive = try container.decodeIfPresent(Bool.self, forKey: .isActive) ?? false
        expirationDate = try container.decodeFlexibleDate(forKey: .expirationDate)
        offerType = try container.decodeIfPresent(Entitlement.OfferType.self, forKey: .offerType)
        subscriptionGroupId = try container.decodeIfPresent(String.self, forKey: .subscriptionGroupId)
        store = Entitlement.Store(wireName: try container.decodeIfPresent(String.self, forKey: .store) ?? "OTHER")
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: Keys.self)
        try container.encode(transactionId, forKey: .transactionId)
        try container.encode(productId, forKey: .productId)
        try container.encode(purchaseDate.millisecondsSince1970, forKey: .purchaseDate)
        try container.encode(willRenew, forKey: .willRenew)
        try container.encode(isRevoked, forKey: .isRevoked)
        try container.encode(isInGracePeriod, forKey: .isInGracePeriod)
        try container.encode(isInBillingRetryPeriod, forKey: .isInBillingRetryPeriod)
        try container.encode(isActive, forKey: .isActive)
        try container.encodeIfPresent(expirationDate?.millisecondsSince1970, forKey: .expirationDate)
        try container.encodeIfPresent(offerType, forKey: .offerType)
        try container.encodeIfPresent(subscriptionGroupId, forKey: .subscriptionGroupId)
        try container.encode(store, forKey: .store)
    }
}

/// A purchase of something that does not renew (SuperwallKit's `NonSubscriptionTransaction`).
public struct NonSubscriptionTransaction: Sendable, Hashable, Codable {
    public var transactionId: String
    public var productId: String
    public var purchaseDate: Date
    public var isConsumable: Bool
    public var isRevoked: Bool
    public var store: Entitlement.Store

    public init(
        transactionId: String,
        productId: String,
        purchaseDate: Date,
        isConsumable: Bool,
        isRevoked: Bool = false,
        store: Entitlement.Store
    ) {
        self.transactionId = transactionId
        self.productId = productId
        self.purchaseDate = purchaseDate
        self.isConsumable = isConsumable
        self.isRevoked = isRevoked
        self.store = store
    }

    private enum Keys: String, CodingKey {
        case transactionId, productId, purchaseDate, isConsumable, isRevoked, store
    }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: Keys.self)
        transactionId = try container.decode(String.self, forKey: .transactionId)
        productId = try container.decode(String.self, forKey: .productId)
        purchaseDate = try container.decodeRequiredFlexibleDate(forKey: .purchaseDate)
        isConsumable = try container.decodeIfPresent(Bool.self, forKey: .isConsumable) ?? false
        isRevoked = try container.decodeIfPresent(Bool.self, forKey: .isRevoked) ?? false
        store = Entitlement.Store(wireName: try container.decodeIfPresent(String.self, forKey: .store) ?? "OTHER")
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: Keys.self)
        try container.encode(transactionId, forKey: .transactionId)
        try container.encode(productId, forKey: .productId)
        try container.encode(purchaseDate.millisecondsSince1970, forKey: .purchaseDate)
        try container.encode(isConsumable, forKey: .isConsumable)
        try container.encode(isRevoked, forKey: .isRevoked)
        try container.encode(store, forKey: .store)
    }
}

/// What the user has bought and what it unlocks (SuperwallKit's `CustomerInfo`).
public struct CustomerInfo: Sendable, Equatable, Codable {
    public var subscriptions: [SubscriptionTransaction]
    public var nonSubscriptions: [NonSubscriptionTransaction]
    public var entitlements: [Entitlement]
    /// The blank value before anything is known; `getCustomerInfo` waits past it.
    public var isPlaceholder: Bool
    /// The user it is read for (SuperwallKit computes it from the current user): not part of
    /// the value, so neither compared nor stored.
    public var userId = ""

    public init(
        subscriptions: [SubscriptionTransaction] = [],
        nonSubscriptions: [NonSubscriptionTransaction] = [],
        entitlements: [Entitlement] = [],
        isPlaceholder: Bool = false
    ) {
        self.subscriptions = subscriptions
        self.nonSubscriptions = nonSubscriptions
        self.entitlements = entitlements
        self.isPlaceholder = isPlaceholder
    }

    private enum CodingKeys: String, CodingKey {
        case subscriptions, nonSubscriptions, entitlements, isPlaceholder
    }

    /// Reads what the bridge stored and the subscriptions API's web JSON alike: the web's has
    /// no `isPlaceholder`, and may leave out a list that is empty.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        subscriptions = try container.decodeIfPresent([SubscriptionTransaction].self, forKey: .subscriptions) ?? []
        nonSubscriptions =
            try container.decodeIfPresent([NonSubscriptionTransaction].self, forKey: .nonSubscriptions) ?? []
        entitlements = try container.decodeIfPresent([Entitlement].self, forKey: .entitlements) ?? []
        isPlaceholder = try container.decodeIfPresent(Bool.self, forKey: .isPlaceholder) ?? false
    }

    public static func == (lhs: CustomerInfo, rhs: CustomerInfo) -> Bool {
        lhs.subscriptions == rhs.subscriptions && lhs.nonSubscriptions == rhs.nonSubscriptions
            && lhs.entitlements == rhs.entitlements && lhs.isPlaceholder == rhs.isPlaceholder
    }

    func read(by userId: String) -> CustomerInfo {
        var read = self
        read.userId = userId
        return read
    }

    public static let placeholder = CustomerInfo(isPlaceholder: true)

    /// The products of the subscriptions that are active, sorted.
    public var activeSubscriptionProductIds: [String] {
        Set(subscriptions.filter(\.isActive).map(\.productId)).sorted()
    }

    /// What the user holds now: active subscriptions' products and non-consumables not revoked.
    public var activeProductIds: [String] {
        Set(subscriptions.filter(\.isActive).map(\.productId))
            .union(nonSubscriptions.filter { !$0.isConsumable && !$0.isRevoked }.map(\.productId)).sorted()
    }

    /// SuperwallKit's `merging(with:)`: this device's transactions plus the web's whose ids are
    /// new, each list by purchase date; the entitlements of both merged by priority.
    public func merging(with web: CustomerInfo) -> CustomerInfo {
        CustomerInfo(
            subscriptions: Self.union(subscriptions, web.subscriptions, id: \.transactionId).sorted {
                $0.purchaseDate < $1.purchaseDate
            },
            nonSubscriptions: Self.union(nonSubscriptions, web.nonSubscriptions, id: \.transactionId).sorted {
                $0.purchaseDate < $1.purchaseDate
            },
            entitlements: (entitlements + web.entitlements).mergedByPriority()
        )
    }

    /// SuperwallKit's `forExternalPurchaseController`: the app's purchase controller owns the
    /// status, so the active entitlements are the status's; the web's and the device's
    /// inactive ones complete the picture. SuperwallKit keeps only the status's App Store
    /// entitlements, the rest being the web's; a bridge's host may be any platform, so only
    /// the web stores' are left to the web.
    public static func forExternalPurchaseController(
        status: SubscriptionStatus,
        device: CustomerInfo,
        web: CustomerInfo
    ) -> CustomerInfo {
        let transactions = device.merging(with: web)
        let statusEntitlements = status.activeEntitlements.filter { !($0.store?.isWebStore ?? false) }
        let inactiveDevice = device.entitlements.filter { !$0.isActive }
        return CustomerInfo(
            subscriptions: transactions.subscriptions,
            nonSubscriptions: transactions.nonSubscriptions,
            entitlements: (statusEntitlements + web.entitlements + inactiveDevice).mergedByPriority()
        )
    }

    private static func union<T>(_ first: [T], _ second: [T], id: (T) -> String) -> [T] {
        let known = Set(first.map(id))
        return first + second.filter { !known.contains(id($0)) }
    }
}

extension CustomerInfo {
    /// Product ids whose newest App Store purchase is active (a page's `isSubscribed`).
    var subscribedProductIds: Set<String> {
        var newest: [String: SubscriptionTransaction] = [:]
        for subscription in subscriptions where subscription.store == .appStore {
            if let known = newest[subscription.productId], known.purchaseDate >= subscription.purchaseDate { continue }
            newest[subscription.productId] = subscription
        }
        return Set(newest.values.filter(\.isActive).map(\.productId))
    }
}
