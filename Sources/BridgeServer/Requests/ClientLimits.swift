import JSONRPC
import SuperwallCore

/// The bounds on what a client may send, beyond the message size the transport enforces.
/// Each keeps one request from costing the process memory or time out of proportion (a
/// 20 MiB locale made every `getDeviceAttributes` answer 84 MB); each is refused with
/// `-32602` naming the limit in `data.limit`.
public enum ClientLimits {
    /// `userId`, in UTF-8 bytes.
    public static let userIdBytes = 4_096
    /// A placement's name, in UTF-8 bytes: it goes into the log, the placement log and every
    /// event it tracks, each a copy, so a name of megabytes would take seconds to register.
    public static let placementNameBytes = 4_096
    /// `localeIdentifier`, and a platform wrapper's name and version, in UTF-8 bytes.
    public static let nameBytes = 256
    /// One attribute string (a key or a value), in UTF-8 bytes.
    public static let attributeStringBytes = 64 * 1024
    /// How deep attribute objects and arrays nest.
    public static let attributeDepth = 32
    /// Members and elements in one `setUserAttributes` or `setIntegrationAttributes`, counted
    /// at every depth.
    public static let attributeCount = 10_000
    /// Members and elements the user's attributes hold in all, after a call's merge (the core's
    /// `UserAttributes.totalMemberLimit`).
    public static let attributeTotalCount = UserAttributes.totalMemberLimit
    /// Entitlements in one subscription status.
    public static let entitlementCount = 1_000
    /// `eventFlushIntervalMs`: at least this often would burn CPU for nothing.
    public static let eventFlushIntervalMs = 100...86_400_000
    /// `maxConfigRetryCount`.
    public static let configRetries = 0...10
    /// A Play product's `playOffers` (Play Billing lists a few base plans and offers each).
    public static let playOffers = 0...100
    /// One Play offer's pricing phases (a trial, a discount, the recurring price).
    public static let pricingPhases = 10
    /// A `dataDirectory` path, in UTF-8 bytes.
    public static let pathBytes = 4_096
    /// `explainOnRefresh`: each refresh explains these placements twice.
    public static let explainedPlacements = 0...100
    /// `debug/advanceClock`'s seconds: up to a hundred years at a time.
    public static let clockAdvanceSeconds = 0.0...3_155_760_000.0

    static func refuse(_ path: String, _ message: String, limit: Int) -> RPCError {
        RPCError.invalidParams("\(path) \(message)", details: ["path": .string(path), "limit": .int(Int64(limit))])
    }

    /// `params.<key>`, a placement's name within its limit.
    static func placementName(_ params: Params, _ key: String = "placement") throws(RPCError) -> String {
        let name = try params.string(key)
        // The path is written only for a refusal: `register` takes this on every call.
        if name.utf8.count > placementNameBytes {
            try check(name, at: params.path(of: key), atMost: placementNameBytes)
        }
        return name
    }

    /// A string no longer than `limit` bytes.
    static func check(_ text: String, at path: String, atMost limit: Int) throws(RPCError) {
        guard text.utf8.count <= limit else {
            throw refuse(path, "is \(text.utf8.count) bytes; the limit is \(limit).", limit: limit)
        }
    }

    /// A number within `range`; `data.limit` names the bound it passed.
    static func check(_ value: Int, at path: String, within range: ClosedRange<Int>) throws(RPCError) {
        guard !range.contains(value) else { return }
        throw refuse(
            path,
            "must be from \(range.lowerBound) to \(range.upperBound), not \(value).",
            limit: value < range.lowerBound ? range.lowerBound : range.upperBound
        )
    }

    /// `attributes` of `params`, within the limits.
    static func checkedAttributes(_ params: Params) throws(RPCError) -> JSONObject {
        let attributes = try params.jsonObject("attributes")
        try checkAttributes(attributes, at: params.path(of: "attributes"))
        return attributes
    }

    /// Attributes within the depth, count and string limits.
    static func checkAttributes(_ attributes: JSONObject, at path: String) throws(RPCError) {
        var count = 0
        try checkValue(.object(attributes), at: path, depth: 0, count: &count)
    }

    private static func checkValue(_ value: JSONValue, at path: String, depth: Int, count: inout Int) throws(RPCError) {
        switch value {
        case .string(let text):
            try check(text, at: path, atMost: attributeStringBytes)
        case .array(let elements):
            try enter(path, depth: depth, adding: elements.count, to: &count)
            for (index, element) in elements.enumerated() {
                try checkValue(element, at: "\(path)[\(index)]", depth: depth + 1, count: &count)
            }
        case .object(let members):
            try enter(path, depth: depth, adding: members.count, to: &count)
            for (key, member) in members {
                try check(key, at: "\(path) key", atMost: attributeStringBytes)
                try checkValue(member, at: "\(path).\(key.prefix(64))", depth: depth + 1, count: &count)
            }
        default:
            break
        }
    }

    private static func enter(_ path: String, depth: Int, adding members: Int, to count: inout Int) throws(RPCError) {
        guard depth < attributeDepth else {
            throw refuse(path, "nests deeper than \(attributeDepth) levels.", limit: attributeDepth)
        }
        count += members
        guard count <= attributeCount else {
            throw refuse(path, "holds more than \(attributeCount) members and elements in all.", limit: attributeCount)
        }
    }
}
