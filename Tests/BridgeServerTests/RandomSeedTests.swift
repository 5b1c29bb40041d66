import Foundation
import JSONRPC
import TestSupport
import Testing

/// `configure.options.randomSeed`: every draw of the session comes from one seeded generator.
@Suite struct RandomSeedTests {
    /// The user's alias and variants of a fresh bridge configured with `seed`.
    private static func draws(seed: Int64) async -> (alias: JSONValue?, assignments: JSONValue?) {
        let process = await bridgeProcess()
        let configured = await call(
            process,
            "configure",
            configureParams(temporaryDirectory(), options: ["randomSeed": .int(seed)])
        )
        #expect(configured?["result"]?["configurationStatus"] == "configured")
        let alias = await call(process, "getUserId")?["result"]?["aliasId"]
        let assignments = await call(process, "getAssignments")?["result"]?["assignments"]
        return (alias, assignments)
    }

    /// A collector de-duplicates by `event_id`: a seed repeats its draws, never its event ids.
    @Test func twoRunsWithTheSameSeedOnOneDataDirectoryNeverReuseAnEventId() async throws {
        let directory = temporaryDirectory()
        for _ in 0..<2 {
            let process = await bridgeProcess()
            _ = await call(process, "configure", configureParams(directory, options: ["randomSeed": 7]))
            _ = await call(process, "register", ["placement": "open_coach_chat"])
            _ = await call(process, "flushEvents")
            process.client.closeWriting()
            #expect(await process.waitForExit() == 0)
        }
        let lines = try String(contentsOfFile: directory + "/events.jsonl", encoding: .utf8).split(separator: "\n")
        let ids = lines.compactMap { try? JSONDecoding.decode(String($0))["event_id"]?.stringValue }
        #expect(ids.count == lines.count && ids.count > 4)
        #expect(Set(ids).count == ids.count)
    }

    @Test func theSameSeedGivesTheSameUserAndVariantsInAnotherDataDirectory() async {
        let first = await Self.draws(seed: 7)
        let second = await Self.draws(seed: 7)
        #expect(first.alias != nil && first.alias == second.alias)
        #expect(first.assignments?.arrayValue?.isEmpty == false)
        #expect(first.assignments == second.assignments)
        #expect(await Self.draws(seed: 8).alias != first.alias)
    }

    /// Each of twenty users' variants (an `identify` to each in turn), from a fresh bridge
    /// configured with `seed`: `experimentId=variantId` per user.
    private static func variantsOfTwentyUsers(seed: Int64) async -> [[String]] {
        let process = await bridgeProcess()
        _ = await call(process, "configure", configureParams(temporaryDirectory(), options: ["randomSeed": .int(seed)]))
        var users: [[String]] = []
        for user in 1...20 {
            _ = await call(process, "identify", ["userId": .string("runner_\(user)")])
            let assignments = await call(process, "getAssignments")?["result"]?["assignments"]?.arrayValue ?? []
            users.append(
                assignments.compactMap { assignment in
                    guard let experiment = assignment["experimentId"]?.stringValue,
                        let variant = assignment["variant"]?["id"]?.stringValue
                    else { return nil }
                    return "\(experiment)=\(variant)"
                }.sorted()
            )
        }
        return users
    }

    @Test func twoBridgesWithTheSameSeedDrawTheSameVariantsForTwentyUsersAndAnotherSeedDoesNot() async {
        let first = await Self.variantsOfTwentyUsers(seed: 42)
        #expect(first.count == 20 && first.allSatisfy { !$0.isEmpty })
        #expect(Set(first).count > 1, "the users do not all draw alike")
        #expect(await Self.variantsOfTwentyUsers(seed: 42) == first)
        #expect(await Self.variantsOfTwentyUsers(seed: 43) != first)
    }

    /// Onboarding's experiment splits users 50/50: over twenty seeds, both variants come up.
    @Test func seedsDrawVariantsAsTheirWeightsSay() async {
        var variants: Set<String> = []
        for seed in 1...20 {
            let assignments = await Self.draws(seed: Int64(seed)).assignments?.arrayValue ?? []
            for assignment in assignments where assignment["experimentId"] == "2001" {
                if let id = assignment["variant"]?["id"]?.stringValue { variants.insert(id) }
            }
        }
        #expect(variants == ["3001", "3002"])
    }

