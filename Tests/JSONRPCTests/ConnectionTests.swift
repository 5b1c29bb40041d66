import Foundation
import JSONRPC
import TestSupport
import Testing

private func initializedServer(
    _ handler: TestHandler = TestHandler(),
    options: Connection.Options = Connection.Options(),
    framing: Framing = .newlineDelimited
) async -> InProcessServer {
    let server = InProcessServer(handler: handler, options: options, framing: framing)
    await server.initialize()
    return server
}

private func errorCode(_ reply: JSONValue?) -> Int64? { reply?["error"]?["code"]?.int64Value }
private func errorKind(_ reply: JSONValue?) -> String? { reply?["error"]?["data"]?["kind"]?.stringValue }

@Suite struct SpecConformanceTests {
    @Test(arguments: try SpecExample.all())
    func specExampleIsAnsweredAsTheSpecSays(_ example: SpecExample) async {
        let server = await initializedServer()
        #expect(await example.check(against: server.client, methodsPresent: true) == nil, "\(example.name)")
    }
}

extension SpecExample: CustomTestStringConvertible {
    public var testDescription: String { name }
}

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

    /// `"id":25\0` used to be echoed with its NUL: invalid JSON on stdout.
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
        try? await Task.sleep(for: .milliseconds(50))
        server.client.notify("$/cancelRequest", ["id": 1])
        let reply = await server.client.next()?.arrayValue ?? []
        #expect(reply.count == 2)
        #expect(reply.first { $0["id"] == 1 }?["error"]?["code"] == -32800)
    }
}

@Suite struct LifecycleTests {
    @Test func requestsBeforeInitializeAreRefusedWithMinus32002() async {
        let handler = TestHandler()
        let server = InProcessServer(handler: handler)
        server.client.request(1, "$/ping")
        let reply = await server.client.next()
        #expect(errorCode(reply) == -32002)
        #expect(errorKind(reply) == "notInitialized")
        server.client.notify("early")
        await server.initialize()
        server.client.closeWriting()
        #expect(await server.waitForExit() == 0)
        #expect(handler.notifications.get().isEmpty)
    }

    @Test func requestsPipelinedBehindInitializeWaitForIt() async {
        let handler = TestHandler()
        let server = InProcessServer(handler: handler)
        server.client.request(0, "initialize", ["delayMs": 200])
        server.client.request(1, "$/ping")
        server.client.notify("after-initialize")
        let first = await server.client.next()
        let second = await server.client.next()
        #expect(first?["id"] == 0)
        #expect(second?["id"] == 1)
        #expect(second?["result"] == [:])
        server.client.closeWriting()
        #expect(await server.waitForExit() == 0)
        #expect(handler.notifications.get() == ["after-initialize"])
    }

    @Test func aFailedInitializeLeavesTheServerUninitialized() async {
        let handler = TestHandler()
        handler.failInitialize.set(true)
        let server = InProcessServer(handler: handler)
        #expect(errorCode(await server.initialize()) == -32602)
        server.client.request(1, "$/ping")
        #expect(errorCode(await server.client.next()) == -32002)
        handler.failInitialize.set(false)
        #expect(await server.initialize()?["result"] == ["server": "test"])
    }

    @Test func aSecondInitializeIsRefused() async {
        let server = await initializedServer()
        let reply = await server.initialize()
        #expect(errorCode(reply) == -32600)
        #expect(errorKind(reply) == "alreadyInitialized")
    }

    @Test func shutdownRunsTheHandlerThenRefusesRequestsAndExitEndsWithZero() async {
        let handler = TestHandler()
        let server = await initializedServer(handler)
        server.client.request(1, "shutdown")
        #expect(await server.client.next()?["result"] == [:])
        #expect(handler.shutdownCalls.get() == 1)
        server.client.request(2, "$/ping")
        #expect(errorKind(await server.client.next()) == "shutDown")
        server.client.notify("exit")
        #expect(await server.waitForExit() == 0)
    }

