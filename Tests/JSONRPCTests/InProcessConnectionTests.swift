import Foundation
import JSONRPC
import Logging
import TestSupport
import Testing

/// A connection served in-process: messages through a `MessageInbox`, answers to a callback.
final class InProcessPeer: @unchecked Sendable {
    let inbox: MessageInbox
    let connection: Connection
    let received = LockedBox<[JSONValue]>([])
    let callbackThreads = LockedBox<Set<UInt>>([])
    /// Runs in the callback, after the message is recorded.
    let onMessage = LockedBox<(@Sendable (JSONValue) -> Void)?>(nil)
    private let status = LockedBox<Int32?>(nil)

    init(
        handler: TestHandler = TestHandler(),
        maximumQueuedOutput: Int = 64 * 1024 * 1024,
        maximumMessageSize: Int = 64 * 1024 * 1024,
        trace: FrameTrace? = nil
    ) {
        inbox = MessageInbox(maximumQueuedBytes: maximumQueuedOutput)
        var options = Connection.Options()
        options.maximumQueuedOutput = maximumQueuedOutput
        options.maximumMessageSize = maximumMessageSize
        options.trace = trace
        var logger = Logger(label: "in-process-test")
        logger.logLevel = .critical
        let received = received
        let threads = callbackThreads
        let onMessage = onMessage
        connection = Connection(
            inbox: inbox,
            deliver: { bytes in
                let message = (try? JSONDecoding.decode(UnsafeRawBufferPointer(bytes))) ?? .null
                received.update { $0.append(message) }
                _ = threads.update { $0.insert(UInt(pthread_self())) }
                onMessage.get()?(message)
            },
            handler: handler,
            options: options,
            logger: logger
        )
        let thread = Thread { [connection, status] in status.set(connection.run()) }
        thread.stackSize = 8 << 20
        thread.start()
    }

    @discardableResult
    func send(_ text: String) -> MessageInbox.Outcome { inbox.send(Array(text.utf8)) }

