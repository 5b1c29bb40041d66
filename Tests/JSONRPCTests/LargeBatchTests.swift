import Foundation
import JSONRPC
import TestSupport
import Testing

/// A batch of at least a mebibyte is routed an element at a time, and every request in it is
/// answered exactly once, whatever closes behind it.
@Suite struct LargeBatchTests {
    /// `count` pings with ids 1...count, as one batch's elements.
    private static func pings(_ count: Int) -> [String] {
        (1...count).map { #"{"jsonrpc":"2.0","id":\#($0),"method":"$/ping"}"# }
    }

    @Test func aLargeBatchIsAnsweredInOrderWithItsNotificationsSilentAndItsInvalidElementsRefused() async {
        let server = await initializedServer()
        var elements = Self.pings(30_000)
        elements.insert(#"{"jsonrpc":"2.0","method":"note"}"#, at: 100)
        elements.insert("7", at: 200)
        let text = "[" + elements.joined(separator: ", \t") + "]"
        #expect(text.utf8.count >= 1 << 20)
        server.client.send(text)
        let answer = await server.client.next(timeout: slowExpectationTimeout)
        let reply = answer?.arrayValue ?? []
        #expect(reply.count == 30_001, "\(String(describing: answer).prefix(300))")
        let ids = reply.compactMap { $0["id"]?.int64Value }
        #expect(ids == Array(1...30_000).map(Int64.init), "the answers are not in order")
        #expect(reply.filter { errorCode($0) == -32600 }.count == 1, "the element 7 is an invalid request")
        server.client.request(1, "$/ping")
        #expect(await server.client.next()?["id"] == 1)
    }

    @Test func aLargeBatchThatIsNotJSONIsOneParseErrorAndNothingOfItRuns() async {
        let server = await initializedServer()
        let text = "[" + Self.pings(30_000).joined(separator: ",") + ",{\"jsonrpc\":]"
        server.client.send(text)
        let reply = await server.client.next(timeout: slowExpectationTimeout)
        #expect(errorCode(reply) == -32700)
        server.client.request("after", "$/ping")
        #expect(await server.client.next()?["id"] == "after", "no answer of the batch came before")
    }

    /// A 60 MiB batch with the input closed right behind it went unanswered: the connection
    /// stopped waiting for the lane after the drain deadline and exited.
    @Test func everyRequestOfALargeBatchIsAnsweredWhenTheInputClosesBehindIt() async {
        var options = Connection.Options()
        options.drainTimeout = .milliseconds(1)
        let server = await initializedServer(options: options)
        let count = 100_000
        let text = "[" + Self.pings(count).joined(separator: ",") + "]"
        let writer = Thread { [client = server.client] in
            client.send(text)
            client.closeWriting()
        }
        writer.start()
        let reply = await server.client.next(timeout: slowExpectationTimeout)?.arrayValue ?? []
        #expect(reply.count == count)
        #expect(Set(reply.compactMap { $0["id"]?.int64Value }).count == count)
        #expect(reply.allSatisfy { $0["result"] != nil || errorCode($0) == -32800 })
        #expect(await server.waitForExit() == 0)
    }
}
