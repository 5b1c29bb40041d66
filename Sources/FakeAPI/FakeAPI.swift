import Foundation
import Synchronization

#if canImport(Glibc)
import Glibc
#endif

/// A local stand-in for the Superwall API: the routes the bridge's `http` source speaks,
/// answered from a config and the server-side state a script starts it with, every request
/// recorded. The HTTP server around it is `FakeAPIServer`.
public final class FakeAPI: Sendable {
    /// The config served at `/api/v1/static_config`, read at each request, so a test can change it.
    private let config: @Sendable () throws -> Data
    private let script: FakeAPIScript
    private let record: RecordFile?
    private let state: Mutex<State>

    private struct State {
        var servedByScript: [String: Int] = [:]
        /// `experimentId` → `variantId`, in the order first assigned.
        var assignments: [(experimentId: String, variantId: String)]
        var webEntitlements: [String: Data]
        var requests: [FakeAPIRequest] = []
        /// The bodies' bytes in `requests`.
        var keptBytes = 0

        /// Appends `request`, then lets the oldest go until at most `keptRequests` requests
        /// and `keptBytes` bytes of bodies remain (the newest always stays).
        mutating func keep(_ request: FakeAPIRequest) {
            requests.append(request)
            keptBytes += request.body?.count ?? 0
            var dropped = 0
            while requests.count - dropped > 1,
                requests.count - dropped > FakeAPI.keptRequests || keptBytes > FakeAPI.keptBodyBytes
            {
                keptBytes -= requests[dropped].body?.count ?? 0
                dropped += 1
            }
            if dropped > 0 { requests.removeFirst(dropped) }
        }
    }

    /// `recordPath`: a file each request is appended to as a JSON line (`FakeAPIRequest.recordLine`).
    public init(
        config: @escaping @Sendable () throws -> Data,
        script: FakeAPIScript = FakeAPIScript(),
        recordPath: String? = nil
    )
        throws
    {
        self.config = config
        self.script = script
        self.record = try recordPath.map(RecordFile.init(path:))
        state = Mutex(State(assignments: script.assignments, webEntitlements: script.webEntitlements))
    }

    /// The requests received so far, unmasked, in order: the latest `keptRequests` of them, their
    /// bodies at most `keptBodyBytes` together (the record file has every one).
    public var requests: [FakeAPIRequest] { state.withLock { $0.requests } }

    /// How many requests `requests` keeps: a long run's memory stays flat.
    public static let keptRequests = 1_000

    /// How many bytes of bodies `requests` keeps: a run that posts large bodies stays flat too.
    public static let keptBodyBytes = 16 << 20

    /// Records `request` and answers it: the script's answer for its path if there is one,
    /// else the route's default.
    public func answer(_ request: FakeAPIRequest) -> FakeAPIResponse {
        let scripted = state.withLock { state -> FakeAPIScript.Answer? in
            state.keep(request)
            guard let key = scriptKey(for: request.path), let steps = script.answers[key] else { return nil }
            let index = state.servedByScript[key, default: 0]
            state.servedByScript[key] = index + 1
            return steps[min(index, steps.count - 1)]
        }
        record?.append(request.recordLine)
        guard let scripted else { return route(request) }
        if let body = scripted.body {
            return FakeAPIResponse(
                status: scripted.status,
                body: body,
                delayMilliseconds: scripted.delayMilliseconds,
                chunked: scripted.chunked,
                heldUntil: scripted.heldUntil
            )
        }
        var answer = scripted.status == 200 ? route(request) : FakeAPIResponse(status: scripted.status, body: Data())
        answer.delayMilliseconds = scripted.delayMilliseconds
        answer.chunked = scripted.chunked
        answer.heldUntil = scripted.heldUntil
        return answer
    }

    private func scriptKey(for path: String) -> String? {
        if script.answers[path] != nil { return path }
        return script.answers.keys.filter { $0.hasSuffix("*") && path.hasPrefix($0.dropLast()) }.max {
            $0.count < $1.count
        }
    }

    private static let usersPrefix = "/subscriptions-api/public/v1/users/"

