import JSONRPC
import SuperwallCore
import Synchronization

/// The client as the core's host: its connection and what it said it can do, known from
/// `initialize` on.
final class ClientHost: Sendable {
    private struct State {
        /// Weak: the connection owns the server that owns this host.
        weak var connection: Connection?
        var capabilities = ClientInfo.Capabilities()
    }

    private let state = Mutex(State())

    func attach(_ connection: Connection, capabilities: ClientInfo.Capabilities) {
        state.withLock { $0 = State(connection: connection, capabilities: capabilities) }
    }

    var connection: Connection? { state.withLock { $0.connection } }
    var capabilities: ClientInfo.Capabilities { state.withLock { $0.capabilities } }

    /// A bound on the bridge's own requests, past the core's deadline for them: the core
    /// gives up first (and the request is cancelled); this only guards against a core that
    /// forgot to.
    static let backstop: Duration = .seconds(3600)

    /// How a request the bridge made of the client ended.
    enum Reply {
        case answered(JSONValue)
        /// The client answered with an error; the message says which request.
        case refused(String)
        /// The connection closed, the bridge is shutting down, or the request was cancelled.
        case lost
    }

    /// Asks the client `method`, bounded by the backstop; every way it can end is a `Reply`.
    func ask(_ method: String, _ params: JSONValue) async -> Reply {
        guard let connection else { return .lost }
        do {
            return .answered(try await connection.sendRequest(method, params: params, timeout: Self.backstop))
        } catch {
            // -32800: cancelled by the core's deadline, by end of input or by shutdown.
            if error.code == RPCError.requestCancelled.code { return .lost }
            return .refused("The client answered \(method) with an error: \(error.message)")
        }
    }
}

/// Paywalls shown by the client: `paywall/present` and `paywall/dismiss` requests.
struct ClientPaywallPresenter: PaywallPresenter {
    let host: ClientHost

    var canPresent: Bool { host.capabilities.paywallPresenter && host.connection != nil }

    func present(_ presentation: PaywallPresentation) async throws {
        guard let connection = host.connection else { throw RPCError.connectionClosed }
        _ = try await connection.sendRequest(
            "paywall/present",
            params: presentation.wireValue,
            timeout: ClientHost.backstop
        )
    }

    /// Only to a client that declared `paywallPresenter`: a `getPaywall` client without it
    /// takes its paywall down on `handler/onWillDismiss`.
    func dismiss(
        sessionId: String,
        info: PaywallInfo,
        result: PaywallResult,
        closeReason: PaywallCloseReason
    ) async -> [String: JSON]? {
        guard let connection = host.connection, host.capabilities.paywallPresenter else { return nil }
        let answer = try? await connection.sendRequest(
            "paywall/dismiss",
            params: [
                "sessionId": .string(sessionId), "result": result.wireValue,
                "closeReason": .string(closeReason.rawValue),
                "paywallInfo": info.wireValue,
            ],
            timeout: ClientHost.backstop
        )
        return answer?["state"]?.objectValue.map { [String: JSON]($0) }
    }

    var canPreload: Bool { host.capabilities.paywallPreloader && host.connection != nil }

    func preload(_ paywall: Paywall, page: PageBootstrap) async throws {
        guard let connection = host.connection else { throw RPCError.connectionClosed }
        _ = try await connection.sendRequest(
            "paywall/preload",
            params: [
                "paywall": [
                    "identifier": .string(paywall.identifier), "url": .string(paywall.url),
                    "presentationStyle": paywall.presentationStyle.wireValue,
                    "products": .array(paywall.products.map(\.wireValue)),
                    "page": page.wireValue(presentationDelayMs: paywall.presentationDelayMs),
                ]
            ],
            timeout: ClientHost.backstop
        )
    }

    func showAlert(_ alert: PaywallAlert, sessionId: String) async throws {
        let connection = try presenterConnection()
        _ = try await connection.sendRequest(
            "paywall/showAlert",
            params: [
                "sessionId": .string(sessionId), "title": .string(alert.title), "message": .string(alert.message),
                "actionTitle": alert.actionTitle.map(JSONValue.string) ?? .null,
                "actionUrl": alert.actionURL.map(JSONValue.string) ?? .null,
                "closeActionTitle": .string(alert.closeActionTitle),
            ],
            timeout: ClientHost.backstop
        )
    }
}

extension ClientPaywallPresenter {
    /// The connection, for a request only a `paywallPresenter` client answers.
    private func presenterConnection() throws -> Connection {
        guard let connection = host.connection else { throw RPCError.connectionClosed }
        guard host.capabilities.paywallPresenter else { throw PageEffectUnsupported() }
        return connection
    }

    /// `paywall/presentSurvey`: answered `{type: "response", optionId, customResponse?}` or
    /// `{type: "close"}`; any other answer is an error, as if the client could not show it.
    func presentSurvey(_ survey: Survey, sessionId: String, info: PaywallInfo) async throws -> SurveyAnswer {
        let connection = try presenterConnection()
        let reply = try await connection.sendRequest(
            "paywall/presentSurvey",
            params: ["sessionId": .string(sessionId), "survey": survey.wireValue, "paywallInfo": info.wireValue],
            timeout: ClientHost.backstop
        )
        guard case .object(let fields) = reply, case .string(let type)? = fields["type"] else {
            throw SurveysUnsupported()
        }
        switch (type, fields["optionId"], fields["customResponse"]) {
        case ("close", _, _):
            return .close
        case ("response", .string(let optionId)?, .string(let text)?):
            return .response(optionId: optionId, customResponse: text)
        case ("response", .string(let optionId)?, nil), ("response", .string(let optionId)?, .null?):
            return .response(optionId: optionId, customResponse: nil)
        default:
            throw SurveysUnsupported()
        }
    }

