import Foundation
import JSONRPC
import TestSupport
import Testing

@Suite struct ConnectionIdleTests {
    /// Work put off until the reader is idle must not hold up the answer it was put off from.
    @Test func theHandlersIdleWorkRunsAfterTheAnswersAreOut() async throws {
        let handler = TestHandler()
        let server = await initializedServer(handler)
        let gate = DispatchSemaphore(value: 0)
        defer { gate.signal() }
        handler.holdIdleWorkAfterNextRequest.set(gate)
        let before = handler.idleCalls.get()

        server.client.request(1, "echo", ["held": true])
        let reply = await server.client.nextReply()
        #expect(reply?["result"]?["held"] == true, "answered while the idle work is held")
        // The idle work starts once the answer is out, which the client may read first.
        let started = await onAThreadOfItsOwn { () -> Bool in
            let deadline = DispatchTime.now() + .seconds(Int(expectationTimeout.components.seconds))
            while handler.idleCalls.get() <= before {
                guard handler.idleWorkStarted.wait(timeout: deadline) == .success else { return false }
            }
            return true
        }
        #expect(started, "the idle work after the request started")
    }
}
