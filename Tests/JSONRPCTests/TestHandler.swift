import Foundation
import JSONRPC
import TestSupport

/// A handler with the spec examples' methods plus a few that exercise the connection.
final class TestHandler: ConnectionHandler {
    let notifications = LockedBox<[String]>([])
    let cancelledRequests = LockedBox<Int>(0)
    let failInitialize = LockedBox<Bool>(false)
    let shutdownCalls = LockedBox<Int>(0)
    /// How long `shutdown`'s flush takes.
    let shutdownDelay = LockedBox<Duration>(.zero)
    let idleCalls = LockedBox<Int>(0)
    /// Set by the next request: the idle work after it waits for this to be signalled.
    let holdIdleWorkAfterNextRequest = LockedBox<DispatchSemaphore?>(nil)
    /// Signalled each time idle work starts.
    let idleWorkStarted = DispatchSemaphore(value: 0)
    private let idleGate = LockedBox<DispatchSemaphore?>(nil)

    func connectionIsIdle() {
        idleCalls.update { $0 += 1 }
        idleWorkStarted.signal()
        idleGate.update { gate in
            defer { gate = nil }
            return gate
        }?.wait()
    }

    func initialize(_ request: IncomingRequest, connection: Connection) async throws -> JSONValue {
        if let delay = request.params?["delayMs"]?.int64Value {
            try await Task.sleep(for: .milliseconds(delay))
        }
        if failInitialize.get() { throw RPCError.invalidParams("refused for the test.") }
        return ["server": "test"]
    }

    func handle(_ request: IncomingRequest, connection: Connection) async throws -> JSONValue {
        if let gate = holdIdleWorkAfterNextRequest.update({ gate in
            defer { gate = nil }
            return gate
        }) {
            idleGate.set(gate)
        }
        switch request.method {
        case "$/ping":
            return [:]
        case "subtract":
            if case .array(let operands)? = request.params, operands.count == 2,
                let minuend = operands[0].int64Value, let subtrahend = operands[1].int64Value
            {
                return .int(minuend - subtrahend)
            }
            if let minuend = request.params?["minuend"]?.int64Value,
                let subtrahend = request.params?["subtrahend"]?.int64Value
            {
                return .int(minuend - subtrahend)
            }
            throw RPCError.invalidParams("subtract takes two integers.")
        case "sum":
            return .int((request.params?.arrayValue ?? []).compactMap(\.int64Value).reduce(0, +))
        case "get_data":
            return ["hello", 5]
        case "echo":
            return request.params ?? .null
        case "wait":
            do {
                try await Task.sleep(for: .seconds(60))
            } catch {
                cancelledRequests.update { $0 += 1 }
                throw error
            }
            return "not cancelled"
        case "slow":
            try await Task.sleep(for: .milliseconds(request.params?["ms"]?.int64Value ?? 100))
            return "done"
        case "ask":
            // Long by default: the bridge's deadline is exact, while the test's own reply may
            // wait seconds for a thread of the pool when every suite runs at once.
            let timeout = Duration.milliseconds(request.params?["timeoutMs"]?.int64Value ?? 60_000)
            return try await connection.sendRequest(
                request.params?["method"]?.stringValue ?? "client/question",
                params: ["q": 1],
                timeout: timeout
            )
        case "crash":
            struct Unexpected: Error {}
            throw Unexpected()
        case "notifyBack":
            connection.notify("server/event", params: request.params)
            return [:]
        default:
            throw RPCError.methodNotFound(request.method)
        }
    }

    func handle(_ notification: IncomingNotification, connection: Connection) async {
        notifications.update { $0.append(notification.method) }
    }

    func shutdown(connection: Connection) async {
        try? await Task.sleep(for: shutdownDelay.get())
        shutdownCalls.update { $0 += 1 }
    }
}
