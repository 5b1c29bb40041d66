import Foundation
import JSONRPC
import TestSupport
import Testing

private func temporaryDirectory() -> String {
    FileManager.default.temporaryDirectory.appendingPathComponent("e2e-\(UUID().uuidString)").path
}

private func configure(_ bridge: BridgeProcess, directory: String) {
    bridge.client.request(
        "configure",
        "configure",
        [
            "apiKey": "pk_e2e",
            "options": ["configSource": ["type": "embedded"], "dataDirectory": .string(directory)],
            "device": ["platform": "iOS", "appVersion": "2.4.0"],
        ]
    )
}

/// Reads until the reply to `id`, returning it and every notification seen before it.
private func reply(to id: JSONValue, from bridge: BridgeProcess, notifications: inout [String]) async -> JSONValue? {
    while let message = await bridge.client.next() {
        if message["id"] == id, message["method"] == nil { return message }
        if let name = message["params"]?["event"]?["name"]?.stringValue { notifications.append(name) }
    }
    return nil
}

@Suite struct SuperwallFlowOverPipesTests {
    @Test func configureIdentifyAttributesGetUserIdResetWithDelegateEventsInOrder() async throws {
        let bridge = try BridgeProcess()
        await bridge.initialize(capabilities: ["delegate": true])
        var events: [String] = []
        configure(bridge, directory: temporaryDirectory())
        let configured = await reply(to: "configure", from: bridge, notifications: &events)
        #expect(configured?["result"]?["configurationStatus"] == "configured")
        let alias = configured?["result"]?["userId"]?.stringValue ?? ""
        #expect(alias.hasPrefix("$SuperwallAlias:"))

        bridge.client.request("identify", "identify", ["userId": "user_e2e"])
        #expect(await reply(to: "identify", from: bridge, notifications: &events)?["result"] == ["userId": "user_e2e"])
        bridge.client.request(
            "attributes",
            "setUserAttributes",
            ["attributes": ["plan": "pro", "workouts_completed": 4]]
        )
        let attributes = await reply(to: "attributes", from: bridge, notifications: &events)?["result"]?["attributes"]
        #expect(attributes?["plan"] == "pro")
        #expect(attributes?["appUserId"] == "user_e2e")
        bridge.client.request("user", "getUserId")
        let user = await reply(to: "user", from: bridge, notifications: &events)?["result"]
        #expect(user?["userId"] == "user_e2e")
        #expect(user?["aliasId"] == .string(alias))
        #expect(user?["isLoggedIn"] == true)
        bridge.client.request("reset", "reset")
        let fresh = await reply(to: "reset", from: bridge, notifications: &events)?["result"]?["userId"]?.stringValue
        #expect(fresh?.hasPrefix("$SuperwallAlias:") == true)
        #expect(fresh != alias)
        bridge.client.request("ping", "$/ping")
        _ = await reply(to: "ping", from: bridge, notifications: &events)

        // `session_start` is an implicit trigger: once the config is in, its audience is
        // evaluated (no match for a new install), concurrently with the calls that follow.
        // So is the preload that follows the config and the reset.
        let implicitTrigger = ["trigger_fire", "paywallPresentationRequest"]
        let preload = [
            "paywallPreload_start", "paywallResponseLoad_start", "paywallResponseLoad_complete",
            "paywallPreload_complete",
        ]
        #expect(
            events.filter { preload.contains($0) }.prefix(2) == ["paywallPreload_start", "paywallResponseLoad_start"]
        )
        #expect(
            events.filter { !implicitTrigger.contains($0) && !preload.contains($0) } == [
                "app_install", "app_launch", "first_seen", "session_start", "config_refresh", "device_attributes",
                "config_attributes",
                "user_attributes", "identity_alias", "user_attributes", "user_attributes", "user_attributes",
                "user_attributes", "first_seen", "reset",
            ]
        )
        #expect(events.filter(implicitTrigger.contains) == implicitTrigger)
        #expect(events.firstIndex(of: "trigger_fire")! > events.firstIndex(of: "config_attributes")!)
        bridge.client.closeWriting()
        #expect(await bridge.waitForExit() == 0)
    }

    @Test func aRestartedBridgeOnTheSameDirectoryIsTheSameUser() async throws {
        let directory = temporaryDirectory()
        var ignored: [String] = []
        do {
            let bridge = try BridgeProcess()
            await bridge.initialize()
            configure(bridge, directory: directory)
            _ = await reply(to: "configure", from: bridge, notifications: &ignored)
            bridge.client.request("identify", "identify", ["userId": "returning_user"])
            _ = await reply(to: "identify", from: bridge, notifications: &ignored)
            bridge.client.request("attributes", "setUserAttributes", ["attributes": ["plan": "pro"]])
            _ = await reply(to: "attributes", from: bridge, notifications: &ignored)
            bridge.client.closeWriting()
            #expect(await bridge.waitForExit() == 0)
        }
        let restarted = try BridgeProcess()
        await restarted.initialize(capabilities: ["delegate": true])
        var events: [String] = []
        configure(restarted, directory: directory)
        #expect(
            await reply(to: "configure", from: restarted, notifications: &events)?["result"]?["userId"]
                == "returning_user"
        )
        restarted.client.request("attributes", "getUserAttributes")
        #expect(
            await reply(to: "attributes", from: restarted, notifications: &events)?["result"]?["attributes"]?["plan"]
                == "pro"
        )
        #expect(!events.contains("app_install"))
        #expect(!events.contains("first_seen"))
        #expect(events.contains("app_launch"))
    }

    @Test func aSecondBridgeOnTheSameDirectoryIsRefusedClearly() async throws {
        let directory = temporaryDirectory()
        var ignored: [String] = []
        let first = try BridgeProcess()
        await first.initialize()
        configure(first, directory: directory)
        #expect(
            await reply(to: "configure", from: first, notifications: &ignored)?["result"]?["configurationStatus"]
                == "configured"
        )
        let second = try BridgeProcess()
        await second.initialize()
        configure(second, directory: directory)
        let refused = await reply(to: "configure", from: second, notifications: &ignored)?["result"]
        #expect(refused?["configurationStatus"] == "failed")
        #expect(refused?["error"]?["data"]?["kind"] == "dataDirectoryInUse")
        #expect(refused?["error"]?["message"]?.stringValue?.contains("pid") == true)
        // Once the first exits, the directory is free again.
        first.client.closeWriting()
        #expect(await first.waitForExit() == 0)
        let third = try BridgeProcess()
        await third.initialize()
        configure(third, directory: directory)
        #expect(
            await reply(to: "configure", from: third, notifications: &ignored)?["result"]?["configurationStatus"]
                == "configured"
        )
    }

    @Test func aKilledBridgeReleasesItsDirectory() async throws {
        let directory = temporaryDirectory()
        var ignored: [String] = []
        let first = try BridgeProcess()
        await first.initialize()
        configure(first, directory: directory)
        _ = await reply(to: "configure", from: first, notifications: &ignored)
        kill(first.pid, SIGKILL)
        #expect(await first.waitForExit() == 128 + SIGKILL)
        let second = try BridgeProcess()
        await second.initialize()
        configure(second, directory: directory)
        #expect(
            await reply(to: "configure", from: second, notifications: &ignored)?["result"]?["configurationStatus"]
                == "configured"
        )
    }
}
