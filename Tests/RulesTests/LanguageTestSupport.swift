import Foundation
import Rules
import Testing

/// Evaluates `source` against `variables` (normalised, as Superscript normalises inputs).
func evaluate(
    _ source: String,
    _ variables: [String: Value] = [:],
    host: (any HostFunctions)? = nil
) -> Result<Value, RuleError> {
    ProgramCache.shared.evaluate(source, VariableActivation(variables.mapValues(\.normalized), hostFunctions: host))
}

func value(_ source: String, _ variables: [String: Value] = [:]) -> Value? {
    try? evaluate(source, variables).get()
}

func isError(_ source: String, _ variables: [String: Value] = [:]) -> Bool {
    if case .failure = evaluate(source, variables) { return true }
    return false
}

let user: [String: Value] = ["user": .map(ValueMap(["credits": .int(5), "plan": .string("free"), "score": .null]))]
