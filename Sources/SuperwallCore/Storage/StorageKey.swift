import Foundation

/// Whose a stored value is: `user` values belong to the current user and are wiped by
/// `reset()`; `app` values belong to the install and survive it (SuperwallKit's user-specific
/// and app-specific directories).
public enum StorageScope: String, Sendable {
    case user
    case app
}

/// A value the core persists, with where it lives.
public struct StorageKey<Value: Codable & Sendable>: Sendable {
    public typealias Scope = StorageScope

    public let name: String
    public let scope: Scope

    public init(_ name: String, scope: Scope) {
        self.name = name
        self.scope = scope
    }
}

extension StorageKey {
    // The user's identity (SuperwallKit `CacheKeys.swift` names in comments); the user's own
    // attributes are a table of their own (`Store+UserAttributes`).
    /// `store.aliasId`
    static var aliasId: StorageKey<String> { .init("aliasId", scope: .user) }
    /// `store.appUserId`
    static var appUserId: StorageKey<String> { .init("appUserId", scope: .user) }
    /// `store.seed`
    static var seed: StorageKey<Int> { .init("seed", scope: .user) }
    /// `store.IntegrationAttributes`
    static var integrationAttributes: StorageKey<[String: JSON]> { .init("integrationAttributes", scope: .user) }
    /// `store.didTrackFirstSeen.v2`
    static var didTrackFirstSeen: StorageKey<Bool> { .init("didTrackFirstSeen", scope: .user) }

    // The install's own facts.
    /// `store.didTrackAppInstall`
    static var didTrackAppInstall: StorageKey<Bool> { .init("didTrackAppInstall", scope: .app) }
    /// When this data directory was first used: the app's install date.
    static var appInstalledAt: StorageKey<Double> { .init("appInstalledAtMs", scope: .app) }
    /// `store.lastApiKey`
    static var lastApiKey: StorageKey<String> { .init("lastApiKey", scope: .app) }
    /// `store.subscriptionStatus`: the last status, restored at launch.
    static var subscriptionStatus: StorageKey<SubscriptionStatus> { .init("subscriptionStatus", scope: .app) }
    /// `store.CustomerInfo`: the last customer info computed.
    static var customerInfo: StorageKey<CustomerInfo> { .init("customerInfo", scope: .app) }
    /// The purchases recorded here (SuperwallKit reads them from the device's receipt).
    static var purchaseHistory: StorageKey<PurchaseHistory> { .init("purchaseHistory", scope: .app) }
    /// The customer info of the user's redeemed web purchases (`store.latestRedeemResponse`).
    static var webCustomerInfo: StorageKey<CustomerInfo> { .init("webCustomerInfo", scope: .user) }
    /// When the web entitlements were last fetched (`store.LastWebEntitlementsFetchDate`), in ms.
    static var lastWebEntitlementsFetch: StorageKey<Double> { .init("lastWebEntitlementsFetchMs", scope: .user) }
    /// The outgoing event queue's position: events up to it were sent (or dropped).
    static var eventQueuePosition: StorageKey<Int64> { .init("eventQueuePosition", scope: .app) }
    /// How many queued events were dropped unsent (the queue's bound, invalid at the collector).
    static var droppedEventCount: StorageKey<Int> { .init("droppedEventCount", scope: .app) }
    /// Web-checkout codes this user redeemed (`firstRedemption` is false for them).
    static var redeemedCodes: StorageKey<[String]> { .init("redeemedCodes", scope: .user) }
    /// `store.surveyAssignmentKey`: the assignment key of the last survey this user was
    /// assessed for (shown or held out); that survey is not asked again.
    static var surveyAssignmentKey: StorageKey<String> { .init("surveyAssignmentKey", scope: .user) }
}

/// Bytes the core keeps as they are, not encoded: documents too large to copy needlessly.
public struct DocumentKey: Sendable {
    public let name: String
    public let scope: StorageScope

    /// `store.config`: the body of the last config that decoded, as served.
    static var lastConfig: DocumentKey { .init(name: "lastConfig", scope: .app) }

    /// Every document, each a file beside a database on disk (`Store+Documents.swift`).
    static let all: [DocumentKey] = [.lastConfig]
}

extension UUID {
    /// The nil UUID's sixteen zero bytes: where a stored id is read into, and a record's
    /// "no id".
    static let nilBytes: uuid_t = (0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0)
}
