import DequeModule
import JSONRPC
import SuperwallCore
import Synchronization

/// Carries `delegate/*` notifications to the client, buffering them while no delegate is
/// bound (no `delegate` capability yet, or `setDelegate {enabled: false}`), so nothing the
/// core reports during configure is lost to a client that binds a moment later. The buffer is
/// bounded; past it the oldest notifications are dropped.
final class DelegateChannel: SuperwallDelegate, Sendable {
    static let capacity = 1000

    /// A method and its params as JSON text, written when delivered.
    private typealias Notification = (method: String, params: @Sendable () -> [UInt8])

    private struct State {
        /// Weak: the connection owns the server that owns this channel.
        weak var connection: Connection?
        var bound = false
        /// Params are built when delivered: most never are, with no delegate bound.
        var buffered = Deque<Notification>()
    }

    private let state = Mutex(State())
    private let eventParameters = DelegateParametersText()

    /// The connection notifications go out on; set at `initialize`.
    func attach(_ connection: Connection) {
        state.withLock { $0.connection = connection }
    }

    /// The session has ended: what waits for a delegate that never bound goes.
    func detach() {
        state.withLock { state in
            state.buffered.removeAll()
            state.connection = nil
        }
    }

    /// Binds or unbinds the client's delegate; binding delivers what was buffered, in order.
    ///
    /// The delegate counts as bound only once the backlog is out: notifications sent while it
    /// goes out join the buffer and go after it. (Bound at once, they went straight out between
    /// the backlog's, and a client heard events out of order.)
    func bind(_ enabled: Bool) {
        while true {
            let (connection, backlog) = state.withLock { state -> (Connection?, Deque<Notification>) in
                guard enabled, let connection = state.connection, !state.buffered.isEmpty else {
                    state.bound = enabled
                    return (nil, [])
                }
                defer { state.buffered.removeAll() }
                return (connection, state.buffered)
            }
            guard let connection else { return }
            for notification in backlog { connection.notify(notification.method, encodedParams: notification.params()) }
        }
    }

    func send(_ method: String, _ params: @autoclosure @escaping @Sendable () -> JSONValue) {
        sendEncoded(method, JSONWriter.encode(params()))
    }

    /// `send` with the params already JSON text (an object).
    private func sendEncoded(_ method: String, _ params: @autoclosure @escaping @Sendable () -> [UInt8]) {
        let connection = state.withLock { state -> Connection? in
            if state.bound, let connection = state.connection { return connection }
            if state.buffered.count >= Self.capacity { state.buffered.removeFirst() }
            state.buffered.append((method, params))
            return nil
        }
        connection?.notify(method, encodedParams: params())
    }

    /// Whether a delegate is bound now.
    var isBound: Bool { state.withLock { $0.bound && $0.connection != nil } }

    /// A notification for a bound delegate only; dropped otherwise.
    func sendIfBound(_ method: String, _ params: @autoclosure @Sendable () -> JSONValue) {
        guard let connection = state.withLock({ $0.bound ? $0.connection : nil }) else { return }
        connection.notify(method, params: params())
    }

    /// A notification that is not the delegate's (`config/didRefresh`): sent whether or not a
    /// delegate is bound, and dropped before `initialize`.
    private func sendToClient(_ method: String, _ params: JSONValue) {
        state.withLock { $0.connection }?.notify(method, params: params)
    }

    // MARK: SuperwallDelegate

    func willRedeemLink() { send("delegate/willRedeemLink", [:]) }

    func didRedeemLink(_ result: RedemptionResult) {
        send(
            "delegate/didRedeemLink",
            [
                "result": [
                    "code": .string(result.code), "status": .string(result.status.rawValue),
                    "type": .string(result.status.caseName),
                    "message": result.message.map(JSONValue.string) ?? .null,
                    "redemptionInfo": result.redemptionInfo.map { JSONValue($0) } ?? .null,
                    "expired": result.expiredInfo.map { JSONValue($0) } ?? .null,
                    "error": result.status == .error ? ["message": .string(result.message ?? "")] : .null,
                ]
            ]
        )
    }

    func configDidRefresh(_ refresh: ConfigRefresh) {
        sendToClient("config/didRefresh", refresh.wireValue)
    }

    /// Written straight to JSON text: a bound delegate hears every event, three a `register`.
    /// Buffered, the params' closure holds the writer, not the channel: a channel holding a
    /// closure that held it was never freed (an in-process bridge with no delegate bound kept
    /// about 15 KiB a session).
    func handleSuperwallEvent(_ event: TrackedEvent) {
        let eventParameters = eventParameters
        sendEncoded(
            "delegate/handleSuperwallEvent",
            {
                var params = JSONWriter()
                params.beginObject()
                params.member("event", event.typedWireValue)
                params.member("params", text: eventParameters.text(of: event))
                params.endObject()
                return params.bytes
            }()
        )
    }

    func willPresentPaywall(_ info: PaywallInfo) {
        send("delegate/willPresentPaywall", ["paywallInfo": info.wireValue])
    }
    func didPresentPaywall(_ info: PaywallInfo) { send("delegate/didPresentPaywall", ["paywallInfo": info.wireValue]) }
    func willDismissPaywall(_ info: PaywallInfo) {
        send("delegate/willDismissPaywall", ["paywallInfo": info.wireValue])
    }
    func didDismissPaywall(_ info: PaywallInfo) { send("delegate/didDismissPaywall", ["paywallInfo": info.wireValue]) }
    func handleCustomPaywallAction(name: String) { send("delegate/handleCustomPaywallAction", ["name": .string(name)]) }
    func paywallWillOpenURL(_ url: String) { send("delegate/paywallWillOpenURL", ["url": .string(url)]) }
    func paywallWillOpenDeepLink(_ url: String) { send("delegate/paywallWillOpenDeepLink", ["url": .string(url)]) }

    func handleSuperwallDeepLink(url: String, pathComponents: [String], queryParameters: [String: String]) {
        send(
            "delegate/handleSuperwallDeepLink",
            [
                "url": .string(url), "pathComponents": .array(pathComponents.map(JSONValue.string)),
                "queryParameters": .object(JSONValue.sortedObject(queryParameters.mapValues(JSON.string))),
            ]
        )
    }

    func userAttributesDidChange(_ attributes: [String: JSON]) {
        send("delegate/userAttributesDidChange", ["attributes": .object(JSONValue.sortedObject(attributes))])
    }

    func testModeTransaction(_ transaction: TestModeTransaction) {
        switch transaction {
        case .purchase(let product):
            send("delegate/testModeTransaction", ["type": "purchase", "product": product.wireValue])
        case .restore: send("delegate/testModeTransaction", ["type": "restore", "product": .null])
        }
    }

    func subscriptionStatusDidChange(from old: SubscriptionStatus, to new: SubscriptionStatus) {
        send("delegate/subscriptionStatusDidChange", ["from": old.wireValue, "to": new.wireValue])
    }

    func customerInfoDidChange(from old: CustomerInfo, to new: CustomerInfo) {
        send("delegate/customerInfoDidChange", ["from": old.wireValue, "to": new.wireValue])
    }
}
