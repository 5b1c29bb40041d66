import BridgeServer
import Foundation
import TestSupport
import Testing

@testable import SuperwallBridgeEmbedding

/// The C interface called as a host would, misuse included: every misuse is a code or a
/// message, never a trap.
@Suite struct CInterfaceTests {
    /// What a bridge sent, by context.
    final class Received: @unchecked Sendable {
        let lock = NSLock()
        var messages: [String] = []

        func append(_ text: String) {
            lock.withLock { messages.append(text) }
        }

        func first(containing part: String) async -> String? {
            let deadline = ContinuousClock.now + expectationTimeout
            while ContinuousClock.now < deadline {
                if let found = lock.withLock({ messages.first { $0.contains(part) } }) { return found }
                try? await Task.sleep(for: .milliseconds(2))
            }
            return nil
        }
    }

    private static let output: SuperwallBridgeOutput = { context, message, length in
        let received = Unmanaged<Received>.fromOpaque(context!).takeUnretainedValue()
        let bytes = UnsafeRawBufferPointer(start: message, count: length)
        received.append(String(decoding: bytes, as: UTF8.self))
    }

    private func send(_ bridge: UnsafeMutableRawPointer?, _ text: String) -> Int32 {
        text.withCString { superwallBridgeSend(bridge, $0, strlen($0)) }
    }

    @Test func openRefusesBadOptionsWithAMessageCutToTheBuffer() {
        var error = [CChar](repeating: 1, count: 20)
        let bridge = superwallBridgeOpen(#"{"logLevel":"loud"}"#, Self.output, nil, &error, error.count)
        #expect(bridge == nil)
        let message = String(decoding: error.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
        #expect(message == "superwall_bridge_op")
        #expect(error[19] == 0)
        #expect(superwallBridgeOpen(#"{"logLevel":"loud"}"#, nil, nil, nil, 0) == nil)
    }

    @Test func misuseIsACodeAndTheBridgeServesOn() async {
        let received = Received()
        let context = Unmanaged.passRetained(received).toOpaque()
        defer { Unmanaged<Received>.fromOpaque(context).release() }
        let bridge = superwallBridgeOpen(#"{"maxMessageSize":256}"#, Self.output, context, nil, 0)
        #expect(bridge != nil)
        #expect(superwallBridgeSend(nil, "{}", 2) == 2)
        #expect(superwallBridgeSend(bridge, nil, 2) == 2)
        #expect(superwallBridgeSend(bridge, "{}", -1) == 3)
        #expect(send(bridge, String(repeating: " ", count: 300)) == 3)
        #expect(send(bridge, #"{"jsonrpc":"2.0","id":1,"method":"$/ping"}"#) == 0)
        #expect(await received.first(containing: #""id":1"#) != nil)
        #expect(superwallBridgeClose(nil) == -1)
        #expect(superwallBridgeClose(bridge) == 0)
    }
}

/// A host's output callback that never returns must not hold `close` for ever.
@Suite struct StuckCallbackTests {
    final class Gate: @unchecked Sendable {
        let entered = DispatchSemaphore(value: 0)
        let release = DispatchSemaphore(value: 0)
        let lock = NSLock()
        var calls = 0
    }

    @Test func closeLeavesABridgeWhoseCallbackDoesNotReturnAndCallsItNoMore() throws {
        let gate = Gate()
        let context = Unmanaged.passRetained(gate).toOpaque()
        let output: SuperwallBridgeOutput = { context, _, _ in
            let gate = Unmanaged<Gate>.fromOpaque(context!).takeUnretainedValue()
            let first = gate.lock.withLock {
                gate.calls += 1
                return gate.calls == 1
            }
            if first {
                gate.entered.signal()
                gate.release.wait()
            }
        }
        let bridge = try EmbeddedBridge.pinged(3, output: .callback(.init(function: output, context: context)))
        gate.entered.wait()
        #expect(bridge.close() == EmbeddedBridge.abandoned)
        gate.release.signal()
        // The answers to 2 and 3 are dropped, not delivered after close.
        Thread.sleep(forTimeInterval: 0.2)
        #expect(gate.lock.withLock { gate.calls } == 1)
    }
}

/// A callback that is slow but keeps returning gets every answer at close: close gave up after
/// its limit in all, and the output's flush after two seconds, dropping the rest.
@Suite struct SlowCallbackTests {
    final class Count: @unchecked Sendable {
        let lock = NSLock()
        var answers = 0
    }

    @Test func closeDeliversEveryAnswerToACallbackThatIsSlowButReturns() throws {
        let count = Count()
        let context = Unmanaged.passRetained(count).toOpaque()
        defer { Unmanaged<Count>.fromOpaque(context).release() }
        let output: SuperwallBridgeOutput = { context, message, length in
            let count = Unmanaged<Count>.fromOpaque(context!).takeUnretainedValue()
            let text = String(decoding: UnsafeRawBufferPointer(start: message, count: length), as: UTF8.self)
            Thread.sleep(forTimeInterval: 0.4)
            if text.contains(#""id""#) { count.lock.withLock { count.answers += 1 } }
        }
        let bridge = try EmbeddedBridge.pinged(8, output: .callback(.init(function: output, context: context)))
        #expect(bridge.close() == 0)
        #expect(count.lock.withLock { count.answers } == 8)
    }
}

extension EmbeddedBridge {
    /// A bridge whose close gives up after a second with no call of `output` returning, sent
    /// `count` pings (ids 1...count) before it was initialized.
    static func pinged(_ count: Int, output: Output) throws -> EmbeddedBridge {
        let bridge = try EmbeddedBridge(options: ServingSettings(), output: output, closeLimit: .seconds(1))
        for id in 1...count {
            let message = #"{"jsonrpc":"2.0","id":\#(id),"method":"$/ping"}"#
            _ = message.withCString { bridge.send(UnsafeRawBufferPointer(start: $0, count: strlen($0))) }
        }
        return bridge
    }
}
