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

    public init(id: UUID, name: String, isSuperwallEvent: Bool = true, superwallParameters: [String: JSON] = [:],
                customParameters: [String: JSON] = [:], createdAt: Date) {
        self.id = id
        self.name = name
        self.isSuperwallEvent = isSuperwallEvent
        self.superwallParameters = superwallParameters
        self.customParameters = customParameters.filter { !$0.key.hasPrefix("$") }
        self.createdAt = createdAt
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

    /// The parameters as a delegate sees them.
    public var delegateParameters: [String: JSON] {
        var parameters = customParameters
        parameters.merge(superwallParameters, uniquingKeysWith: { _, sdk in sdk })
        parameters["is_superwall"] = .bool(true)
        return parameters
    }
}

/// Where the core reports what happens, mirroring SuperwallKit's `SuperwallDelegate`.
public protocol SuperwallDelegate: Sendable {
    /// A Superwall event was tracked (`handleSuperwallEvent(withInfo:)`).
    func handleSuperwallEvent(_ event: TrackedEvent)
}
