import Foundation
import Synchronization

/// What a fake API answers beyond its defaults: scripted answers per path (failures, delays,
/// sequences) and the server-side state a test starts from. Read from the `--script` file;
/// `docs/testing.md` documents its format.
public struct FakeAPIScript: Sendable {
    /// One scripted answer.
    public struct Answer: Sendable, Equatable {
        public var status: Int
        /// The body sent; `nil` with status 200 serves the path's default answer (after the
        /// delay), with any other status an empty body.
        public var body: Data?
        public var delayMilliseconds: Int
        /// Streamed in chunks with no `Content-Length`.
        public var chunked: Bool
        /// Held until the gate opens (then the delay runs): for a test that must order a
        /// fetch's answer against its own steps rather than race a timer.
        public var heldUntil: AnswerGate?

        public init(
            status: Int,
            body: Data? = nil,
            delayMilliseconds: Int = 0,
            chunked: Bool = false,
            heldUntil: AnswerGate? = nil
        ) {
            self.status = status
            self.body = body
            self.delayMilliseconds = delayMilliseconds
            self.chunked = chunked
            self.heldUntil = heldUntil
        }
    }

    /// What redeeming one web-checkout code answers.
    public struct Redemption: Sendable, Equatable {
        /// `SUCCESS`, `ERROR`, `CODE_EXPIRED`, `INVALID_CODE` or `EXPIRED_SUBSCRIPTION`.
        public var status: String
        /// The web customer info a success brings (and the user's web entitlements from then on).
        public var customerInfo: Data?
        public var redemptionInfo: Data?
        public var message: String?

        public init(status: String, customerInfo: Data? = nil, redemptionInfo: Data? = nil, message: String? = nil) {
            self.status = status
            self.customerInfo = customerInfo
            self.redemptionInfo = redemptionInfo
            self.message = message
        }
    }

    /// Answers by path, served in order, the last repeating. A key ending in `*` matches every
    /// path it begins; an exact key wins over a prefix, a longer prefix over a shorter.
    public var answers: [String: [Answer]] = [:]
    /// Paywalls by identifier and locale, served for `GET /api/v1/paywall/{id}?locale=`.
    public var localizedPaywalls: [String: [String: Data]] = [:]
    /// The server's assignments at the start, `(experimentId, variantId)`.
    public var assignments: [(experimentId: String, variantId: String)] = []
    /// Web customer info by user or device id.
    public var webEntitlements: [String: Data] = [:]
    /// Redemptions by code; any other code is `INVALID_CODE`.
    public var redemptions: [String: Redemption] = [:]

    public init() {}

    /// A script file that cannot be read, with the JSON path of what is wrong.
    public struct Invalid: Error, CustomStringConvertible {
        public var path: String
        public var reason: String
        public var description: String { "\(path): \(reason)" }
    }