    /// `paywall/pageEvent`: a notification, so that events reach the page in order without
    /// waiting on the client.
    func passToPage(_ accept64: String, sessionId: String) {
        host.connection?.notify(
            "paywall/pageEvent",
            params: ["sessionId": .string(sessionId), "accept64": .string(accept64)]
        )
    }

    /// Each effect is a request of its own (`paywall/openUrl`, ...); the client's error reply,
    /// `-32601` included, means it cannot, and the core's documented default applies.
    func perform(_ effect: PageEffect, sessionId: String) async throws -> PermissionStatus? {
        let connection = try presenterConnection()
        let (method, params) = effect.request
        var object = params
        object["sessionId"] = .string(sessionId)
        let reply = try await connection.sendRequest(method, params: .object(object), timeout: ClientHost.backstop)
        let status: PermissionStatus? =
            if case .object(let fields) = reply, case .string(let name)? = fields["status"] {
                PermissionStatus(rawValue: name)
            } else { nil }
        switch effect {
        case .requestPermission: return status ?? .unsupported
        // `{status: "denied"}` when the OS refused to notify (SuperwallKit's denied permission).
        case .scheduleNotification: return status
        default: return nil
        }
    }
}

extension PageEffect {
    /// The request that asks the client for it.
    var request: (method: String, params: JSONObject) {
        switch self {
        case .openURL(let url, let mode):
            return ("paywall/openUrl", ["url": .string(url), "mode": .string(mode.rawValue)])
        case .requestReview(let external, let url):
            return (
                "paywall/requestReview",
                ["type": .string(external ? "external" : "inApp"), "url": url.map(JSONValue.string) ?? .null]
            )
        case .requestPermission(let permission):
            return ("paywall/requestPermission", ["permission": .string(permission)])
        case .scheduleNotification(let notification):
            return (
                "paywall/scheduleNotification",
                [
                    "id": .string(notification.id), "title": .string(notification.title),
                    "subtitle": notification.subtitle.map(JSONValue.string) ?? .null,
                    "body": .string(notification.body),
                    "delayMs": .double(notification.delayMs),
                ]
            )
        case .haptic(let type):
            return ("paywall/haptic", ["type": .string(type)])
        case .loadingState(let state):
            return ("paywall/loadingState", ["state": .string(state.rawValue)])
        }
    }
}

/// One `register` (or `getPaywall`) call's handler: `handler/*` notifications carrying the
/// request's id, and custom callbacks as `handler/onCustomCallback` requests.
struct ClientPresentationHandler: PresentationHandler {
    let host: ClientHost
    let registerId: JSONValue

    func onPresent(_ info: PaywallInfo) {
        notify("handler/onPresent", ["paywallInfo": info.wireValue])
    }

    func onWillDismiss(_ info: PaywallInfo, result: PaywallResult) {
        notify("handler/onWillDismiss", ["paywallInfo": info.wireValue, "result": result.wireValue])
    }

    func onDismiss(_ info: PaywallInfo, result: PaywallResult) {
        notify("handler/onDismiss", ["paywallInfo": info.wireValue, "result": result.wireValue])
    }

    /// Written member by member, without a dictionary: every skipped `register` sends one.
    func onSkip(_ reason: PaywallSkipReason) {
        guard let connection = host.connection else { return }
        var params = JSONWriter()
        params.beginObject()
        params.member("reason", reason.wireValue)
        params.member("registerId", registerId)
        params.endObject()
        connection.notify("handler/onSkip", encodedParams: params.bytes)
    }

    func onError(_ error: PresentationError) {
        notify("handler/onError", ["error": error.rpcError.jsonValue])
    }

    var handlesCustomCallbacks: Bool { host.capabilities.customCallbacks }

    /// The client's `{status, data?}`. An error reply, a reply that is not that shape, and a
    /// lost connection are all failures; the core's deadline cancels the request.
    func onCustomCallback(_ callback: CustomCallback) async -> CustomCallbackResult {
        guard let connection = host.connection else { return .failure("The client is not connected.") }
        let reply: JSONValue
        do {
            reply = try await connection.sendRequest(
                "handler/onCustomCallback",
                params: [
                    "registerId": registerId, "name": .string(callback.name),
                    "variables": .object(JSONValue.sortedObject(callback.variables)),
                    "behavior": .string(callback.isBlocking ? "blocking" : "nonBlocking"),
                ],
                timeout: ClientHost.backstop
            )
        } catch {
            return .failure("The client answered the custom callback with an error: \(error.message)")
        }
        return Self.decode(reply)
    }

    /// `{status: "success" | "failure", data?: object}`; anything else is a failure that says why.
    static func decode(_ reply: JSONValue) -> CustomCallbackResult {
        guard case .object(let fields) = reply, case .string(let statusName)? = fields["status"],
            let status = CustomCallbackResult.Status(rawValue: statusName)
        else {
            return .failure(
                "The client's answer to the custom callback is not {status: \"success\" | \"failure\", data?}."
            )
        }
        switch fields["data"] {
        case nil, .null?: return CustomCallbackResult(status: status)
        case .object(let data)?: return CustomCallbackResult(status: status, data: [String: JSON](data))
        default: return .failure("The client's answer to the custom callback has data that is not an object.")
        }
    }

    private func notify(_ method: String, _ params: JSONObject) {
        var params = params
        params["registerId"] = registerId
        host.connection?.notify(method, params: .object(params))
    }
}
