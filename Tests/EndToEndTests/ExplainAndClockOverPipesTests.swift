import Foundation
import JSONRPC
import TestSupport
import Testing

/// `debug/explainPlacement`, the manual clock and `superwall-bridge explain`, against the real binary.
@Suite struct ExplainAndClockOverPipesTests {
    @Test func aPaywallCappedAtOnceAnHourShowsAgainAfterTheClockIsAdvancedAnHour() async throws {
        var client = try await PaywallClient.start(options: ["clock": "manual"])
        client.request("attributes", "setUserAttributes", ["attributes": ["workouts_completed": 5]])
        _ = try #require(await client.reply(to: "attributes"))
        let first = try await client.registerAndShow("first", "daily_limit_reached")
        _ = try await client.close(first, register: "first")

        client.request("again", "register", ["placement": "daily_limit_reached"])
        let skipped = try #require(await client.reply(to: "again")?["result"])
        #expect(skipped["outcome"] == "skipped")
        client.request("why", "debug/explainPlacement", ["placement": "daily_limit_reached"])
        let why = try #require(await client.reply(to: "why")?["result"])
        #expect(why["outcome"] == "noAudienceMatch")
        #expect(why["audiences"]?.arrayValue?.first?["occurrence"]?["storedCount"] == 1)
        #expect(why["audiences"]?.arrayValue?.first?["occurrence"]?["allowsAnother"] == false)

        client.request("advance", "debug/advanceClock", ["seconds": 3601])
        let advanced = try #require(await client.reply(to: "advance")?["result"])
        #expect(advanced["nowMs"]?.int64Value != nil)
        let second = try await client.registerAndShow("third", "daily_limit_reached")
        #expect(second != first)
        _ = try await client.close(second, register: "third")
    }

    @Test func eventsCarryTheManualTimeAndItMovesOnlyWhenAdvanced() async throws {
        var client = try await PaywallClient.start(options: ["clock": "manual"])
        client.request("advance", "debug/advanceClock", ["seconds": 259_200])
        let now = try #require(await client.reply(to: "advance")?["result"]?["now"]?.stringValue)
        client.request("register", "register", ["placement": "nobody_has_this"])
        _ = try #require(await client.reply(to: "register"))
        let event = try #require(client.seen.last { $0["params"]?["event"]?["placementName"] == "nobody_has_this" })
        #expect(event["params"]?["event"]?["createdAt"]?.stringValue == now)
    }

    @Test func theSessionTimeoutAndDaysSinceInstallFollowTheManualClock() async throws {
        var client = try await PaywallClient.start(options: ["clock": "manual"])
        client.bridge.client.notify("app/willResignActive")
        // Notifications are handled in their own order, beside requests: wait for its event.
        try await client.waitForEvent("app_close")
        client.request("advance", "debug/advanceClock", ["seconds": 691_200])
        _ = try #require(await client.reply(to: "advance"))
        client.bridge.client.notify("app/didBecomeActive")
        try await client.waitForEvent("app_open")
        client.request("why", "debug/explainPlacement", ["placement": "session_start"])
        let why = try #require(await client.reply(to: "why")?["result"])
        let tree = try #require(why["audiences"]?.arrayValue?.first?["rule"]?["tree"])
        let installAge = tree["children"]?.arrayValue?.first?["children"]?.arrayValue?.first?["children"]?.arrayValue?
            .first
        #expect(installAge?["text"] == "device.daysSinceInstall")
        #expect(installAge?["valueText"] == "8")
        // Eight days away is past the hour's session timeout: a new session started.
        try await client.waitForEvent("session_start", count: 2)
    }

