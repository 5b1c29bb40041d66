import Foundation
import Synchronization
import TestSupport
import Testing

@testable import SuperwallBridgeEmbedding

/// A bridge opened without an output function: the host takes each message with
/// `superwall_bridge_receive` on its own thread, as LuaJIT or Dart must.
@Suite struct ReceiveTests {
    enum Outcome: Equatable {
        case message(String)
        case code(Int32)
    }

    private func receive(_ bridge: UnsafeMutableRawPointer?, timeout: Int32 = 30_000) -> Outcome {
        var message: UnsafePointer<CChar>? = UnsafePointer(bitPattern: 1)
        var length = -1
        let code = superwallBridgeReceive(bridge, timeout, &message, &length)
        guard code == 0, let message else {
            #expect(message == nil && length == 0)
            return .code(code)
        }
        #expect(message[length] == 0)
        return .message(String(decoding: UnsafeRawBufferPointer(start: message, count: length), as: UTF8.self))
    }

    private func send(_ bridge: UnsafeMutableRawPointer?, _ text: String) -> Int32 {
        text.withCString { superwallBridgeSend(bridge, $0, strlen($0)) }
    }

    private func open(_ options: String? = nil) throws -> UnsafeMutableRawPointer {
        try #require(superwallBridgeOpen(options, nil, nil, nil, 0))
    }

    private static let initialize =
        #"{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"1.0","client":{"name":"receive","version":"1"}}}"#

    @Test func answersArriveInOrderOnTheReceivingThreadThenTheEndAfterExit() throws {
        let bridge = try open()
        #expect(send(bridge, Self.initialize) == 0)
        #expect(send(bridge, #"{"jsonrpc":"2.0","id":2,"method":"$/ping"}"#) == 0)
        guard case .message(let first) = receive(bridge) else {
            Issue.record("no answer to initialize")
            return
        }
        #expect(first.contains(#""id":1"#) && first.contains("protocolVersion"))
        #expect(receive(bridge) == .message(#"{"jsonrpc":"2.0","id":2,"result":{}}"#))
        #expect(receive(bridge, timeout: 0) == .code(4))
        #expect(send(bridge, #"{"jsonrpc":"2.0","id":3,"method":"shutdown"}"#) == 0)
        #expect(send(bridge, #"{"jsonrpc":"2.0","method":"exit"}"#) == 0)
        var rest: [String] = []
        while case .message(let text) = receive(bridge) { rest.append(text) }
        #expect(rest.last?.contains(#""id":3"#) == true)
        #expect(receive(bridge, timeout: 0) == .code(1))
        #expect(superwallBridgeClose(bridge) == 0)
        #expect(receive(bridge, timeout: 0) == .code(1))
    }

    @Test func aTimeoutIsWaitedOutAndAnsweredTimedOut() throws {
        let bridge = try open()
        let started = ContinuousClock.now
        #expect(receive(bridge, timeout: 60) == .code(4))
        #expect(ContinuousClock.now - started >= .milliseconds(60))
        #expect(superwallBridgeClose(bridge) == 0)
    }

    @Test func misuseIsACode() throws {
        var message: UnsafePointer<CChar>?
        var length = 0
        #expect(superwallBridgeReceive(nil, 0, &message, &length) == 2)
        let bridge = try open()
        #expect(superwallBridgeReceive(bridge, -1, &message, &length) == 2)
        #expect(superwallBridgeReceive(bridge, 0, nil, &length) == 2)
        #expect(superwallBridgeReceive(bridge, 0, &message, nil) == 2)
        let ignore: SuperwallBridgeOutput = { _, _, _ in }
        let withCallback = try #require(superwallBridgeOpen(nil, ignore, nil, nil, 0))
        #expect(superwallBridgeReceive(withCallback, 0, &message, &length) == 2)
        #expect(superwallBridgeClose(withCallback) == 0)
        #expect(superwallBridgeClose(bridge) == 0)
    }

    @Test func aSecondThreadReceivingAtOnceIsToldTheBridgeIsBusy() async throws {
        let bridge = try open()
        let address = Int(bitPattern: bridge)
        // The first receive waits as long as the test would: on a loaded machine the task may
        // start late, and a shorter wait could end before the second receive is tried.
        let waitMilliseconds = Int32(expectationTimeout / .milliseconds(1))
        let waiting = Task.detached { () -> Outcome in
            self.receive(UnsafeMutableRawPointer(bitPattern: address), timeout: waitMilliseconds)
        }
        // The first receive is waiting once a second one is refused.
        var second = Outcome.code(4)
        let deadline = ContinuousClock.now + expectationTimeout
        while ContinuousClock.now < deadline {
            second = receive(bridge, timeout: 0)
            if second == .code(5) { break }
            try await Task.sleep(for: .milliseconds(1))
        }
        #expect(second == .code(5))
        #expect(send(bridge, #"{"jsonrpc":"2.0","id":1,"method":"$/ping"}"#) == 0)
        // Before `initialize`, the answer is an error; the waiting receive takes it.
        guard case .message(let answer) = await waiting.value else {
            Issue.record("no answer")
            return
        }
        #expect(answer.contains(#""id":1"#) && answer.contains("notInitialized"))
        #expect(superwallBridgeClose(bridge) == 0)
    }

