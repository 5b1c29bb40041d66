import Foundation

/// One event the SDK tracked: a Superwall event (`app_launch`, `user_attributes`, ...) or a
/// placement the app registered.
///
/// It carries its parameters in two forms, as SuperwallKit does (`TrackingLogic`): the
/// server and audience form, where the SDK's own parameters are `$`-prefixed beside
/// `$is_standard_event`, `$event_name` and `event_name`; and the delegate form, un-prefixed
/// with `is_superwall: true`.
public struct TrackedEvent: Sendable, Equatable {
    public var id: UUID
    public var name: String
    /// True for the SDK's own events, false for the app's placements.
    public var isSuperwallEvent: Bool
    /// The SDK's parameters, un-prefixed (`application_installed_at`, `config_build_id`, ...).
    public var superwallParameters: [String: JSON]
    /// Parameters from the app or carried by the event (attributes for `user_attributes`).
    public var customParameters: [String: JSON]
    public var createdAt: Date
    /// What the event is about, as SuperwallKit's `SuperwallEvent` carries it in its
    /// associated values (the paywall, the product): for a delegate's typed fields.
    public var subject: EventSubject
    /// The same for the events that repeat one (`RepeatedEvent`): they have the same params.
    public internal(set) var sharedParameters: SharedParameters?
    /// `customParameters` already written, when they are the user's attributes.
    public internal(set) var customParametersText: CustomParametersText?

    /// SuperwallKit's case name of a Superwall event (`paywallOpen` for `paywall_open`), as the
    /// wrappers name it; nil for the app's placements.
    public var caseName: String? { isSuperwallEvent ? SuperwallEventNames.caseNames[name] : nil }

    public init(
        id: UUID,
        name: String,
        isSuperwallEvent: Bool = true,
        superwallParameters: [String: JSON] = [:],
        customParameters: [String: JSON] = [:],
        createdAt: Date
    ) {
        self.id = id
        self.name = name
        self.isSuperwallEvent = isSuperwallEvent
        self.superwallParameters = superwallParameters
        self.customParameters =
            customParameters.allSatisfy { Self.keepsCustomParameter($0.key, $0.value) }
            ? customParameters : customParameters.filter { Self.keepsCustomParameter($0.key, $0.value) }
        self.createdAt = createdAt
        self.subject = .none
    }

    /// SuperwallKit's cleaning of custom params (`TrackingLogic.processParameters`): keys
    /// starting with `$` are the SDK's, and nulls and arrays are dropped.
    static func keepsCustomParameter(_ key: String, _ value: JSON) -> Bool {
        guard !key.hasPrefix("$") else { return false }
        switch value {
        case .null, .array: return false
        default: return true
        }
    }

    /// The parameters as the server and audience rules see them.
    public var audienceParameters: [String: JSON] {
        var parameters = customParameters
        for (key, value) in superwallParameters { parameters["$" + key] = value }
        parameters["$is_standard_event"] = .bool(isSuperwallEvent)
        parameters["$event_name"] = .string(name)
        parameters["event_name"] = .string(name)
        return parameters
    }

    /// `audienceParameters` as JSON text, written without building the dictionary.
    var audienceParametersJSON: [UInt8] {
        var writer = JSONObjectWriter(capacity: customParametersText?.texts.byteCount ?? 512)
        if let written = customParametersText?.texts {
            for member in written.members where member.isEventParameter && !Self.isNamed(member.key, "event_name") {
                writer.add(written: member.text)
            }
        } else {
            for (key, value) in customParameters where !Self.isNamed(key, "event_name") { writer.add(key, value) }
        }
        for (key, value) in superwallParameters
        where !Self.isNamed(key, "is_standard_event") && !Self.isNamed(key, "event_name") {
            writer.add(key, prefix: UInt8(ascii: "$"), value)
        }
        writer.add("$is_standard_event", .bool(isSuperwallEvent))
        writer.add("$event_name", .string(name))
        writer.add("event_name", .string(name))
        return writer.finish()
    }

    /// `key == name`, with the lengths compared first: a comparison of two different strings
    /// otherwise takes Swift's slow path (Unicode-aware), and most keys differ.
    private static func isNamed(_ key: String, _ name: String) -> Bool {
        key.utf8.count == name.utf8.count && key == name
    }

    /// The parameters as a delegate sees them.
    public var delegateParameters: [String: JSON] {
        Dictionary(uniqueKeysWithValues: delegateMembers)
    }

    /// `delegateParameters` as members, in no order, gathered without merging the dictionaries:
    /// a host writes them out for every event its delegate hears. The SDK's win over the app's.
    public var delegateMembers: [(key: String, value: JSON)] {
        var members: [(key: String, value: JSON)] = []
        members.reserveCapacity(customParameters.count + superwallParameters.count + 1)
        for (key, value) in customParameters
        where superwallParameters[key] == nil && !Self.isNamed(key, "is_superwall") {
            members.append((key, value))
        }
        members += sdkDelegateMembers
        return members
    }

