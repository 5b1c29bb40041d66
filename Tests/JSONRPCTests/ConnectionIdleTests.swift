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
        #expect(handler.idleCalls.get() > before)
    }
}
