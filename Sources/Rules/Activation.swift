/// What an expression is evaluated against: the top-level variables (`user`, `device`,
/// `params`, ...) and the host functions the caller declares.
///
/// Values handed out must already be normalised (`Value.normalized`), as Superscript
/// normalises its inputs; `MapView`s normalise what they convert. Activations are classes so
/// that handing one to an evaluation copies a reference, not a struct of maps.
public protocol Activation: AnyObject {
    func variable(named name: String) -> Value?
    var hostFunctions: (any HostFunctions)? { get }
}

extension Activation {
    public var hostFunctions: (any HostFunctions)? { nil }
}

/// Functions the host answers, such as SuperwallKit's `daysSince("app_open")`.
///
/// Superscript registers every declared name as a global function, so `device.f(x)`,
/// `computed.f(x)` and `f(x)` all reach the same one; the receiver is ignored. A call's
/// arguments are evaluated first; one that cannot be resolved is an error, never a call.
public protocol HostFunctions: Sendable {
    func declares(_ name: String) -> Bool
    /// The answer, or `.null` when the host has none (SuperwallKit answers `""`, which
    /// Superscript reads as null).
    func call(_ name: String, arguments: [Value]) -> Value
}

/// Variables held in a dictionary, with optional host functions.
public final class VariableActivation: Activation, Sendable {
    public let variables: [String: Value]
    public let hostFunctions: (any HostFunctions)?

    public init(_ variables: [String: Value] = [:], hostFunctions: (any HostFunctions)? = nil) {
        self.variables = variables
        self.hostFunctions = hostFunctions
    }

    public func variable(named name: String) -> Value? {
        variables[name]
    }
}
