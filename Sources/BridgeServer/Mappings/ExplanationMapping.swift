import JSONRPC
import Rules
import SuperwallCore

/// `debug/explainPlacement`'s answer (protocol/README.md, "Explaining a placement").
extension PlacementExplanation {
    public var jsonValue: JSONValue {
        var object: JSONObject = [
            "placement": .string(placement),
            "placementFound": .bool(placementFound),
            "audiences": .array(audiences.map(\.jsonValue)),
            "variant": variant.map(\.jsonValue) ?? .null,
            "paywall": paywall.map(\.jsonValue) ?? .null,
            "outcome": .string(outcome.rawValue),
            "featureGranted": .bool(featureGranted),
        ]
        if let reason { object["reason"] = .string(reason) }
        if let nearestPlacement { object["nearestPlacement"] = .string(nearestPlacement) }
        return .object(object)
    }
}

extension PlacementExplanation.AudienceCheck {
    var jsonValue: JSONValue {
        var rule: JSONValue = .null
        var object: JSONObject = [:]
        switch self.rule {
        case .none: break
        case .evaluated(let explanation): rule = explanation.jsonValue
        case .doesNotCompile(let message): object["compileError"] = .string(message)
        }
        object.merge([
            "experimentId": .string(experimentId),
            "experimentGroupId": .string(experimentGroupId),
            "expression": .optional(expression),
            "evaluated": .bool(evaluated),
            "rule": rule,
            "occurrence": occurrence.map(\.jsonValue) ?? .null,
            "matched": .bool(matched),
        ]) { $1 }
        return .object(object)
    }
}

extension PlacementExplanation.OccurrenceCheck {
    var jsonValue: JSONValue {
        let minutes: JSONValue =
            switch limit.interval {
            case .minutes(let minutes): .int(Int64(minutes))
            case .infinity: .null
            }
        return [
            "key": .string(limit.key), "maxCount": .int(Int64(limit.maxCount)), "intervalMinutes": minutes,
            "storedCount": .int(Int64(storedCount)), "allowsAnother": .bool(allowsAnother),
        ]
    }
}

extension PlacementExplanation.VariantCheck {
    var jsonValue: JSONValue {
        [
            "experimentId": .string(experimentId), "variantId": .string(variant.id),
            "type": .string(variant.kind.rawValue),
            "paywallIdentifier": .optional(variant.paywallIdentifier), "confirmed": .bool(confirmed),
        ]
    }
}

extension PlacementExplanation.PaywallCheck {
    var jsonValue: JSONValue {
        [
            "identifier": .string(identifier), "name": .optional(name),
            "featureGating": .optional(featureGating.map { camelCase($0.rawValue) }), "found": .bool(found),
        ]
    }
}

extension RuleExplanation {
    /// `{matches, value?, valueText?, error?, tree}`: the value after Superscript's post-pass.
    var jsonValue: JSONValue {
        var object: JSONObject = ["matches": .bool(matches), "tree": trace.jsonValue]
        switch result {
        case .success(let value): object.merge(ExpressionTrace.describe(value)) { $1 }
        case .failure(let error): object["error"] = .string(error.message)
        }
        return .object(object)
    }
}

extension ExpressionTrace {
    /// `{text, evaluated, value?, valueText?, error?, evaluations?, children, omittedNodes?}`;
    /// the text is already bounded (`ExpressionTrace.textLimit`).
    var jsonValue: JSONValue {
        var object: JSONObject = ["text": .string(text), "evaluated": .bool(outcome != .notEvaluated)]
        switch outcome {
        case .value(let value): object.merge(Self.describe(value)) { $1 }
        case .error(let error): object["error"] = .string(error.message)
        case .notEvaluated: break
        }
        if evaluations > 1 { object["evaluations"] = .int(Int64(evaluations)) }
        object["children"] = .array(children.map(\.jsonValue))
        if omittedNodes > 0 { object["omittedNodes"] = .int(Int64(omittedNodes)) }
        return .object(object)
    }

    /// The value as text (`valueText`, large maps abbreviated), and in the tagged form
    /// (`value`) unless it is such a map.
    ///
    /// A text past `textLimit` characters is cut, and such a value is given as text alone: an
    /// explanation repeats a value at every node that reads it, and 200 reads of a 60 KB
    /// attribute made a 49 MB answer.
    static func describe(_ value: Value) -> JSONObject {
        let text = ExpressionTrace.text(of: value)
        if text.count > textLimit { return ["valueText": .string(bounded(text))] }
        if case .map(let map) = value, map.count > 8 { return ["valueText": .string(text)] }
        return ["valueText": .string(text), "value": ExpressionEvaluation.encode(value)]
    }

    /// The most characters of a value's text an explanation carries.
    static let textLimit = ExpressionTrace.textLimit

    static func bounded(_ text: String) -> String {
        guard text.count > textLimit else { return text }
        return String(text.prefix(textLimit)) + " … (\(text.count) characters)"
    }
}
