import Foundation
import JSONRPC
import TestSupport
import Testing

@Suite struct ServerRequestTests {
    @Test func aServerRequestResolvesWithTheClientsReply() async {
        let server = await initializedServer()
        server.client.request(1, "ask")
        let question = await server.client.next()
        #expect(question?["method"] == "client/question")
        let id = question?["id"]?.stringValue ?? ""
        #expect(id.hasPrefix("sw-"))
        server.client.send(["jsonrpc": "2.0", "id": .string(id), "result": 42])
        #expect(await server.client.next()?["result"] == 42)
    }

    @Test func aClientErrorReplyIsPassedThrough() async {
        let server = await initializedServer()
        server.client.request(1, "ask")
        let id = await server.client.next()?["id"] ?? .null
        server.client.send([
            "jsonrpc": "2.0", "id": id, "error": ["code": 17, "message": "no", "data": ["kind": "refused"]],
        ])
        let reply = await server.client.next()
        #expect(errorCode(reply) == 17)
        #expect(errorKind(reply) == "refused")
    }

    @Test func aServerRequestTimesOutAndIsCancelledAtTheClient() async {
        let server = await initializedServer()
        server.client.request(1, "ask", ["timeoutMs": 100])
        let id = await server.client.next()?["id"] ?? .null
        let cancel = await server.client.next()
        #expect(cancel?["method"] == "$/cancelRequest")
        #expect(cancel?["params"]?["id"] == id)
        let reply = await server.client.next()
        #expect(errorCode(reply) == -32003)
        #expect(errorKind(reply) == "requestTimeout")
        // A late reply is dropped without a word.
        server.client.send(["jsonrpc": "2.0", "id": id, "result": 1])
        server.client.request("after", "$/ping")
        #expect(await server.client.next()?["id"] == "after")
    }

    @Test(arguments: [
        #"{"jsonrpc":"2.0","id":"ID"}"#,
        #"{"jsonrpc":"2.0","id":"ID","result":1,"error":{"code":1,"message":"m"}}"#,
        #"{"jsonrpc":"2.0","id":"ID","error":"oops"}"#,
        #"{"jsonrpc":"2.0","id":"ID","error":{"code":"1","message":"m"}}"#,
        #"{"id":"ID","result":1}"#,
    ])
    func aMalformedReplyResolvesTheWaitAsFailed(_ template: String) async {
        let server = await initializedServer()
        server.client.request(1, "ask")
        let id = await server.client.next()?["id"]?.stringValue ?? ""
        server.client.send(template.replacingOccurrences(of: "ID", with: id))
        let reply = await server.client.next()
        #expect(reply?["id"] == 1)
        #expect(errorKind(reply) == "malformedResponse")
    }

    @Test func cancellingTheWaitingRequestCancelsTheServerRequestToo() async {
        let server = await initializedServer()
        // The handler's own deadline (a minute) must not come first: with every suite running,
        // this test's task can wait seconds for a thread before it sends the cancellation.
        server.client.request(9, "ask")
        let id = await server.client.next()?["id"] ?? .null
        server.client.notify("$/cancelRequest", ["id": 9])
        var seen: [JSONValue] = []
        for _ in 0..<2 { if let message = await server.client.next() { seen.append(message) } }
        #expect(seen.contains { $0["id"] == 9 && $0["error"]?["code"] == -32800 })
        #expect(seen.contains { $0["method"] == "$/cancelRequest" && $0["params"]?["id"] == id })
    }

    @Test func endOfInputResolvesWaitingServerRequestsAsCancelled() async {
        let server = await initializedServer()
        server.client.request(1, "ask", ["timeoutMs": 60_000])
        #expect(await server.client.next()?["method"] == "client/question")
        server.client.closeWriting()
        let reply = await server.client.next()
        #expect(errorCode(reply) == -32800)
        #expect(errorKind(reply) == "connectionClosed")
        #expect(await server.waitForExit() == 0)
    }

    @Test func shutdownResolvesWaitingServerRequestsAndRefusesNewOnes() async {
        let server = await initializedServer()
        server.client.request(1, "ask", ["timeoutMs": 60_000])
        #expect(await server.client.next()?["method"] == "client/question")
        server.client.request(2, "shutdown")
        var replies: [JSONValue] = []
        for _ in 0..<2 { if let reply = await server.client.next() { replies.append(reply) } }
        #expect(replies.first { $0["id"] == 1 }?["error"]?["data"]?["kind"] == "shutDown")
        #expect(replies.first { $0["id"] == 2 }?["result"] == [:])
        server.client.notify("exit")
        #expect(await server.waitForExit() == 0)
    }

    @Test func serverRequestIdsAreUniqueStrings() async {
        let server = await initializedServer()
        var ids: Set<String> = []
        for index in 0..<20 {
            server.client.request(.int(Int64(index)), "ask")
            let id = await server.client.next()?["id"]?.stringValue ?? ""
            ids.insert(id)
            server.client.send(["jsonrpc": "2.0", "id": .string(id), "result": .int(Int64(index))])
            #expect(await server.client.next()?["result"] == .int(Int64(index)))
        }
        #expect(ids.count == 20)
    }
}
