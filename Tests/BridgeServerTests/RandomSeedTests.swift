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

    @Test func theSameSeedGivesTheSameUserAndVariantsInAnotherDataDirectory() async {
        let first = await Self.draws(seed: 7)
        let second = await Self.draws(seed: 7)
        #expect(first.alias != nil && first.alias == second.alias)
        #expect(first.assignments?.arrayValue?.isEmpty == false)
        #expect(first.assignments == second.assignments)
        #expect(await Self.draws(seed: 8).alias != first.alias)
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
