import Foundation
import JSONRPC
import TestSupport
import Testing

/// A large answer left after the input closed reaches a client that keeps reading, however
/// slowly it reads past the flush deadline (2 s): a 55 MB batch reply was cut at 21 MB when
/// the process exited.
@Suite struct FlushAtTheEndTests {
    @Test func aClientStillReadingGetsAnAnswerThatTakesLongerThanTheFlushDeadline() async throws {
        let bridge = try BridgeProcess()
        await bridge.initialize()
        let payload = String(repeating: "x", count: 8 << 20)
        bridge.client.request("echo", "debug/echo", [.string(payload)])
        bridge.client.closeWriting()
        // 128 KiB every 60 ms, on a thread of its own (the test's tasks share a busy pool):
        // about 4 s for the answer, two flush deadlines.
        let received = LockedBox<[UInt8]>([])
        let reader = Thread { [descriptor = bridge.client.readDescriptor] in
            var chunk = [UInt8](repeating: 0, count: 128 << 10)
            while true {
                usleep(60_000)
                let count = read(descriptor, &chunk, chunk.count)
                guard count > 0 else { break }
                received.update { $0 += chunk[..<count] }
            }
        }
        reader.start()
        #expect(await bridge.waitForExit(timeout: slowExpectationTimeout) == 0)
        while !reader.isFinished { try await Task.sleep(for: .milliseconds(20)) }
        let answer = received.get().split(separator: UInt8(ascii: "\n")).map { try? JSONDecoding.decode(Array($0)) }
            .first { $0?["id"] == "echo" }
        #expect(answer??["result"]?.arrayValue?.first?.stringValue?.count == payload.count)
    }
}
