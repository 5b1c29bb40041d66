/// A context in Superscript's `ExecutionContext` form, as the conformance data writes it:
///
/// ```json
/// {"variables": {"map": {"user": {"type": "map", "value": {...}}}},
///  "computed": {"daysSince": [{"type": "string", "value": "event_name"}]},
///  "device":   {"daysSince": [...]},
///  "host":     {"daysSince": {"type": "int", "value": 3}}}
/// ```
///
/// `variables` may also hold the names directly, without `map`. `computed` and `device`
/// declare host functions (only their names matter); `host` gives each function's answer.
/// The variables are set up as Superscript does: every value normalised, `device` the
/// declared device functions (as function values) overlaid with the `device` variable's
/// entries, and `computed` the declared computed functions.
public final class EvaluationContext: Activation, Sendable, Decodable {
    public let variables: [String: Value]
    private let functions: DeclaredHostFunctions

    public var hostFunctions: (any HostFunctions)? { functions }

    /// `computedArguments`, `deviceArguments`: each declared function's arguments, which its
    /// function value carries as a list (Superscript's `Function(name, Some(List(args)))`).
    public init(
        variables: [String: Value] = [:],
        computed: Set<String> = [],
        device: Set<String> = [],
        answers: [String: Value] = [:],
        computedArguments: [String: [Value]] = [:],
        deviceArguments: [String: [Value]] = [:]
    ) {
        functions = DeclaredHostFunctions(computed: computed, device: device, answers: answers)
        var prepared = variables.mapValues(\.normalized)
        var deviceEntries: [MapKey: Value] = [:]
        for name in device {
            deviceEntries[.string(name)] = .function(name, argument: deviceArguments[name].map(Value.list))
        }
        if case .map(let given)? = prepared["device"] {
            deviceEntries.merge(given.entries) { _, given in given }
        }
        prepared["device"] = .map(ValueMap(keyed: deviceEntries))
        var computedEntries: [MapKey: Value] = [:]
        for name in computed {
            computedEntries[.string(name)] = .function(name, argument: computedArguments[name].map(Value.list))
        }
        prepared["computed"] = .map(ValueMap(keyed: computedEntries))
        self.variables = prepared
    }

    public func variable(named name: String) -> Value? {
        variables[name]
    }

    private enum CodingKeys: String, CodingKey {
        case variables, computed, device, host
    }

    private struct WrappedVariables: Decodable {
        let map: [String: Value]
    }

    public required convenience init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        var variables: [String: Value] = [:]
        if let wrapped = try? container.decodeIfPresent(WrappedVariables.self, forKey: .variables) {
            variables = wrapped.map
        } else if let direct = try container.decodeIfPresent([String: Value].self, forKey: .variables) {
            variables = direct
        }
        let computed = try container.decodeIfPresent([String: [Value]].self, forKey: .computed) ?? [:]
        let device = try container.decodeIfPresent([String: [Value]].self, forKey: .device) ?? [:]
        let answers = try container.decodeIfPresent([String: Value].self, forKey: .host) ?? [:]
        self.init(
            variables: variables,
            computed: Set(computed.keys),
            device: Set(device.keys),
            answers: answers,
            computedArguments: computed,
            deviceArguments: device
        )
    }
}

/// Host functions declared by name, each answering a fixed value (null when none is given).
struct DeclaredHostFunctions: HostFunctions {
    let computed: Set<String>
    let device: Set<String>
    let answers: [String: Value]

    func declares(_ name: String) -> Bool {
        computed.contains(name) || device.contains(name)
    }

    func call(_ name: String, arguments: [Value]) -> Value {
        answers[name] ?? .null
    }
}