    private func route(_ request: FakeAPIRequest) -> FakeAPIResponse {
        switch (request.method, request.path) {
        case ("GET", "/api/v1/static_config"):
            do {
                return FakeAPIResponse(status: 200, body: try config())
            } catch {
                return .json(["error": "the config cannot be read: \(error)"], status: 500)
            }
        case ("GET", let path) where path.hasPrefix("/api/v1/paywall/"):
            return paywall(String(path.dropFirst("/api/v1/paywall/".count)), locale: request.queryItem("locale"))
        case ("GET", "/api/v1/assignments"):
            let assignments = state.withLock { $0.assignments }
            return .json([
                "assignments": assignments.map { ["experiment_id": $0.experimentId, "variant_id": $0.variantId] }
            ])
        case ("POST", "/api/v1/confirm_assignments"):
            return confirm(request.body)
        case ("POST", "/api/v1/events"):
            return .json(["status": "ok"])
        case ("POST", "/subscriptions-api/public/v1/redeem"):
            return redeem(request.body)
        case ("GET", let path) where path.hasPrefix(Self.usersPrefix) && path.hasSuffix("/entitlements"):
            let user = String(path.dropFirst(Self.usersPrefix.count).dropLast("/entitlements".count))
            let device = request.queryItem("deviceId")
            let info = state.withLock { state in
                state.webEntitlements[user.removingPercentEncoding ?? user]
                    ?? device.flatMap { state.webEntitlements[$0] }
            }
            return FakeAPIResponse(
                status: 200,
                body: Data(#"{"customerInfo":"#.utf8) + (info ?? Self.noCustomerInfo) + Data("}".utf8)
            )
        default:
            return .notFound("the fake Superwall API has no route \(request.method) \(request.path)")
        }
    }

    private static let noCustomerInfo = Data(#"{"subscriptions":[],"nonSubscriptions":[],"entitlements":[]}"#.utf8)

    /// The paywall in `locale` if the script has it, else the config's own.
    private func paywall(_ identifier: String, locale: String?) -> FakeAPIResponse {
        if let locale, let localized = script.localizedPaywalls[identifier]?[locale] {
            return FakeAPIResponse(status: 200, body: localized)
        }
        guard let text = try? config(),
            let config = try? JSONSerialization.jsonObject(with: text) as? [String: Any],
            let paywalls = config["paywall_responses"] as? [[String: Any]],
            let paywall = paywalls.first(where: { $0["identifier"] as? String == identifier })
        else { return .notFound("the config has no paywall \(identifier)") }
        return .json(paywall)
    }

    /// Confirmed assignments replace the server's for their experiments.
    private func confirm(_ body: Data?) -> FakeAPIResponse {
        guard let body, let object = try? JSONSerialization.jsonObject(with: body) as? [String: Any],
            let entries = object["assignments"] as? [[String: Any]]
        else { return .json(["error": "the body needs {assignments: [{experiment_id, variant_id}]}"], status: 400) }
        state.withLock { state in
            for entry in entries {
                guard let experiment = entry["experiment_id"] as? String, let variant = entry["variant_id"] as? String
                else { continue }
                if let index = state.assignments.firstIndex(where: { $0.experimentId == experiment }) {
                    state.assignments[index].variantId = variant
                } else {
                    state.assignments.append((experiment, variant))
                }
            }
        }
        return .json([String: Any]())
    }

    /// Each code as the script has it, else `INVALID_CODE`; a success's customer info becomes
    /// the web entitlements of the device and the user that redeemed it.
    private func redeem(_ body: Data?) -> FakeAPIResponse {
        guard let body, let object = try? JSONSerialization.jsonObject(with: body) as? [String: Any],
            let codes = object["codes"] as? [[String: Any]]
        else { return .json(["error": "the body needs {codes: [{code}]}"], status: 400) }
        var results: [[String: Any]] = []
        var customerInfo: Data?
        for code in codes.compactMap({ $0["code"] as? String }) {
            guard let redemption = script.redemptions[code] else {
                results.append(["code": code, "status": "INVALID_CODE", "error": ["message": "No such code."]])
                continue
            }
            var result: [String: Any] = ["code": code, "status": redemption.status]
            if let info = redemption.redemptionInfo,
                let value = try? JSONSerialization.jsonObject(
                    with: info,
                    options: [.fragmentsAllowed]
                )
            {
                result["redemptionInfo"] = value
            }
            if let message = redemption.message { result["error"] = ["message": message] }
            if redemption.status == "SUCCESS", let info = redemption.customerInfo { customerInfo = info }
            results.append(result)
        }
        var answer: [String: Any] = ["codes": results]
        if let customerInfo, let value = try? JSONSerialization.jsonObject(with: customerInfo) {
            answer["customerInfo"] = value
            let owners = [object["deviceId"], object["appUserId"], object["aliasId"]].compactMap { $0 as? String }
            state.withLock { state in
                for owner in owners { state.webEntitlements[owner] = customerInfo }
            }
        }
        return .json(answer)
    }
}

/// The record file: one `write` a line, so lines are whole even when the process is killed.
private final class RecordFile: Sendable {
    private let descriptor: Int32

    init(path: String) throws {
        descriptor = open(path, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0o600)
        guard descriptor >= 0 else {
            throw CocoaError(.fileWriteNoPermission, userInfo: [NSFilePathErrorKey: path])
        }
    }

    func append(_ line: Data) {
        line.withUnsafeBytes { bytes in
            var offset = 0
            while offset < bytes.count {
                let written = write(descriptor, bytes.baseAddress! + offset, bytes.count - offset)
                if written < 0, errno == EINTR { continue }
                guard written > 0 else { return }
                offset += written
            }
        }
    }

    deinit { close(descriptor) }
}
