import Foundation

/// The host's purchase controller (SuperwallKit's `PurchaseController`): it talks to the
/// store, and sets the subscription status before it answers `purchased` or `restored`.
public protocol PurchaseController: Sendable {
    /// Buys `product`; `paywallInfo` is the paywall it was bought from (nil for `purchase`
    /// called by the app). Cancellation of the calling task means the bridge gave up on it.
    func purchase(_ product: Product, paywallInfo: PaywallInfo?) async -> PurchaseAnswer
    func restorePurchases() async -> RestorationResult
}

/// A purchase controller's answer: how the purchase ended and, for one that completed, what
/// the store said of the transaction, which the customer info records.
public struct PurchaseAnswer: Sendable, Equatable {
    public var result: PurchaseResult
    public var transaction: TransactionReport?

    public init(_ result: PurchaseResult, transaction: TransactionReport? = nil) {
        self.result = result
        self.transaction = transaction
    }
}

/// What the host's store said of a completed transaction; what it leaves out the bridge
/// fills in (a generated id, the time of the answer, the product's store and period).
public struct TransactionReport: Sendable, Equatable {
    public var transactionId: String?
    public var purchaseDate: Date?
    public var expirationDate: Date?
    public var willRenew: Bool?
    public var offerType: Entitlement.OfferType?
    public var store: Entitlement.Store?

    public init(
        transactionId: String? = nil,
        purchaseDate: Date? = nil,
        expirationDate: Date? = nil,
        willRenew: Bool? = nil,
        offerType: Entitlement.OfferType? = nil,
        store: Entitlement.Store? = nil
    ) {
        self.transactionId = transactionId
        self.purchaseDate = purchaseDate
        self.expirationDate = expirationDate
        self.willRenew = willRenew
        self.offerType = offerType
        self.store = store
    }
}

/// How a purchase ended (SuperwallKit's `PurchaseResult`, plus the two endings a bridge adds:
/// the host answered `restored`, or it did not answer within the deadline).
public enum PurchaseResult: Sendable, Equatable {
    case purchased
    case cancelled
    /// Waiting on someone else (SuperwallKit: parental approval).
    case pending
    /// The store found the product already owned and restored it.
    case restored
    case failed(String)
    /// No answer within `timeouts.purchase`.
    case timedOut
    /// The session ended (the client went away, or the bridge was closed) before the purchase
    /// was answered. Not the user's choice: nothing is tracked, as SuperwallKit tracks nothing
    /// for a purchase the app's end cut off.
    case sessionEnded
}

/// How a restore ended (SuperwallKit's `RestorationResult`).
public enum RestorationResult: Sendable, Equatable {
    case restored
    case failed(String?)
}

/// When purchases are simulated rather than sent to a controller (SuperwallKit's
/// `TestModeBehavior`).
public enum TestModeBehavior: String, Sendable {
    /// Always simulated, even with a controller.
    case always
    /// Never simulated: without a controller, purchases are an error.
    case never
    /// Simulated when the user is one of the config's `test_mode_user_ids`.
    case whenEnabledForUser
    /// Simulated when the user is listed, or when the config's `bundle_id_config` is not the
    /// app's bundle id (SuperwallKit's two reasons). Without a controller and outside test
    /// mode, a purchase is an error: nothing is granted that was not bought or asked for.
    case automatic
}

/// Why test mode is on (SuperwallKit's `TestModeReason`).
public enum TestModeReason: Sendable, Equatable {
    /// `testModeBehavior: "always"`.
    case testModeBehavior
    /// The user is one of the config's `test_mode_user_ids`.
    case testModeUser(String)
    /// The config's `bundle_id_config` is not the bundle id the client gave.
    case bundleIdMismatch(expected: String, actual: String)

    /// A stable name for the wire: `testModeBehavior`, `testModeUser` or `bundleIdMismatch`.
    public var kind: String {
        switch self {
        case .testModeBehavior: "testModeBehavior"
        case .testModeUser: "testModeUser"
        case .bundleIdMismatch: "bundleIdMismatch"
        }
    }

    public var message: String {
        switch self {
        case .testModeBehavior: "testModeBehavior is \"always\""
        case .testModeUser(let id): "the user \(id) is one of the config's test_mode_user_ids"
        case .bundleIdMismatch(let expected, let actual):
            "the config's bundle_id_config is \(expected) but device.bundleId is \(actual)"
        }
    }
}

extension TestModeReason {
    /// Why purchases are simulated for `identity` in a session with `behavior`, its config and
    /// the device's facts, or nil when they are not: by `testModeBehavior`, the config's
    /// `test_mode_user_ids`, and, for `automatic`, a config whose `bundle_id_config` is not the
    /// app's bundle id. A bundle id the client never gave cannot mismatch: the placeholder
    /// turned test mode on for every real config, and every purchase was then simulated and
    /// granted without a word.
    static func of(
        _ identity: Identity,
        behavior: TestModeBehavior,
        config: Config?,
        device: DeviceFacts
    ) -> TestModeReason? {
        let listed = config?.testModeUserIds.first { id in
            switch id.kind {
            case .userId: id.value == identity.appUserId
            case .aliasId: id.value == identity.aliasId
            }
        }
        switch behavior {
        case .always: return .testModeBehavior
        case .never: return nil
        case .whenEnabledForUser: return listed.map { .testModeUser($0.value) }
        case .automatic:
            if let listed { return .testModeUser(listed.value) }
            guard device.isBundleIdFromClient, let configured = config?.bundleIdConfig,
                isBundleMismatch(configured: configured, actual: device.bundleId)
            else { return nil }
            return .bundleIdMismatch(expected: configured, actual: device.bundleId)
        }
    }

    /// A configured bundle id the app's is not (it may extend it: `com.app` covers `com.app.widget`).
    static func isBundleMismatch(configured: String?, actual: String) -> Bool {
        guard let configured, !configured.isEmpty else { return false }
        return actual != configured && !actual.hasPrefix(configured + ".")
    }
}

/// What a purchase or restore is made with: the host's controller, or the simulation of
/// test mode, which grants the product's entitlements itself.
enum Purchaser {
    case controller(any PurchaseController)
    case testMode

    var isTestMode: Bool {
        if case .testMode = self { return true }
        return false
    }
}