    @Test func theFlushTimerRunsOnTheManualClock() async throws {
        var client = try await PaywallClient.start(options: ["clock": "manual", "eventFlushIntervalMs": 100])
        client.request("register", "register", ["placement": "nobody_has_this"])
        _ = try #require(await client.reply(to: "register"))
        // Real time passes several flush intervals; the manual clock does not move.
        try await Task.sleep(for: .milliseconds(400))
        client.request("queued", "getEventQueueStatus")
        let waiting = try #require(await client.reply(to: "queued")?["result"]?["waiting"]?.int64Value)
        #expect(waiting > 0)
        client.request("advance", "debug/advanceClock", ["seconds": 1])
        _ = try #require(await client.reply(to: "advance"))
        var drained = false
        for attempt in 0..<200 where !drained {
            client.request(.string("status-\(attempt)"), "getEventQueueStatus")
            drained = await client.reply(to: .string("status-\(attempt)"))?["result"]?["waiting"] == 0
            if !drained { try await Task.sleep(for: .milliseconds(10)) }
        }
        #expect(drained)
    }

    @Test func advancingTheSystemClockIsRefusedWithItsKind() async throws {
        var client = try await PaywallClient.start()
        client.request("advance", "debug/advanceClock", ["seconds": 60])
        let reply = try #require(await client.reply(to: "advance"))
        #expect(reply["error"]?["data"]?["kind"] == "clockNotManual")
        client.request("negative", "debug/advanceClock", ["seconds": -1])
        #expect(await client.reply(to: "negative")?["error"]?["data"]?["kind"] == "invalidParams")
    }

    @Test func anUnknownClockIsRefusedAtConfigure() async throws {
        let bridge = try BridgeProcess()
        await bridge.initialize()
        bridge.client.request(
            "configure",
            "configure",
            ["apiKey": "pk_e2e", "options": ["configSource": ["type": "embedded"], "clock": "sundial"]]
        )
        var reply = await bridge.client.next()
        while let message = reply, message["id"] != "configure" { reply = await bridge.client.next() }
        #expect(reply?["error"]?["data"]?["path"] == "params.options.clock")
    }

