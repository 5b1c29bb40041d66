import JSONRPC
import SuperwallCore

// The protocol's JSON and the core's JSON, one mapping each way. The wire has exact unsigned
// integers above Int64.max; the core keeps those as doubles.

extension JSON {
    init(_ value: JSONValue) {
        switch value {
        case .null: self = .null
        case .bool(let flag): self = .bool(flag)
        case .int(let number): self = .int(number)
        case .uint(let number): self = .double(Double(number))
        case .double(let number): self = .double(number)
        case .string(let text): self = .string(text)
        case .array(let elements): self = .array(elements.map(JSON.init))
        case .object(let members):
            self = .object(Dictionary(uniqueKeysWithValues: members.map { ($0.key, JSON($0.value)) }))
        case .encoded(let text): self = JSON(text.decoded)
        }
    }
}

extension Dictionary where Key == String, Value == JSON {
    public init(_ object: JSONObject) {
        self.init(minimumCapacity: object.count)
        for (key, value) in object { self[key] = JSON(value) }
    }
}

/// Attribute changes as the core takes them: a JSON null becomes nil, which removes the key.
func attributeChanges(_ object: JSONObject) -> [String: JSON?] {
    Dictionary(uniqueKeysWithValues: object.map { ($0.key, $0.value.isNull ? nil : JSON($0.value)) })
}

extension JSONValue {
    /// Object keys are sorted, so the same attributes always read the same way.
    init(_ value: JSON) {
        switch value {
        case .null: self = .null
        case .bool(let flag): self = .bool(flag)
        case .int(let number): self = .int(number)
        case .double(let number): self = .double(number)
        case .string(let text): self = .string(text)
        case .array(let elements): self = .array(elements.map(JSONValue.init))
        case .object(let members): self = .object(JSONValue.sortedObject(members))
        }
    }

    /// Only the keys are sorted, and a dictionary's keys are unique already: the 10,000 members
    /// of a user's attributes are mapped on every `setUserAttributes`.
    static func sortedObject(_ members: [String: JSON]) -> JSONObject {
        let keys = members.keys.sorted()
        var values: [JSONValue] = []
        values.reserveCapacity(keys.count)
        for key in keys { values.append(JSONValue(members[key]!)) }
        return JSONObject(uncheckedUniqueKeys: keys, values: values)
    }
}

extension SuperwallError {
    /// The JSON-RPC error for a core failure: -32001 before configure, -32602 for a request
    /// the core refuses, -32601 for what is not built, -32603 for storage faults.
    public var rpcError: RPCError {
        let code: Int
        switch self {
        case .notConfigured: code = -32001
        case .apiKeyMismatch, .invalidUserId, .reservedPlacementName, .paywallSessionNotFound, .productNotFound:
            code = -32602
        case .invalidPageMessage(let error):
            return RPCError(
                code: -32602,
                message: description,
                kind: kind,
                details: ["eventIndex": error.eventIndex.map { .int(Int64($0)) } ?? .null]
            )
        case .attributesOverLimit(_, let limit):
            return RPCError(
                code: -32602,
                message: description,
                kind: kind,
                details: ["path": "params.attributes", "limit": .int(Int64(limit))]
            )
        case .notInConfig(let path, _):
            return RPCError(code: -32602, message: description, kind: kind, details: ["path": .string(path)])
        case .purchaseInProgress: code = -32004
        case .notObservingPurchases, .observingPurchases, .observedPurchaseNotStarted: code = -32006
        case .customerInfoTimeout: code = -32003
        case .noPurchaseController: code = -32005
        case .dataDirectory, .configUnavailable, .storage, .storageFull: code = -32603
        case .invalidConfig(let error):
            // The config is the client's input: an invalid one is not an internal error.
            var details: JSONObject = ["path": .string(error.path)]
            if let line = error.line, let column = error.column {
                details["line"] = .int(Int64(line))
                details["column"] = .int(Int64(column))
            }
            return RPCError(code: -32602, message: description, kind: kind, details: details)
        case .paywallSkipped(let reason):
            return RPCError(
                code: Self.paywallSkippedCode,
                message: description,
                kind: kind,
                details: ["skipReason": reason.wireValue]
            )
        case .presentation(let error): return error.rpcError
        }
        return RPCError(code: code, message: description, kind: kind)
    }

    /// `getPaywall` found nothing to show: not one of SuperwallKit's numbered errors, so a
    /// number of its own beside them.
    static let paywallSkippedCode = 100

    /// The error object carried inside a result (`configure`'s `error`).
    var jsonValue: JSONValue { rpcError.jsonValue }
}

extension ConfigRefresh {
    /// `refreshConfiguration`'s answer and `config/didRefresh`'s params.
    var wireValue: JSONValue {
        [
            "buildId": buildId.map(JSONValue.string) ?? .null, "refreshed": .bool(refreshed),
            "added": .array(added.map(JSONValue.string)), "changed": .array(changed.map(JSONValue.string)),
            "removed": .array(removed.map(JSONValue.string)), "error": error?.jsonValue ?? .null,
            "decisionChanges": .array(decisionChanges.map(\.jsonValue)),
            "paywalls": paywalls.wireValue, "placements": placements.wireValue, "campaigns": campaigns.wireValue,
            "experiments": experiments.wireValue,
            "warnings": .array(warnings.map { ["path": .string($0.path), "message": .string($0.message)] }),
        ]
    }
}

extension ConfigDiff {
    var wireValue: JSONValue {
        [
            "added": .array(added.map(JSONValue.string)), "changed": .array(changed.map(JSONValue.string)),
            "removed": .array(removed.map(JSONValue.string)),
        ]
    }
}

extension DecisionChange {
    /// `{placement, before: {outcome, experimentId, variantId, paywallIdentifier, featureGranted}, after: explanation}`.
    var jsonValue: JSONValue {
        [
            "placement": .string(placement),
            "before": [
                "outcome": .string(before.outcome.rawValue), "experimentId": .optional(before.experimentId),
                "variantId": .optional(before.variantId), "paywallIdentifier": .optional(before.paywallIdentifier),
                "featureGranted": .bool(before.featureGranted),
            ],
            "after": after.jsonValue,
        ]
    }
}
