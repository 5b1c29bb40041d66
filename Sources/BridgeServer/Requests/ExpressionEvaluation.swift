import Foundation
import JSONRPC
import Rules
import SuperwallCore

/// `debug/evaluateExpression` and `superwall-bridge eval`: an expression tried against a
/// context in the conformance data's `ctx` form, answered as `{value: {type, value}}` or
/// `{error: {message, line?, column?}}`.
///
/// The tagged form has one implementation, `Rules.Value`'s `Codable`; this type only moves
/// between it and the wire's `JSONValue`.
public enum ExpressionEvaluation {
    public struct InvalidContext: Error, CustomStringConvertible {
        public let description: String
    }

    public static func evaluate(_ expression: String, in context: any Activation) -> JSONValue {
        switch ProgramCache.shared.evaluate(expression, context) {
        case .success(let value):
            return ["value": encode(value)]
        case .failure(.compile(let error)):
            var details: JSONObject = ["message": .string("Failed to compile expression: \(error.message)")]
            if let position = error.position {
                details["line"] = .int(Int64(position.line))
                details["column"] = .int(Int64(position.column))
            }
            return ["error": .object(details)]
        case .failure(let error):
            return ["error": ["message": .string(error.description)]]
        }
    }

    /// The members of the typed form; an object with `variables` is in it.
    private static let typedFormKeys: Set<String> = ["variables", "computed", "device", "host"]

    /// The context from its JSON form; an absent one is empty. The conformance data's typed
    /// form is recognised by its own keys (`isTypedForm`); any other object is plain JSON, the
    /// form a person writes (`{"user": {"plan": "pro"}}`), whose members are the variables,
    /// read as the bridge reads attributes.
    public static func context(from json: JSONValue?) throws(InvalidContext) -> EvaluationContext {
        guard let json, json != .null else { return EvaluationContext() }
        guard case .object(let members) = json else {
            throw InvalidContext(description: "the context must be an object")
        }
        guard isTypedForm(members) else {
            return EvaluationContext(
                variables: Dictionary(uniqueKeysWithValues: members.map { ($0.key, Value(JSON($0.value))) })
            )
        }
        let stray = members.keys.filter { !typedFormKeys.contains($0) }
        guard stray.isEmpty else {
            throw InvalidContext(
                description:
                    "context.\(stray[0]) is not part of the typed form, which takes variables, computed, device and host "
                    + "(an object that is not in the typed form is read whole as plain JSON)"
            )
        }
        do {
            return try JSONDecoder().decode(EvaluationContext.self, from: Data(JSONWriter.encode(json)))
        } catch let error as DecodingError {
            throw InvalidContext(description: describe(error))
        } catch {
            throw InvalidContext(description: "\(error)")
        }
    }

    /// The typed form: `variables`, or only the typed form's keys with a `computed` or
    /// `host` (which plain JSON would not name), or a `device` that declares functions (each
    /// member an array of argument lists). A context that declares only host functions,
    /// `{"device": {"daysSince": [...]}, "host": {...}}`, was read as plain JSON, and its
    /// functions answered Null.
    private static func isTypedForm(_ members: JSONObject) -> Bool {
        if members["variables"] != nil { return true }
        guard !members.isEmpty, members.keys.allSatisfy(typedFormKeys.contains) else { return false }
        if members["computed"] != nil || members["host"] != nil { return true }
        guard case .object(let device)? = members["device"], !device.isEmpty else { return false }
        return device.values.allSatisfy { if case .array = $0 { true } else { false } }
    }

    static func encode(_ value: Value) -> JSONValue {
        let encoder = JSONEncoder()
        encoder.outputFormatting = .sortedKeys
        encoder.nonConformingFloatEncodingStrategy = .convertToString(
            positiveInfinity: "inf",
            negativeInfinity: "-inf",
            nan: "NaN"
        )
        guard let data = try? encoder.encode(value),
            let json = try? data.withUnsafeBytes({ bytes throws(JSONSyntaxError) in try JSONDecoding.decode(bytes) })
        else { return ["type": "Null"] }
        return json
    }

    private static func describe(_ error: DecodingError) -> String {
        let (context, reason): (DecodingError.Context, String) =
            switch error {
            case .typeMismatch(_, let context): (context, "has the wrong type")
            case .valueNotFound(_, let context): (context, "is missing")
            case .keyNotFound(let key, let context): (context, "has no '\(key.stringValue)'")
            case .dataCorrupted(let context): (context, "is invalid")
            @unknown default: (DecodingError.Context(codingPath: [], debugDescription: ""), "is invalid")
            }
        let path = (["context"] + context.codingPath.map { $0.intValue.map { "[\($0)]" } ?? $0.stringValue })
            .joined(separator: ".").replacingOccurrences(of: ".[", with: "[")
        return "\(path) \(reason): \(context.debugDescription)"
    }
}