    @Test func aHostThatReceivesLateStillGetsEveryAnswerInOrder() throws {
        // Past 4 KiB unreceived, the bridge waits for the host, as for an unread pipe.
        let bridge = try open(#"{"maxQueuedOutput":4096}"#)
        #expect(send(bridge, Self.initialize) == 0)
        for id in 2..<130 { #expect(send(bridge, #"{"jsonrpc":"2.0","id":\#(id),"method":"$/ping"}"#) == 0) }
        for id in 1..<130 {
            guard case .message(let answer) = receive(bridge) else {
                Issue.record("no answer \(id)")
                break
            }
            #expect(answer.contains(#""id":\#(id),"#))
        }
        #expect(receive(bridge, timeout: 0) == .code(4))
        #expect(superwallBridgeClose(bridge) == 0)
    }

    @Test func closeDropsWhatWasNeverReceivedAndDoesNotWaitForTheHost() throws {
        // 4 KiB of unreceived output (about 100 answers) holds the bridge up, as an unread pipe
        // would, with the rest of the pings unread in its input; close lets it go.
        let bridge = try open(#"{"maxQueuedOutput":4096}"#)
        #expect(send(bridge, Self.initialize) == 0)
        for id in 2..<130 { #expect(send(bridge, #"{"jsonrpc":"2.0","id":\#(id),"method":"$/ping"}"#) == 0) }
        // 0, not 2: close let the unread output go instead of waiting out the stuck-host limit.
        #expect(superwallBridgeClose(bridge) == 0)
        #expect(receive(bridge, timeout: 0) == .code(1))
    }
}

/// A message received on one thread stays the caller's while another thread receives.
@Suite struct LentMessageTests {
    /// Runs `work` on a thread of its own and waits for it.
    private func onAnotherThread<Result: Sendable>(_ work: @escaping @Sendable () -> Result) -> Result {
        let done = DispatchSemaphore(value: 0)
        let result = Mutex<Result?>(nil)
        let thread = Thread {
            result.withLock { $0 = work() }
            done.signal()
        }
        thread.start()
        done.wait()
        return result.withLock { $0! }
    }

    private func text(_ received: OutputMailbox.Received) -> String? {
        guard case .message(let message) = received else { return nil }
        return String(decoding: UnsafeRawBufferPointer(message), as: UTF8.self)
    }

    private func deliver(_ mailbox: OutputMailbox, _ text: String) {
        var bytes = Array(text.utf8)
        bytes.withUnsafeMutableBufferPointer { mailbox.deliver(UnsafeBufferPointer($0)) }
    }

    @Test func aMessageOneThreadReceivedIsNotFreedByAnotherThreadsReceive() throws {
        let mailbox = OutputMailbox(maximumQueuedBytes: 1 << 20)
        for text in ["message one", "message two"] { deliver(mailbox, text) }
        // The first thread receives, and reads what it received only after the second has
        // received too, as two host threads taking turns do; it lives until then.
        let received = DispatchSemaphore(value: 0)
        let read = DispatchSemaphore(value: 0)
        let done = DispatchSemaphore(value: 0)
        let firstRead = Mutex<String?>(nil)
        let first = Thread {
            guard case .message(let message) = try? mailbox.receive(timeout: .zero) else {
                received.signal()
                done.signal()
                return
            }
            received.signal()
            read.wait()
            firstRead.withLock { $0 = String(decoding: UnsafeRawBufferPointer(message), as: UTF8.self) }
            done.signal()
        }
        first.start()
        received.wait()
        // The second receives, then makes a message of the same size: memory its receive
        // freed would be reused at once.
        let second = onAnotherThread { () -> String? in
            let received = self.text((try? mailbox.receive(timeout: .zero)) ?? .timedOut)
            self.deliver(mailbox, "message six")
            return received
        }
        read.signal()
        done.wait()
        #expect(second == "message two")
        #expect(firstRead.withLock { $0 } == "message one")
    }
}
