import Foundation

/// What a subscription unlocks (SuperwallKit's `Entitlement`). Only `SERVICE_LEVEL`
/// entitlements exist. Besides its id it carries what is known of the purchase behind it.
public struct Entitlement: Sendable, Hashable {
    public enum Store: String, Sendable, Codable, CaseIterable {
        case appStore = "APP_STORE"
        case stripe = "STRIPE"
        case paddle = "PADDLE"
        case playStore = "PLAY_STORE"
        case superwall = "SUPERWALL"
        case custom = "CUSTOM"
        case other = "OTHER"

        /// Unknown stores are `OTHER`, as SuperwallKit decodes them.
        public init(wireName: String) {
            self = Store(rawValue: wireName) ?? .other
        }

        /// The stores Superwall's web checkout sells through.
        public var isWebStore: Bool { self == .stripe || self == .paddle || self == .superwall }
    }

    public enum State: String, Sendable, Codable, CaseIterable {
        case inGracePeriod, subscribed, expired, inBillingRetryPeriod, revoked
    }

    public enum OfferType: String, Sendable, Codable, CaseIterable {
        case trial, code, promotional, winback
    }

    public var id: String
    public var isActive: Bool
    /// Every product that unlocks it.
    public var productIds: Set<String>
    /// The product of the latest transaction behind it: set when it has a purchase history.
    public var latestProductId: String?
    public var store: Store?
    public var startsAt: Date?
    public var renewedAt: Date?
    public var expiresAt: Date?
    public var isLifetime: Bool?
    public var willRenew: Bool?
    public var state: State?
    public var offerType: OfferType?

    /// SuperwallKit's `Entitlement(id:)`: active, from the App Store, nothing else known.
    public init(id: String) {
        self.init(id: id, isActive: true, store: .appStore)
    }

    public init(
        id: String,
        isActive: Bool,
        productIds: Set<String> = [],
        latestProductId: String? = nil,
        store: Store? = nil,
        startsAt: Date? = nil,
        renewedAt: Date? = nil,
        expiresAt: Date? = nil,
        isLifetime: Bool? = nil,
        willRenew: Bool? = nil,
        state: State? = nil,
        offerType: OfferType? = nil
    ) {
        self.id = id
        self.isActive = isActive
        self.productIds = productIds
        self.latestProductId = latestProductId
        self.store = store
        self.startsAt = startsAt
        self.renewedAt = renewedAt
        self.expiresAt = expiresAt
        self.isLifetime = isLifetime
        self.willRenew = willRenew
        self.state = state
        self.offerType = offerType
    }

    public var isRevoked: Bool { state == .revoked }
    public var isInGracePeriod: Bool { state == .inGracePeriod }
    /// When it renews: its expiry, while it is active and set to renew.
    public var renewsAt: Date? { isActive && willRenew == true ? expiresAt : nil }
}

extension Entitlement: Codable {
    private enum Keys: String, CodingKey {
        case identifier, type, isActive, productIds, latestProductId, store, startsAt, renewedAt, expiresAt
        case isLifetime, willRenew, state, offerType
    }

    /// The config's `{identifier, type}` and the web API's camelCase entitlements, whose dates
    /// are milliseconds since 1970 or ISO-8601 strings. `isActive` is false unless given.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: Keys.self)
        guard try container.decode(String.self, forKey: .type) == "SERVICE_LEVEL" else {
            throw DecodingError.dataCorruptedError(
                forKey: .type,
                in: container,
                debugDescription: "only SERVICE_LEVEL entitlements exist"
            )
        }
        id = try container.decode(String.self, forKey: .identifier)
        isActive = try container.decodeIfPresent(Bool.self, forKey: .isActive) ?? false
        productIds = try container.decodeIfPresent(Set<String>.self, forKey: .productIds) ?? []
        latestProductId = try container.decodeIfPresent(String.self, forKey: .latestProductId)
        store = try container.decodeIfPresent(String.self, forKey: .store).map(Store.init(wireName:))
        startsAt = try container.decodeFlexibleDate(forKey: .startsAt)
        renewedAt = try container.decodeFlexibleDate(forKey: .renewedAt)
        expiresAt = try container.decodeFlexibleDate(forKey: .expiresAt)
        isLifetime = try container.decodeIfPresent(Bool.self, forKey: .isLifetime)
        willRenew = try container.decodeIfPresent(Bool.self, forKey: .willRenew)
        state = try container.decodeIfPresent(State.self, forKey: .state)
        offerType = try container.decodeIfPresent(OfferType.self, forKey: .offerType)
    }

    /// Dates as milliseconds since 1970.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: Keys.self)
        try container.encode(id, forKey: .identifier)
        try container.encode("SERVICE_LEVEL", forKey: .type)
        try container.encode(isActive, forKey: .isActive)
        try container.encode(productIds.sorted(), forKey: .productIds)
        try container.encodeIfPresent(latestProductId, forKey: .latestProductId)
        try container.encodeIfPresent(store, forKey: .store)
        try container.encodeIfPresent(startsAt.map(\.millisecondsSince1970), forKey: .startsAt)
        try container.encodeIfPresent(renewedAt.map(\.millisecondsSince1970), forKey: .renewedAt)
        try container.encodeIfPresent(expiresAt.map(\.millisecondsSince1970), forKey: .expiresAt)
        try container.encodeIfPresent(isLifetime, forKey: .isLifetime)
        try container.encodeIfPresent(willRenew, forKey: .willRenew)
        try container.encodeIfPresent(state, forKey: .state)
        try container.encodeIfPresent(offerType, forKey: .offerType)
    }
}

extension Date {
    var millisecondsSince1970: Double { (timeIntervalSince1970 * 1000).rounded() }
}

extension KeyedDecodingContainer {
    /// A date sent as milliseconds since 1970 or as an ISO-8601 string, as the web API does.
    func decodeFlexibleDate(forKey key: Key) throws -> Date? {
        guard contains(key), try !decodeNil(forKey: key) else { return nil }
        if let milliseconds = try? decode(Double.self, forKey: key) {
            return Date(timeIntervalSince1970: milliseconds / 1000)
        }
        let text = try decode(String.self, forKey: key)
        guard let date = ISO8601.date(from: text) else {
            throw DecodingError.dataCorruptedError(
                forKey: key,
                in: self,
                debugDescription: "\"\(text)\" is not an ISO-8601 date"
            )
        }
        return date
    }

    func decodeRequiredFlexibleDate(forKey key: Key) throws -> Date {
        guard let date = try decodeFlexibleDate(forKey: key) else {
            throw DecodingError.valueNotFound(
                Date.self,
                .init(codingPath: codingPath + [key], debugDescription: "\(key.stringValue) is required")
            )
        }
        return date
    }
}
