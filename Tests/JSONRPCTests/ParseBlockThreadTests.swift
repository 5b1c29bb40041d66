import CJSONArena
import Foundation
import JSONRPC
import TestSupport
import Testing

/// The blocks the parse keeps per thread, counted where the thread's end frees them: other
/// suites' threads in the same process parse and end too, so the counts only ever rise by more.
@Suite struct ParseBlockThreadTests {
    /// Each thread keeps one released block for its next parse; a thread that ends frees it,
    /// so threads that come and go (the pools') leave nothing behind.
    @Test func aThreadThatEndsFreesTheParseBlockItKept() async {
        let threads = 200
        // Waits for the threads on a thread of its own, not one of the cooperative pool's.
        let freed = await onAThreadOfItsOwn { () -> Int in
            let before = json_arena_freed_by_ending_threads()
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
            let deadline = Date().addingTimeInterval(30)
            while json_arena_freed_by_ending_threads() - before < threads, Date() < deadline {
                Thread.sleep(forTimeInterval: 0.01)
            }
            return json_arena_freed_by_ending_threads() - before
        }
        #expect(freed >= threads, "\(freed) of \(threads) threads freed the block they kept as they ended")
    }
}