    /// The alias `reset` draws after a decision on `open_coach_chat`, its paywall loaded first
    /// by a preload of `preloaded`'s paywalls or by the decision itself.
    private static func aliasAfterADecision(preloading preloaded: [String]) async -> JSONValue? {
        let process = await bridgeProcess()
        let options: JSONObject = ["randomSeed": 7, "paywalls": ["shouldPreload": false]]
        _ = await call(process, "configure", configureParams(temporaryDirectory(), options: options))
        let preload = await call(process, "preloadPaywalls", ["placements": .array(preloaded.map(JSONValue.string))])
        #expect(preload?["result"]?["paywalls"]?.arrayValue?.isEmpty == preloaded.isEmpty)
        let decision = await call(process, "getPresentationResult", ["placement": "open_coach_chat"])
        #expect(decision?["result"]?["type"] == "paywall", "\(String(describing: decision))")
        _ = await call(process, "reset")
        return await call(process, "getUserId")?["result"]?["aliasId"]
    }

    /// Whether a background preload or the call loads a paywall depends on timing: a replay
    /// must draw the same ids either way.
    @Test func aPaywallThatAPreloadLoadedFirstLeavesTheSessionsLaterDrawsAsTheyWere() async {
        let loadedByThePreload = await Self.aliasAfterADecision(preloading: ["open_coach_chat"])
        let loadedByTheDecision = await Self.aliasAfterADecision(preloading: [])
        #expect(loadedByThePreload != nil && loadedByThePreload == loadedByTheDecision)
    }

    @Test func aSeedThatIsNotAnIntegerIsRefusedWithItsPath() async {
        let process = await bridgeProcess()
        let error = await call(
            process,
            "configure",
            configureParams(temporaryDirectory(), options: ["randomSeed": "seven"])
        )?["error"]
        #expect(error?["code"] == -32602)
        #expect(error?["data"]?["path"] == "params.options.randomSeed")
    }
}

/// Requests of one client reach the SDK in the order they were sent: an override sent after a
/// `getPresentationResult` does not reach it first, as a later override did in 9 of 10 trials
/// (each call inside the SDK's actor was queued again behind the calls read after it).
@Suite struct RequestOrderTests {
    /// Pipelines override/decision pairs and answers what each decision saw.
    private static func variantsSeen(configure params: JSONValue, count: Int = 6) async -> [String] {
        let process = await bridgeProcess()
        let configured = await call(process, "configure", params)
        #expect(configured?["result"]?["configurationStatus"] == "configured", "\(String(describing: configured))")
        for index in 0..<count {
            process.client.request(
                .string("override-\(index)"),
                "debug/overrideAssignment",
                ["experimentId": "2001", "variantId": index % 2 == 0 ? "3001" : "3002"]
            )
            process.client.request(
                .string("result-\(index)"),
                "getPresentationResult",
                ["placement": "onboarding_complete"]
            )
        }
        var seen: [String: String] = [:]
        while seen.count < count, let reply = await process.client.nextReply() {
            guard let id = reply["id"]?.stringValue, id.hasPrefix("result-") else { continue }
            seen[id] = reply["result"]?["experiment"]?["variant"]?["id"]?.stringValue ?? "none"
        }
        return (0..<count).map { seen["result-\($0)"] ?? "unanswered" }
    }

    private static let alternating = (0..<6).map { $0 % 2 == 0 ? "3001" : "3002" }

    @Test func eachPipelinedDecisionSeesTheOverrideSentJustBeforeIt() async {
        // Read first, so that a failure prints what each decision saw.
        let seen = await Self.variantsSeen(configure: configureParams(temporaryDirectory()))
        #expect(seen == Self.alternating)
    }

    /// A rule that calls `matches()` sends every decision off the reader, where a later call
    /// could overtake it on the way in.
    @Test func soDoesADecisionThatLeavesTheReaderForSlowRules() async throws {
        var config = try demoConfigObject()
        var triggers = try #require(config["trigger_options"] as? [[String: Any]])
        let index = try #require(triggers.firstIndex { $0["event_name"] as? String == "onboarding_complete" })
        var rules = try #require(triggers[index]["rules"] as? [[String: Any]])
        rules[0]["expression_cel"] = #"!("x".matches("y"))"#
        triggers[index]["rules"] = rules
        config["trigger_options"] = triggers
        let path = temporaryDirectory() + ".json"
        try JSONSerialization.data(withJSONObject: config).write(to: URL(fileURLWithPath: path))
        let params = configureParams(temporaryDirectory(), source: ["type": "file", "path": .string(path)])
        let seen = await Self.variantsSeen(configure: params)
        #expect(seen == Self.alternating)
    }
}
