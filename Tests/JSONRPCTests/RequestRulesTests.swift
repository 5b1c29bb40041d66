import Foundation
import JSONRPC
import TestSupport
import Testing

@Suite struct RequestRulesTests {
    @Test func aNullIdIsARequestAndIsAnsweredWithNull() async {
        let server = await initializedServer()
        server.client.send(#"{"jsonrpc":"2.0","id":null,"method":"$/ping"}"#)
        let reply = await server.client.next()
        #expect(reply?["id"] == .null)
        #expect(reply?["result"] == [:])
    }

    @Test func stringAndNumberIdsStayDistinct() async {
        let server = await initializedServer()
        server.client.send(#"{"jsonrpc":"2.0","id":"1","method":"$/ping"}"#)
        #expect(await server.client.next()?["id"] == "1")
        server.client.send(#"{"jsonrpc":"2.0","id":1,"method":"$/ping"}"#)
        #expect(await server.client.next()?["id"] == 1)
    }

    @Test(arguments: ["1.50", "1e0", "-0", "18446744073709551616", "\"\\u0041\\/\"", "12345678901234567890"])
    func idsAreEchoedByteForByte(_ idText: String) async {
        let server = await initializedServer()
        server.client.send(#"{"jsonrpc":"2.0","id":\#(idText),"method":"$/ping"}"#)
        let body = String(decoding: await server.client.nextBody() ?? [], as: UTF8.self)
        #expect(body.hasPrefix(#"{"jsonrpc":"2.0","id":\#(idText),"result""#), "\(body)")
    }

    /// `"id":25\0` is not echoed with its NUL, which would put invalid JSON on stdout.
    @Test func anIdWhoseTextHoldsAControlByteIsRefusedWithANullId() async throws {
        let server = await initializedServer()
        server.client.writeRaw(
            Array(#"{"jsonrpc":"2.0","id":25"#.utf8) + [0] + Array(#","method":"$/ping"}"#.utf8) + [UInt8(ascii: "\n")]
        )
        let body = try #require(await server.client.nextBody())
        let reply = try JSONDecoding.decode(body)
        #expect(!body.contains(0))
        #expect(reply["id"] == .null)
        #expect(errorCode(reply) == -32600)
    }

    @Test func anIdWrittenAfterParamsIsStillEchoedExactly() async {
        let server = await initializedServer()
        server.client.send(#"{"jsonrpc":"2.0","method":"echo","params":{"id":"inner","x":[1,{"id":2}]},"id":7.0}"#)
        let body = String(decoding: await server.client.nextBody() ?? [], as: UTF8.self)
        #expect(body == #"{"jsonrpc":"2.0","id":7.0,"result":{"id":"inner","x":[1,{"id":2}]}}"#)
    }

    @Test func notificationsAreNeverAnsweredEvenWhenUnknownOrFailing() async {
        let server = await initializedServer()
        server.client.send(#"{"jsonrpc":"2.0","method":"no/such/method"}"#)
        server.client.send(#"{"jsonrpc":"2.0","method":"crash","params":[]}"#)
        server.client.request("after", "$/ping")
        #expect(await server.client.next()?["id"] == "after")
    }

    @Test(arguments: [
        #"{"jsonrpc":"2.0","method":"$/ping","id":1"#,
        #"{"jsonrpc":"2.0",,}"#,
        "not json at all",
        #"{"jsonrpc":"2.0","id":1,"method":"$/ping","params":{"n":1e400}}"#,
    ])
    func unparsableInputIsAParseErrorWithNullId(_ text: String) async {
        let server = await initializedServer()
        server.client.send(text)
        let reply = await server.client.next()
        #expect(errorCode(reply) == -32700)
        #expect(reply?["id"] == .null)
        server.client.request(2, "$/ping")
        #expect(await server.client.next()?["id"] == 2)
    }

    @Test(arguments: [
        (#"{"id":5,"method":"$/ping"}"#, JSONValue.int(5)),
        (#"{"jsonrpc":"2.1","id":5,"method":"$/ping"}"#, .int(5)),
        (#"{"jsonrpc":2.0,"id":5,"method":"$/ping"}"#, .int(5)),
        (#"{"jsonrpc":"2.0","id":5,"method":"$/ping","params":"bar"}"#, .int(5)),
        (#"{"jsonrpc":"2.0","id":5,"method":"$/ping","params":3}"#, .int(5)),
        (#"{"jsonrpc":"2.0","id":5,"method":7}"#, .int(5)),
        (#"{"jsonrpc":"2.0","id":{"a":1},"method":"$/ping"}"#, .null),
        (#"{"jsonrpc":"2.0","id":[1],"method":"$/ping"}"#, .null),
        (#"{"jsonrpc":"2.0","id":5}"#, .int(5)),
        (#""just a string""#, .null),
        ("42", .null),
    ])
    func invalidRequestsAreAnsweredWithMinus32600(_ text: String, _ expectedID: JSONValue) async {
        let server = await initializedServer()
        server.client.send(text)
        let reply = await server.client.next()
        #expect(errorCode(reply) == -32600, "\(text) → \(String(describing: reply))")
        #expect(reply?["id"] == expectedID)
    }

    @Test func paramsMayBeOmittedOrPositional() async {
        let server = await initializedServer()
        server.client.send(#"{"jsonrpc":"2.0","id":1,"method":"get_data"}"#)
        #expect(await server.client.next()?["result"] == ["hello", 5])
        server.client.send(#"{"jsonrpc":"2.0","id":2,"method":"sum","params":[1,2,3]}"#)
        #expect(await server.client.next()?["result"] == 6)
    }

    /// pygls and other clients send `params: null` for a method without parameters; the
    /// specification forbids it, and most servers read it as absent.
    @Test func nullParamsAreReadAsAbsent() async {
        let server = await initializedServer()
        server.client.send(#"{"jsonrpc":"2.0","id":1,"method":"get_data","params":null}"#)
        let first = await server.client.next()
        #expect(first?["result"] == ["hello", 5], "\(String(describing: first))")
        server.client.send(#"{"jsonrpc":"2.0","method":"notify","params":null}"#)
        server.client.request(2, "$/ping")
        #expect(await server.client.next()?["id"] == 2)
    }

    @Test func reservedRPCMethodsAreNotFound() async {
        let server = await initializedServer()
        server.client.request(1, "rpc.discover")
        #expect(errorCode(await server.client.next()) == -32601)
    }

    @Test func aHandlerFailureIsAnInternalError() async {
        let server = await initializedServer()
        server.client.request(1, "crash")
        let reply = await server.client.next()
        #expect(errorCode(reply) == -32603)
        #expect(errorKind(reply) == "internalError")
        // Written for a person: no Swift type names or debug descriptions.
        #expect(reply?["error"]?["message"] == "Internal error: an unexpected error")
    }

    @Test func everyErrorMessageIsBounded() {
        let error = RPCError.invalidParams(String(repeating: "é", count: 5_000))
        #expect(error.message.utf8.count <= RPCError.maximumMessageBytes)
        #expect(error.message.hasSuffix(" …"))
    }

    @Test func aResponseToNothingIsIgnored() async {
        let server = await initializedServer()
        server.client.send(#"{"jsonrpc":"2.0","id":"sw-999","result":1}"#)
        server.client.send(#"{"jsonrpc":"2.0","id":null,"error":{"code":-32700,"message":"x"}}"#)
        server.client.request("after", "$/ping")
        #expect(await server.client.next()?["id"] == "after")
    }

    @Test func requestsRunConcurrently() async {
        let server = await initializedServer()
        server.client.request(1, "slow", ["ms": 300])
        server.client.request(2, "$/ping")
        #expect(await server.client.next()?["id"] == 2)
        #expect(await server.client.next()?["id"] == 1)
    }

    @Test func notificationsAreAppliedInArrivalOrder() async {
        let handler = TestHandler()
        let server = await initializedServer(handler)
        let names = (0..<200).map { "note/\($0)" }
        for name in names { server.client.notify(name) }
        server.client.closeWriting()
        #expect(await server.waitForExit() == 0)
        #expect(handler.notifications.get() == names)
    }

    @Test func serverNotificationsReachTheClient() async {
        let server = await initializedServer()
        server.client.request(1, "notifyBack", ["n": 3])
        let first = await server.client.next()
        #expect(first?["method"] == "server/event")
        #expect(first?["params"] == ["n": 3])
        #expect(first?["id"] == nil)
        #expect(await server.client.next()?["id"] == 1)
    }
}