    /// The SDK's part of `delegateMembers`.
    public var sdkDelegateMembers: [(key: String, value: JSON)] {
        var members: [(key: String, value: JSON)] = []
        members.reserveCapacity(superwallParameters.count + 1)
        for (key, value) in superwallParameters where !Self.isNamed(key, "is_superwall") {
            members.append((key, value))
        }
        members.append(("is_superwall", .bool(true)))
        return members
    }
}

/// An event's custom parameters as text (`AttributeTexts`), carried so that every writer of the
/// event copies them. Not part of an event's value: it is the parameters, written.
public struct CustomParametersText: Sendable, Equatable {
    public let texts: AttributeTexts

    init(_ texts: AttributeTexts) {
        self.texts = texts
    }

    public static func == (lhs: CustomParametersText, rhs: CustomParametersText) -> Bool { true }
}

/// Marks the events whose parameters are the same: a placement registered again with the same
/// params, a skip repeated for the same reasons (`RepeatedEvent`). A host that writes events'
/// parameters out can write them once for all the events that share one. Not part of an
/// event's value: two events are equal whatever they share.
public final class SharedParameters: Sendable, Equatable {
    public static func == (lhs: SharedParameters, rhs: SharedParameters) -> Bool { true }
}

/// The objects an event concerns, beyond its parameters. Boxed: most events have none, and
/// an event is copied on its way to the log and the delegate, so it stays one pointer wide.
public struct EventSubject: Sendable, Equatable {
    private final class Box: Sendable {
        let paywallInfo: PaywallInfo?
        let product: Product?
        init(paywallInfo: PaywallInfo?, product: Product?) {
            self.paywallInfo = paywallInfo
            self.product = product
        }
    }

    private let box: Box?

    public init(paywallInfo: PaywallInfo? = nil, product: Product? = nil) {
        box = paywallInfo == nil && product == nil ? nil : Box(paywallInfo: paywallInfo, product: product)
    }

    /// No paywall and no product. Spelled `EventSubject()`, every event without a subject
    /// built an empty `PaywallInfo?` of a kilobyte to pass in and test.
    public static let none = EventSubject()

    public var paywallInfo: PaywallInfo? { box?.paywallInfo }
    public var product: Product? { box?.product }

    public static func == (lhs: EventSubject, rhs: EventSubject) -> Bool {
        lhs.paywallInfo == rhs.paywallInfo && lhs.product == rhs.product
    }
}

/// Where the core reports what happens, mirroring SuperwallKit's `SuperwallDelegate`. Every
/// method but the first has a default that does nothing.
public protocol SuperwallDelegate: Sendable {
    /// A Superwall event was tracked (`handleSuperwallEvent(withInfo:)`).
    func handleSuperwallEvent(_ event: TrackedEvent)
    func willPresentPaywall(_ info: PaywallInfo)
    func didPresentPaywall(_ info: PaywallInfo)
    func willDismissPaywall(_ info: PaywallInfo)
    func didDismissPaywall(_ info: PaywallInfo)
    /// A paywall's `custom` action.
    func handleCustomPaywallAction(name: String)
    func paywallWillOpenURL(_ url: String)
    func paywallWillOpenDeepLink(_ url: String)
    /// A redemption link was opened and its code is being redeemed (`willRedeemLink`).
    func willRedeemLink()
    /// How redeeming a code ended (`didRedeemLink(result:)`).
    func didRedeemLink(_ result: RedemptionResult)
    /// A config refresh finished, or failed and kept the config in use.
    func configDidRefresh(_ refresh: ConfigRefresh)
    /// A Superwall universal link, mapped to the app's own scheme (`handleSuperwallDeepLink`).
    func handleSuperwallDeepLink(url: String, pathComponents: [String], queryParameters: [String: String])
    /// A paywall changed the user's attributes; these are the merged attributes.
    func userAttributesDidChange(_ attributes: [String: JSON])
    func subscriptionStatusDidChange(from old: SubscriptionStatus, to new: SubscriptionStatus)
    func customerInfoDidChange(from old: CustomerInfo, to new: CustomerInfo)
    /// Test mode simulated a purchase or restore in place of a store.
    func testModeTransaction(_ transaction: TestModeTransaction)
}

extension SuperwallDelegate {
    public func willPresentPaywall(_ info: PaywallInfo) {}
    public func didPresentPaywall(_ info: PaywallInfo) {}
    public func willDismissPaywall(_ info: PaywallInfo) {}
    public func didDismissPaywall(_ info: PaywallInfo) {}
    public func handleCustomPaywallAction(name: String) {}
    public func paywallWillOpenURL(_ url: String) {}
    public func paywallWillOpenDeepLink(_ url: String) {}
    public func handleSuperwallDeepLink(url: String, pathComponents: [String], queryParameters: [String: String]) {}
    public func configDidRefresh(_ refresh: ConfigRefresh) {}
    public func willRedeemLink() {}
    public func didRedeemLink(_ result: RedemptionResult) {}
    public func userAttributesDidChange(_ attributes: [String: JSON]) {}
    public func subscriptionStatusDidChange(from old: SubscriptionStatus, to new: SubscriptionStatus) {}
    public func customerInfoDidChange(from old: CustomerInfo, to new: CustomerInfo) {}
    public func testModeTransaction(_ transaction: TestModeTransaction) {}
}