    @Test func theExplanationTakesAUserOverlayAndParamsAndTracksNothing() async throws {
        var client = try await PaywallClient.start()
        client.request("settled", "$/ping")
        _ = try #require(await client.reply(to: "settled"))
        let before = client.seen.count
        client.request(
            "why",
            "debug/explainPlacement",
            ["placement": "start_workout", "params": ["workout_tier": "pro"], "user": ["plan": "x"]]
        )
        let why = try #require(await client.reply(to: "why")?["result"])
        #expect(why["placementFound"] == true)
        let audiences = try #require(why["audiences"]?.arrayValue)
        let rule = try #require(audiences.first?["rule"])
        #expect(rule["matches"] == true)
        #expect(rule["tree"]?["text"] == #"device.subscriptionStatus != "ACTIVE" && params.workout_tier == "pro""#)
        #expect(rule["tree"]?["children"]?.arrayValue?.last?["children"]?.arrayValue?.first?["valueText"] == #""pro""#)
        #expect(audiences.last?["evaluated"] == false)
        #expect(["holdout", "paywall"].contains(why["outcome"]?.stringValue ?? ""))
        client.request("after", "$/ping")
        _ = try #require(await client.reply(to: "after"))
        // Launch events may still come (the preload runs beside requests); none is the placement's.
        #expect(
            client.seen.dropFirst(before).allSatisfy { $0["params"]?["event"]?["placementName"] != "start_workout" }
        )
    }

    @Test func aRefreshNamesThePlacementsThatNowDecideDifferently() async throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("e2e-explain-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        let file = folder.appendingPathComponent("config.json")
        let demo = try await runBridge(["demo-config"]).stdout
        try demo.write(to: file, atomically: true, encoding: .utf8)
        var client = try await PaywallClient.start(
            configSource: ["type": "file", "path": .string(file.path)],
            options: ["explainOnRefresh": ["open_coach_chat", "deepLink_open"]]
        )
        try demo.replacingOccurrences(
            of: #"!(\"coach\" in device.activeEntitlements)""#,
            with: #"user.plan == \"gold\"""#
        )
        .write(to: file, atomically: true, encoding: .utf8)
        client.request("refresh", "refreshConfiguration")
        let refresh = try #require(await client.reply(to: "refresh")?["result"])
        let changes = try #require(refresh["decisionChanges"]?.arrayValue)
        #expect(changes.map { $0["placement"] } == ["open_coach_chat"])
        #expect(changes.first?["before"]?["outcome"] == "paywall")
        #expect(changes.first?["after"]?["outcome"] == "noAudienceMatch")
    }

    @Test func theExplainCommandPrintsTheTreeAndJSON() async throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent(
            "e2e-explain-cli-\(UUID().uuidString)"
        )
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        let config = folder.appendingPathComponent("config.json")
        try await runBridge(["demo-config"]).stdout.write(to: config, atomically: true, encoding: .utf8)
        let user = folder.appendingPathComponent("user.json")
        try #"{"workouts_completed": "many"}"#.write(to: user, atomically: true, encoding: .utf8)

        let text = try await runBridge(["explain", "--config", config.path, "--user", user.path, "daily_limit_reached"])
        #expect(text.status == 0)
        #expect(!text.stdout.contains("\u{1B}["), "no colour when piped")
        #expect(
            text.stdout.contains(#"├─ user.workouts_completed >= 3  ✗ String("many") can not be compared to Int(3)"#)
        )
        #expect(text.stdout.contains("└─ !(\"pro\" in device.activeEntitlements)  (not evaluated)"))
        #expect(text.stdout.hasSuffix("outcome: noAudienceMatch, feature granted\n"))
        // Its throwaway store is closed before its directory goes, so it does not warn, at its
        // end, that the files it had just removed could not be closed.
        #expect(text.stderr.isEmpty, "\(text.stderr)")

        // The narrowed config holds no other placement: the suggestion comes from the file.
        let typo = try await runBridge(["explain", "--config", config.path, "daily_limit_reachd"])
        #expect(
            typo.stdout.hasPrefix(
                "placement daily_limit_reachd: no campaign has this placement; did you mean daily_limit_reached?\n"
            )
        )

        let json = try await runBridge([
            "explain", "--config", config.path, "--params", #"{"path": "promo", "offer": "summer"}"#, "--json",
            "deepLink_open",
        ])
        #expect(json.status == 0)
        let answer = try JSONDecoding.decode(json.stdout)
        #expect(answer["outcome"] == "paywall")
        #expect(answer["paywall"]?["identifier"] == "summer-sale")

        // On a terminal (a pseudo-terminal from util-linux's `script`), the tree is coloured.
        let terminalOutput = folder.appendingPathComponent("terminal.txt")
        _ = FileManager.default.createFile(atPath: terminalOutput.path, contents: nil)
        let output = open(terminalOutput.path, O_WRONLY)
        let command =
            "\(BridgeProcess.binaryPath) explain --config \(config.path) --user \(user.path) daily_limit_reached"
        let terminal = try ChildProcess("/usr/bin/script", ["-qec", command, "/dev/null"], stdout: output)
        close(output)
        while terminal.isRunning { try await Task.sleep(for: .milliseconds(5)) }
        let coloured = try String(contentsOf: terminalOutput, encoding: .utf8)
        #expect(coloured.contains("\u{1B}[31m✗ String(\"many\") can not be compared to Int(3)\u{1B}[0m"), "\(coloured)")

        let missing = try await runBridge(["explain", "--config", folder.appendingPathComponent("none.json").path, "x"])
        #expect(missing.status == 1)
        #expect(!missing.stderr.isEmpty)
    }
}

extension PaywallClient {
    /// Pings until the delegate has heard `name` `count` times (bounded).
    mutating func waitForEvent(_ name: String, count: Int = 1) async throws {
        for attempt in 0..<500 where eventNames.filter({ $0 == name }).count < count {
            request(.string("wait-\(attempt)"), "$/ping")
            _ = await reply(to: .string("wait-\(attempt)"))
            if eventNames.filter({ $0 == name }).count < count { try await Task.sleep(for: .milliseconds(5)) }
        }
        #expect(eventNames.filter { $0 == name }.count >= count, "\(name) heard \(count) times")
    }
}
