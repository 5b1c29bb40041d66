import Foundation
import JSONRPC
import TestSupport
import Testing

@Suite struct LifecycleOverPipesTests {
    @Test func initializeShutdownExitEndsWithStatusZero() async throws {
        let bridge = try BridgeProcess()
        #expect(await bridge.initialize()?["result"]?["server"]?["name"] == "superwall-bridge")
        bridge.client.request(1, "shutdown")
        #expect(await bridge.client.next()?["result"] == [:])
        bridge.client.notify("exit")
        #expect(await bridge.waitForExit() == 0)
    }

    /// Pipelined, as a wrapper's first frame often is: every request before `shutdown` is
    /// answered, not only initialize, the status and shutdown, and exit ends with 0.
    @Test func everyRequestPipelinedBeforeShutdownIsAnsweredAndExitEndsWithZero() async throws {
        let bridge = try BridgeProcess()
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("pipelined-\(UUID().uuidString)")
            .path
        bridge.client.request(
            1,
            "initialize",
            ["protocolVersion": "1.0", "capabilities": ["purchaseController": true]]
        )
        bridge.client.request(
            2,
            "configure",
            [
                "apiKey": "pk_test",
                "options": ["configSource": ["type": "embedded"], "dataDirectory": .string(directory)],
            ]
        )
        bridge.client.request(3, "setSubscriptionStatus", ["status": ["type": "inactive"]])
        bridge.client.request(4, "register", ["placement": "workout_shared"])
        bridge.client.request(5, "shutdown")
        bridge.client.notify("exit")
        var answered: [JSONValue] = []
        while let message = await bridge.client.next() {
            if let id = message["id"], message["method"] == nil { answered.append(id) }
        }
        #expect(Set(answered) == [1, 2, 3, 4, 5])
        #expect(answered.last == 5, "shutdown answers last")
        #expect(await bridge.waitForExit() == 0)
    }

    /// `configure` moves to the offload executor before it reaches the core; a call pipelined
    /// behind it still finds it begun, never "not configured".
    @Test func callsPipelinedBehindConfigureFindItBegun() async throws {
        for attempt in 1...12 {
            let bridge = try BridgeProcess()
            let directory = FileManager.default.temporaryDirectory.appendingPathComponent(
                "ordered-\(UUID().uuidString)"
            ).path
            defer { try? FileManager.default.removeItem(atPath: directory) }
            bridge.client.request(1, "initialize", ["protocolVersion": "1.0"])
            bridge.client.request(
                2,
                "configure",
                [
                    "apiKey": "pk_test",
                    "options": ["configSource": ["type": "embedded"], "dataDirectory": .string(directory)],
                ]
            )
            bridge.client.request(3, "register", ["placement": "workout_shared"])
            bridge.client.request(4, "getUserId")
            bridge.client.request(5, "shutdown")
            bridge.client.notify("exit")
            var errors: [JSONValue] = []
            var answered = 0
            while let message = await bridge.client.next() {
                guard message["id"] != nil, message["method"] == nil else { continue }
                answered += 1
                if let error = message["error"] { errors.append(error) }
            }
            #expect(answered == 5 && errors.isEmpty, "attempt \(attempt): \(errors)")
            #expect(await bridge.waitForExit() == 0)
        }
    }

    @Test func exitWithoutShutdownEndsWithStatusOne() async throws {
        let bridge = try BridgeProcess()
        await bridge.initialize()
        bridge.client.notify("exit")
        #expect(await bridge.waitForExit() == 1)
    }

    @Test func endOfInputAnswersEverythingThenExitsZero() async throws {
        let bridge = try BridgeProcess()
        bridge.client.request(0, "initialize", ["protocolVersion": "1.0"])
        for id in 1...50 { bridge.client.request(.int(Int64(id)), "$/ping") }
        bridge.client.writeRaw(#"{"jsonrpc":"2.0","id":"last","method":"$/ping"}"#)
        bridge.client.closeWriting()
        var ids: Set<JSONValue> = []
        while let reply = await bridge.client.next() { ids.insert(reply["id"] ?? .null) }
        #expect(ids.count == 52)
        #expect(ids.contains("last"))
        #expect(await bridge.waitForExit() == 0)
    }

    @Test func requestsBeforeInitializeAreRefused() async throws {
        let bridge = try BridgeProcess()
        bridge.client.request(1, "configure", ["apiKey": "pk_test"])
        let reply = await bridge.client.next()
        #expect(reply?["error"]?["code"] == -32002)
        #expect(reply?["error"]?["data"]?["kind"] == "notInitialized")
    }
}
