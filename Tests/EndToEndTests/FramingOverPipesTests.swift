import Foundation
import JSONRPC
import TestSupport
import Testing

@Suite struct FramingOverPipesTests {
    @Test func contentLengthClientsAreAnsweredInContentLength() async throws {
        let bridge = try BridgeProcess(framing: .contentLength)
        bridge.client.send(
            "{\n  \"jsonrpc\": \"2.0\", \"id\": 0,\n  \"method\": \"initialize\",\n  \"params\": {\"protocolVersion\": \"1.0\"}\n}"
        )
        #expect(await bridge.client.next()?["id"] == 0)
        bridge.client.request(1, "debug/echo", ["text": "日本"])
        #expect(await bridge.client.next()?["result"] == ["text": "日本"])
    }

    @Test func framingCanBeForcedFromTheCommandLine() async throws {
        let bridge = try BridgeProcess(arguments: ["--framing", "ndjson"])
        // A forced NDJSON server reads a header line as a (bad) JSON text, not as a header.
        bridge.client.writeRaw("Content-Length: 2\n")
        #expect(await bridge.client.next()?["error"]?["code"] == -32700)
    }

    @Test func messagesOverTheLimitAreRefusedAndTheSessionGoesOn() async throws {
        let bridge = try BridgeProcess(arguments: ["--max-message-size", "1000"])
        await bridge.initialize()
        bridge.client.request(1, "debug/echo", [.string(String(repeating: "x", count: 5000))])
        #expect(await bridge.client.next()?["error"]?["data"]?["kind"] == "messageTooLarge")
        bridge.client.request(2, "$/ping")
        #expect(await bridge.client.next()?["id"] == 2)
    }

    @Test func largePayloadsEchoWithoutDeadlock() async throws {
        let bridge = try BridgeProcess()
        await bridge.initialize()
        let text = String(repeating: "0123456789abcdef", count: 256 * 1024)  // 4 MiB each way
        let client = bridge.client
        let writer = Thread { client.request(1, "debug/echo", [.string(text)]) }
        writer.start()
        let reply = await bridge.client.next(timeout: slowExpectationTimeout)
        #expect(reply?["result"]?.arrayValue?.first?.stringValue == text)
    }
}
