import CJSONArena
import Foundation
import JSONRPC
import TestSupport
import Testing

/// The process's count of parse blocks, which every thread that parses changes: run in the
/// first phase of `make test` (with the suites that only compute), not beside the suites whose
/// clients and servers parse on threads of their own.
@Suite struct ParseBlockThreadTests {
    /// Each thread keeps one released block for its next parse; a thread that ends frees it,
    /// so threads that come and go (the pools') leave nothing behind.
    @Test func aThreadThatEndsFreesTheParseBlockItKept() async {
        let threads = 200
        // Waits for the threads on a thread of its own, not one of the cooperative pool's.
        let (before, after) = await onAThreadOfItsOwn { () -> (Int, Int) in
            _ = try? JSONDecoding.decode(#"{"warm":true}"#)
            let before = json_arena_outstanding()
            let finished = DispatchSemaphore(value: 0)
            for index in 0..<threads {
                let thread = Thread {
                    _ = try? JSONDecoding.decode(#"{"thread":\#(index)}"#)
                    finished.signal()
                }
                thread.start()
            }
            for _ in 0..<threads { finished.wait() }
            // A thread's key destructors run as it exits, just after its last signal.
            let deadline = Date().addingTimeInterval(10)
            while json_arena_outstanding() > before + threads / 4, Date() < deadline {
                Thread.sleep(forTimeInterval: 0.01)
            }
            return (before, json_arena_outstanding())
        }
        #expect(after <= before + threads / 4)
    }
}
