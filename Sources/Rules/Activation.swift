import Synchronization

/// What an expression is evaluated against: the top-level variables (`user`, `device`,
/// `params`, ...) and the host functions the caller declares.
///
/// Values handed out must already be normalised (`Value.normalized`), as Superscript
/// normalises its inputs; `MapView`s normalise what they convert. Activations are classes so
/// that handing one to an evaluation copies a reference, not a struct of maps.
public protocol Activation: AnyObject {
    func variable(named name: String) -> Value?
    var hostFunctions: (any HostFunctions)? { get }
    /// What `path` read in this activation before, if it was remembered: `.some(nil)` when it
    /// named nothing. An activation evaluated against many rules (an audience context) may
    /// remember, so that twenty rules reading `user.plan` look it up once.
    func rememberedMember(_ path: MemberPath) -> Value??
    func remember(_ value: Value?, for path: MemberPath)
}

extension Activation {
    public var hostFunctions: (any HostFunctions)? { nil }
    public func rememberedMember(_ path: MemberPath) -> Value?? { nil }
    public func remember(_ value: Value?, for path: MemberPath) {}
}

/// A variable's field as rules read it (`user.plan`): one object for every rule that reads
/// it, with a small number of its own, so an activation can remember answers by number.
public final class MemberPath: Sendable {
    public let variable: String
    public let field: String
    /// Dense from 0, in the order paths were first compiled.
    public let number: Int
    /// Whether `field` names a builtin function (`device.size` reads as the function).
    let fieldIsBuiltin: Bool

    private init(variable: String, field: String, number: Int) {
        self.variable = variable
        self.field = field
        self.number = number
        fieldIsBuiltin = Builtin(rawValue: field) != nil
    }

    private static let interned = Mutex<[String: MemberPath]>([:])

    /// The path of `variable.field`, the same object each time.
    static func of(variable: String, field: String) -> MemberPath {
        interned.withLock { paths in
            let key = variable + "." + field
            if let path = paths[key] { return path }
            let path = MemberPath(variable: variable, field: field, number: paths.count)
            paths[key] = path
            return path
        }
    }
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