    /// Reads a script file's JSON.
    public init(json: Data) throws(Invalid) {
        guard let object = try? JSONSerialization.jsonObject(with: json, options: [.fragmentsAllowed]) else {
            throw Invalid(path: "$", reason: "not JSON")
        }
        let root = try Self.object(object, at: "$")
        let known: Set = ["answers", "localizedPaywalls", "assignments", "webEntitlements", "redemptions"]
        if let unknown = root.keys.sorted().first(where: { !known.contains($0) }) {
            throw Invalid(path: "$.\(unknown)", reason: "not a key of the script; it takes \(known.sorted())")
        }
        for (path, value) in try Self.object(root["answers"] ?? [String: Any](), at: "$.answers") {
            let steps = value as? [Any] ?? [value]
            guard !steps.isEmpty else { throw Invalid(path: "$.answers.\(path)", reason: "no answers") }
            answers[path] = try steps.enumerated().map { index, step throws(Invalid) in
                try Self.answer(step, at: "$.answers.\(path)[\(index)]")
            }
        }
        for (identifier, locales) in try Self.object(root["localizedPaywalls"] ?? [String: Any](), at: "$") {
            let at = "$.localizedPaywalls.\(identifier)"
            for (locale, paywall) in try Self.object(locales, at: at) {
                localizedPaywalls[identifier, default: [:]][locale] = try Self.text(
                    Self.object(paywall, at: "\(at).\(locale)")
                )
            }
        }
        guard let assignmentList = root["assignments"] as? [Any] ?? (root["assignments"] == nil ? [] : nil) else {
            throw Invalid(path: "$.assignments", reason: "not a list")
        }
        assignments = try assignmentList.enumerated().map { index, entry throws(Invalid) in
            let entry = try Self.object(entry, at: "$.assignments[\(index)]")
            guard let experiment = entry["experimentId"] as? String, let variant = entry["variantId"] as? String else {
                throw Invalid(path: "$.assignments[\(index)]", reason: "needs experimentId and variantId (strings)")
            }
            return (experiment, variant)
        }
        for (user, info) in try Self.object(root["webEntitlements"] ?? [String: Any](), at: "$.webEntitlements") {
            webEntitlements[user] = try Self.text(Self.object(info, at: "$.webEntitlements.\(user)"))
        }
        for (code, value) in try Self.object(root["redemptions"] ?? [String: Any](), at: "$.redemptions") {
            let at = "$.redemptions.\(code)"
            let entry = try Self.object(value, at: at)
            guard let status = entry["status"] as? String else { throw Invalid(path: at, reason: "needs status") }
            redemptions[code] = Redemption(
                status: status,
                customerInfo: try entry["customerInfo"].map { value throws(Invalid) in
                    try Self.text(Self.object(value, at: "\(at).customerInfo"))
                },
                redemptionInfo: try entry["redemptionInfo"].map { value throws(Invalid) in try Self.text(value) },
                message: entry["message"] as? String
            )
        }
    }

    private static func answer(_ value: Any, at path: String) throws(Invalid) -> Answer {
        let entry = try object(value, at: path)
        guard let status = entry["status"] as? Int, (100...599).contains(status) else {
            throw Invalid(path: "\(path).status", reason: "needs an HTTP status (100-599)")
        }
        let body: Data? =
            if let text = entry["bodyText"] as? String { Data(text.utf8) } else {
                try entry["body"].map { value throws(Invalid) in try Self.text(value) }
            }
        let delay =
            try entry["delayMs"].map { value throws(Invalid) in try Self.milliseconds(value, at: "\(path).delayMs") }
            ?? 0
        return Answer(status: status, body: body, delayMilliseconds: delay, chunked: entry["chunked"] as? Bool ?? false)
    }

    /// A whole, non-negative number of milliseconds: `"5"` or `1.5` was taken as 0.
    private static func milliseconds(_ value: Any, at path: String) throws(Invalid) -> Int {
        guard let number = value as? NSNumber, !(value is String), let whole = Int(exactly: number.doubleValue) else {
            throw Invalid(path: path, reason: "must be a whole number of milliseconds, not \(value)")
        }
        guard whole >= 0 else { throw Invalid(path: path, reason: "must not be negative") }
        return whole
    }

    private static func object(_ value: Any, at path: String) throws(Invalid) -> [String: Any] {
        guard let object = value as? [String: Any] else { throw Invalid(path: path, reason: "not an object") }
        return object
    }

    static func text(_ value: Any) throws(Invalid) -> Data {
        guard
            let data = try? JSONSerialization.data(
                withJSONObject: value,
                options: [.fragmentsAllowed, .withoutEscapingSlashes]
            )
        else {
            throw Invalid(path: "$", reason: "a value that is not JSON")
        }
        return data
    }
}

/// A gate an answer waits at until the test opens it (`FakeAPIScript.Answer.heldUntil`).
public final class AnswerGate: Sendable, Equatable {
    private let state = Mutex<(isOpen: Bool, waiting: [@Sendable () -> Void])>((false, []))

    public init() {}

    /// Lets every held answer go, and the ones that come later at once.
    public func open() {
        let waiting = state.withLock { state in
            state.isOpen = true
            defer { state.waiting = [] }
            return state.waiting
        }
        for resume in waiting { resume() }
    }

    /// Runs `resume` once the gate is open: now, if it is.
    func whenOpen(_ resume: @escaping @Sendable () -> Void) {
        let isOpen = state.withLock { state in
            if !state.isOpen { state.waiting.append(resume) }
            return state.isOpen
        }
        if isOpen { resume() }
    }

    public static func == (lhs: AnswerGate, rhs: AnswerGate) -> Bool { lhs === rhs }
}