    /// Messages take effect in the order received: `exit` written right behind `shutdown`
    /// exits 0 even while `shutdown` is still flushing.
    @Test func exitRightBehindShutdownExitsZeroBeforeShutdownIsAnswered() async {
        let handler = TestHandler()
        handler.shutdownDelay.set(.milliseconds(300))
        let server = await initializedServer(handler)
        server.client.request(1, "shutdown")
        server.client.notify("exit")
        #expect(await server.client.next()?["result"] == [:])
        #expect(await server.waitForExit() == 0)
    }

    @Test func shutdownAnswersOnlyAfterEveryRequestReceivedBeforeIt() async {
        let server = await initializedServer()
        server.client.request(1, "slow", ["ms": 300])
        server.client.request(2, "shutdown")
        server.client.notify("exit")
        let first = await server.client.next()
        let second = await server.client.next()
        #expect(first?["id"] == 1)
        #expect(first?["result"] == "done")
        #expect(second?["id"] == 2)
        #expect(second?["result"] == [:])
        #expect(await server.waitForExit() == 0)
    }

    @Test func shutdownAnswersRequestsStillRunningAfterTheDrainTimeoutAsCancelled() async {
        var options = Connection.Options()
        options.drainTimeout = .milliseconds(200)
        let handler = TestHandler()
        let server = await initializedServer(handler, options: options)
        server.client.request(1, "wait")
        server.client.request(2, "shutdown")
        let first = await server.client.next()
        #expect(first?["id"] == 1)
        #expect(errorCode(first) == -32800)
        #expect(await server.client.next()?["id"] == 2)
        // Its work was cancelled too; the handler notices a moment after the answer.
        let deadline = ContinuousClock.now + expectationTimeout
        while handler.cancelledRequests.get() == 0, ContinuousClock.now < deadline {
            try? await Task.sleep(for: .milliseconds(5))
        }
        #expect(handler.cancelledRequests.get() == 1)
        server.client.notify("exit")
        #expect(await server.waitForExit() == 0)
    }

    @Test func exitWithoutShutdownEndsWithOne() async {
        let server = await initializedServer()
        server.client.notify("exit")
        #expect(await server.waitForExit() == 1)
    }

