import Foundation
import JSONRPC
import TestSupport
import Testing

@Suite struct BatchTests {
    @Test func anEmptyBatchIsOneInvalidRequest() async {
        let server = await initializedServer()
        server.client.send("[]")
        let reply = await server.client.next()
        #expect(reply?.arrayValue == nil)
        #expect(errorCode(reply) == -32600)
    }

    @Test func anAllNotificationBatchGetsNoReply() async {
        let server = await initializedServer()
        server.client.send(#"[{"jsonrpc":"2.0","method":"a"},{"jsonrpc":"2.0","method":"b"}]"#)
        server.client.request("after", "$/ping")
        #expect(await server.client.next()?["id"] == "after")
    }

    @Test func invalidJSONInsideABatchIsOneParseError() async {
        let server = await initializedServer()
        server.client.send(#"[{"jsonrpc":"2.0","method":"sum","params":[1,2,4],"id":"1"},{"jsonrpc":"2.0","method""#)
        let reply = await server.client.next()
        #expect(reply?.arrayValue == nil)
        #expect(errorCode(reply) == -32700)
    }

    @Test func aBatchIsAnsweredWithOneArrayOfItsRequestsReplies() async {
        let server = await initializedServer()
        server.client.send(
            #"[{"jsonrpc":"2.0","id":1,"method":"slow","params":{"ms":100}},1,{"jsonrpc":"2.0","method":"note"},{"jsonrpc":"2.0","id":"x","method":"$/ping"}]"#
        )
        let reply = await server.client.next()?.arrayValue ?? []
        #expect(reply.count == 3)
        #expect(Set(reply.compactMap { $0["id"] }) == [1, "x", .null])
    }

    @Test func requestsInsideABatchCanBeCancelled() async {
        let server = await initializedServer()
        server.client.send(#"[{"jsonrpc":"2.0","id":1,"method":"wait"},{"jsonrpc":"2.0","id":2,"method":"$/ping"}]"#)
        // Right behind it: a request is tracked before the message after it is read.
        server.client.notify("$/cancelRequest", ["id": 1])
        let reply = await server.client.next()?.arrayValue ?? []
        #expect(reply.count == 2)
        #expect(reply.first { $0["id"] == 1 }?["error"]?["code"] == -32800)
    }
}