    func request(_ id: Int, _ method: String, _ params: String = "{}") {
        send(#"{"jsonrpc":"2.0","id":\#(id),"method":"\#(method)","params":\#(params)}"#)
    }

    func initialize() async {
        request(0, "initialize")
        _ = await answer(to: 0)
    }

    /// The first message answering `id`, waiting up to the suites' expectation timeout.
    func answer(to id: Int) async -> JSONValue? {
        await eventually { self.received.get().first { $0["id"]?.int64Value == Int64(id) && $0["method"] == nil } }
    }

    func waitForExit() async -> Int32? {
        inbox.endInput()
        return await eventually { self.status.get() }
    }

    private func eventually<T>(_ probe: @escaping () -> T?) async -> T? {
        let deadline = ContinuousClock.now + expectationTimeout
        while ContinuousClock.now < deadline {
            if let value = probe() { return value }
            try? await Task.sleep(for: .milliseconds(2))
        }
        return probe()
    }
}

@Suite struct InProcessConnectionTests {
    @Test func answersComeWholeInTheOrderOfTheirRequestsOnOneThread() async {
        let peer = InProcessPeer()
        await peer.initialize()
        for id in 1...200 { peer.request(id, "echo", #"{"n":\#(id)}"#) }
        _ = await peer.answer(to: 200)
        let ids = peer.received.get().compactMap { $0["id"]?.int64Value }.filter { $0 > 0 }
        #expect(ids == Array(1...200))
        #expect(peer.received.get().last?["result"]?["n"]?.int64Value == 200)
        #expect(peer.callbackThreads.get().count == 1)
        #expect(await peer.waitForExit() == 0)
    }

    @Test func aCallbackThatSendsIsAnsweredWithoutDeadlock() async {
        let peer = InProcessPeer()
        await peer.initialize()
        let inbox = peer.inbox
        peer.onMessage.set { message in
            // Each answer asks for the next, from inside the callback, up to 50.
            guard let id = message["id"]?.int64Value, id >= 1, id < 50 else { return }
            _ = inbox.send(Array(#"{"jsonrpc":"2.0","id":\#(id + 1),"method":"$/ping"}"#.utf8))
        }
        peer.request(1, "$/ping")
        #expect(await peer.answer(to: 50) != nil)
        #expect(await peer.waitForExit() == 0)
    }

    @Test func invalidJSONIsAParseErrorAndAnOversizedMessageIsRefusedAsOverPipes() async {
        let peer = InProcessPeer(maximumMessageSize: 64)
        await peer.initialize()
        peer.send(#"{"jsonrpc":"2.0","id":1,"method":"#)
        peer.send(
            #"{"jsonrpc":"2.0","id":2,"method":"echo","params":{"padding":"\#(String(repeating: "x", count: 100))"}}"#
        )
        peer.request(3, "$/ping")
        _ = await peer.answer(to: 3)
        let errors = peer.received.get().filter { $0["id"] == .null }
        #expect(errors.map { errorKind($0) } == ["parseError", "messageTooLarge"])
        #expect(await peer.waitForExit() == 0)
    }

    @Test func afterExitSendsAreRefusedAndTheStatusSaysWhetherShutdownCameFirst() async {
        let peer = InProcessPeer()
        await peer.initialize()
        peer.send(#"{"jsonrpc":"2.0","method":"exit"}"#)
        let deadline = ContinuousClock.now + expectationTimeout
        while peer.send(#"{"jsonrpc":"2.0","method":"note"}"#) == .taken, ContinuousClock.now < deadline {
            try? await Task.sleep(for: .milliseconds(2))
        }
        #expect(peer.send("{}") == .ended)
        #expect(await peer.waitForExit() == 1)

        let orderly = InProcessPeer()
        await orderly.initialize()
        orderly.request(1, "shutdown")
        _ = await orderly.answer(to: 1)
        orderly.send(#"{"jsonrpc":"2.0","method":"exit"}"#)
        #expect(await orderly.waitForExit() == 0)
    }

    /// In-process the bridge's work may outlive the session (a process would have exited):
    /// what it sends after that reaches neither the host's callback nor the trace.
    @Test func whatIsSentAfterTheSessionEndedReachesNeitherTheCallbackNorTheTrace() async throws {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("late-\(UUID().uuidString).jsonl").path
        defer { try? FileManager.default.removeItem(atPath: path) }
        let peer = InProcessPeer(trace: try FrameTrace(path: path))
        await peer.initialize()
        #expect(await peer.waitForExit() == 0)
        peer.connection.notify("late/notification")
        try await Task.sleep(for: .milliseconds(50))
        #expect(!peer.received.get().contains { $0["method"] == "late/notification" })
        let traced = try String(contentsOfFile: path, encoding: .utf8)
        #expect(traced.contains("initialize"))
        #expect(!traced.contains("late/notification"))
    }

    /// A callback that does not return holds the reader, as a client that does not read a pipe
    /// does: the inbox fills to its bound and a sender on another thread waits there, instead
    /// of the queue growing without end. Once the callback returns, everything is answered, in order.
    @Test func aStuckCallbackHoldsSendersAtTheBoundAndLosesNothing() async {
        let peer = InProcessPeer(maximumQueuedOutput: 4096)
        await peer.initialize()
        let release = DispatchSemaphore(value: 0)
        peer.onMessage.set { message in
            if message["id"]?.int64Value == 1 { release.wait() }
        }
        let sent = LockedBox(0)
        let total = 2000
        let inbox = peer.inbox
        let sender = Thread {
            for id in 1...total {
                _ = inbox.send(Array(#"{"jsonrpc":"2.0","id":\#(id),"method":"$/ping"}"#.utf8))
                sent.update { $0 += 1 }
            }
        }
        sender.start()
        // Without a bound the 2,000 sends (100 KB) would be taken in a moment; with it, the
        // sender stops at about 4 KiB while the callback is stuck.
        try? await Task.sleep(for: .milliseconds(300))
        let whileStuck = sent.get()
        #expect(whileStuck < total)
        release.signal()
        _ = await peer.answer(to: total)
        let ids = peer.received.get().compactMap { $0["id"]?.int64Value }.filter { $0 > 0 }
        #expect(ids == Array(1...Int64(total)))
        #expect(await peer.waitForExit() == 0)
    }
}
