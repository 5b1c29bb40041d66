import Foundation
import JSONRPC
import TestSupport
import Testing

@Suite struct CancellationTests {
    @Test func cancelRequestAnswersMinus32800AndCancelsTheHandler() async {
        let handler = TestHandler()
        let server = await initializedServer(handler)
        server.client.request(7, "wait")
        // Right behind it: a request is tracked before the message after it is read.
        server.client.notify("$/cancelRequest", ["id": 7])
        let reply = await server.client.next()
        #expect(reply?["id"] == 7)
        #expect(errorCode(reply) == -32800)
        server.client.closeWriting()
        #expect(await server.waitForExit() == 0)
        #expect(handler.cancelledRequests.get() == 1)
    }

    @Test func cancelForAFinishedOrUnknownRequestIsIgnored() async {
        let server = await initializedServer()
        server.client.request(1, "$/ping")
        #expect(await server.client.next()?["id"] == 1)
        server.client.notify("$/cancelRequest", ["id": 1])
        server.client.notify("$/cancelRequest", ["id": "never-sent"])
        server.client.notify("$/cancelRequest", ["nothing": true])
        server.client.request(2, "$/ping")
        #expect(await server.client.next()?["id"] == 2)
    }

    @Test func cancelMatchesIdsByValueAndType() async {
        let server = await initializedServer()
        server.client.request("7", "wait")
        // Right behind it: a request is tracked before the message after it is read.
        server.client.notify("$/cancelRequest", ["id": 7])
        server.client.request("probe", "$/ping")
        #expect(await server.client.next()?["id"] == "probe")
        server.client.notify("$/cancelRequest", ["id": "7"])
        #expect(errorCode(await server.client.next()) == -32800)
    }
}