    @Test func endOfInputAnswersALastLineWithoutNewline() async {
        let server = await initializedServer()
        server.client.writeRaw(#"{"jsonrpc":"2.0","id":"last","method":"$/ping"}"#)
        server.client.closeWriting()
        #expect(await server.client.next()?["id"] == "last")
        #expect(await server.waitForExit() == 0)
    }

    @Test func endOfInputLetsInFlightRequestsFinish() async {
        let server = await initializedServer()
        server.client.request(1, "slow", ["ms": 300])
        server.client.closeWriting()
        #expect(await server.client.next()?["result"] == "done")
        #expect(await server.waitForExit() == 0)
    }

    @Test func endOfInputStopsWaitingForRequestsThatOutliveTheDrainTimeout() async {
        var options = Connection.Options()
        options.drainTimeout = .milliseconds(200)
        let server = await initializedServer(options: options)
        server.client.request(1, "wait")
        server.client.closeWriting()
        // Every request gets exactly one answer, to the end.
        let reply = await server.client.next()
        #expect(reply?["id"] == 1)
        #expect(errorCode(reply) == -32800)
        #expect(await server.waitForExit() == 0)
    }
}

@Suite struct CancellationTests {
    @Test func cancelRequestAnswersMinus32800AndCancelsTheHandler() async {
        let handler = TestHandler()
        let server = await initializedServer(handler)
        server.client.request(7, "wait")
        try? await Task.sleep(for: .milliseconds(50))
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
        try? await Task.sleep(for: .milliseconds(50))
        server.client.notify("$/cancelRequest", ["id": 7])
        server.client.request("probe", "$/ping")
        #expect(await server.client.next()?["id"] == "probe")
        server.client.notify("$/cancelRequest", ["id": "7"])
        #expect(errorCode(await server.client.next()) == -32800)
    }
}

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
        server.client.request(9, "ask", ["timeoutMs": 10_000])
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

@Suite struct FramingTests {
    @Test func aContentLengthClientGetsContentLengthReplies() async {
        let server = InProcessServer(handler: TestHandler(), framing: .contentLength)
        server.client.send(#"{"jsonrpc":"2.0","id":0,"method":"initialize","params":{}}"#)
        #expect(await server.client.next()?["id"] == 0)
        server.client.send(
            "{\n  \"jsonrpc\": \"2.0\",\n  \"id\": 1,\n  \"method\": \"echo\",\n  \"params\": [\"é\"]\n}"
        )
        #expect(await server.client.next()?["result"] == ["é"])
    }

    @Test func anOversizedMessageIsAnsweredAndTheStreamGoesOn() async {
        var options = Connection.Options()
        options.maximumMessageSize = 256
        let server = await initializedServer(options: options)
        server.client.request(1, "echo", [.string(String(repeating: "x", count: 1000))])
        let reply = await server.client.next()
        #expect(errorCode(reply) == -32600)
        #expect(errorKind(reply) == "messageTooLarge")
        server.client.request(2, "echo", ["small"])
        #expect(await server.client.next()?["result"] == ["small"])
    }

    @Test func aMalformedHeaderIsAParseErrorAndTheStreamRecovers() async {
        let server = InProcessServer(handler: TestHandler(), framing: .contentLength)
        server.client.writeRaw("Content-Type: nothing\r\n\r\n")
        #expect(errorKind(await server.client.next()) == "invalidHeader")
        server.client.send(#"{"jsonrpc":"2.0","id":0,"method":"initialize","params":{}}"#)
        #expect(await server.client.next()?["id"] == 0)
    }

    /// A client that stops reading used to grow the output queue without bound (2.75 GB after
    /// a minute of `debug/echo`). Past the limit the bridge stops reading instead: the client's
    /// own writes block, and once it reads, every answer arrives.
    @Test func aClientThatStopsReadingIsHeldBackNotBufferedAndLosesNothing() async throws {
        var options = Connection.Options()
        options.maximumQueuedOutput = 256 * 1024
        let server = await initializedServer(options: options)
        let payload = JSONValue.string(String(repeating: "x", count: 1_000))
        let total = 20_000
        let sent = LockedBox(0)
        let writer = Thread { [client = server.client] in
            for index in 1...total {
                client.request(.int(Int64(index)), "echo", ["p": payload])
                sent.update { $0 += 1 }
            }
        }
        writer.start()
        try await Task.sleep(for: .seconds(1))
        let sentWhileNotReading = sent.get()
        // 20 MB of answers would be queued; pipes and the limit hold a few hundred.
        #expect(sentWhileNotReading < 2_000, "the bridge kept reading: \(sentWhileNotReading) requests taken")
        var answered = Set<Int64>()
        while answered.count < total, let reply = await server.client.next() {
            if let id = reply["id"]?.int64Value { answered.insert(id) }
        }
        #expect(answered.count == total)
    }

    /// A 16 MiB message held a concurrent ping some 170 ms while it was parsed on the reader.
    @Test func aLargeRequestIsParsedAsideSoTheRequestsBehindItAreNotHeld() async {
        let server = await initializedServer()
        let big = JSONValue.string(String(repeating: "x", count: 8 << 20))
        server.client.request(1, "echo", ["p": big])
        server.client.request(2, "$/ping")
        let first = await server.client.next()
        let second = await server.client.next()
        #expect(first?["id"] == 2)
        #expect(second?["id"] == 1)
        #expect(second?["result"]?["p"] == big)
    }

    @Test func whatMustStayInOrderWaitsBehindALargeMessage() async {
        let handler = TestHandler()
        let server = await initializedServer(handler)
        let big = JSONValue.string(String(repeating: "x", count: 2 << 20))
        server.client.notify("first", ["p": big])
        server.client.notify("second")
        server.client.request(1, "echo", ["p": big])
        server.client.request(2, "shutdown")
        server.client.notify("exit")
        let answered = [await server.client.next()?["id"], await server.client.next()?["id"]]
        #expect(answered == [1, 2], "shutdown answers after the large request received before it")
        #expect(handler.notifications.get() == ["first", "second"])
        #expect(await server.waitForExit() == 0)
    }

    @Test func requestsBehindALargeInitializeWaitForIt() async {
        let server = InProcessServer(handler: TestHandler())
        server.client.request(
            0,
            "initialize",
            ["protocolVersion": "1.0", "padding": .string(String(repeating: "x", count: 2 << 20))]
        )
        server.client.request(1, "$/ping")
        #expect(await server.client.next()?["id"] == 0)
        let ping = await server.client.next()
        #expect(ping?["id"] == 1)
        #expect(ping?["result"] == [:])
    }

    @Test func bigPayloadsFlowBothWaysWithoutDeadlock() async {
        let server = await initializedServer()
        let payload = String(repeating: "abcdefgh", count: 1 << 20)  // 8 MiB each way, far over the pipe buffer
        let writer = Thread { [client = server.client] in
            client.request(1, "echo", [.string(payload)])
        }
        writer.start()
        let reply = await server.client.next(timeout: .seconds(60))
        #expect(reply?["result"]?.arrayValue?.first?.stringValue?.utf8.count == payload.utf8.count)
    }

    @Test func theTraceRecordsEveryFrameWithDirectionAndTime() async throws {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("trace-\(UUID().uuidString).jsonl")
            .path
        var options = Connection.Options()
        options.trace = try FrameTrace(path: path)
        let server = await initializedServer(options: options)
        server.client.request(1, "$/ping")
        _ = await server.client.next()
        server.client.send("garbage")
        _ = await server.client.next()
        server.client.closeWriting()
        #expect(await server.waitForExit() == 0)
        let lines = try String(contentsOfFile: path, encoding: .utf8).split(separator: "\n").map {
            try JSONDecoding.decode(String($0))
        }
        #expect(lines.map { $0["direction"]?.stringValue ?? "" } == ["in", "out", "in", "out", "in", "out"])
        #expect(lines[2]["frame"] == #"{"jsonrpc":"2.0","id":1,"method":"$/ping"}"#)
        #expect(lines[4]["frame"] == "garbage")
        #expect(lines.allSatisfy { ($0["time"]?.stringValue ?? "").hasSuffix("Z") })
    }

    /// The trace was 0644 and held the API key as the frames carry it.
    @Test func theTraceIsPrivateAndMasksTheNamedSecrets() async throws {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("trace-\(UUID().uuidString).jsonl")
            .path
        try Data("old".utf8).write(to: URL(fileURLWithPath: path))
        chmod(path, 0o644)
        let trace = try FrameTrace(path: path, masking: ["apiKey"])
        trace.record(
            .incoming,
            Array(
                #"{"method":"configure","params":{"apiKey" : "pk_live_SECRET\"Q","options":{"apiKey":""}},"id":1}"#.utf8
            )
        )
        trace.flush()
        let text = try String(contentsOfFile: path, encoding: .utf8)
        #expect(!text.contains("SECRET"))
        let line = try JSONDecoding.decode(String(text.split(separator: "\n")[0]))
        #expect(
            line["frame"]
                == #"{"method":"configure","params":{"apiKey" : "pk_l…(masked)","options":{"apiKey":"…(masked)"}},"id":1}"#
        )
        var status = stat()
        #expect(stat(path, &status) == 0)
        #expect(status.st_mode & 0o777 == 0o600)
    }

    @Test func framesWithoutTheNamedKeysAreTracedByteForByte() throws {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("trace-\(UUID().uuidString).jsonl")
            .path
        let trace = try FrameTrace(path: path, masking: ["apiKey"])
        let frame = #"{"apiKeys":"x","note":"apiKey","n":1}"#
        trace.record(.incoming, Array(frame.utf8))
        trace.flush()
        let line = try JSONDecoding.decode(
            try String(contentsOfFile: path, encoding: .utf8).trimmingCharacters(in: .newlines)
        )
        #expect(line["frame"] == .string(frame))
    }
}
