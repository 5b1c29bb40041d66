import Foundation
import TestSupport
import Testing

@testable import SuperwallCore

/// A placement skipped again for the same reasons tracks the same `trigger_fire` params (shared,
/// so a host writes them once); another placement or a new app session give their own.
@Suite struct RepeatedTriggerFireTests {
    private static var triggers: [[String: Any]] {
        [
            placement(
                "gate",
                [
                    audience("g1", rule: #"user.plan == "gold""#, variants: [treatment("v1", "onboarding-annual")]),
                    audience(
                        "g2",
                        rule: #"params.level > 10"#,
                        variants: [treatment("v2", "onboarding-annual")],
                        occurrence: ["key": "g2", "max_count": 1, "interval": ["type": "INFINITY"]]
                    ),
                ]
            ),
            placement(
                "other",
                [audience("o1", rule: #"user.plan == "gold""#, variants: [treatment("v3", "onboarding-annual")])]
            ),
        ]
    }

    private func fires(_ harness: PresentationHarness) -> [TrackedEvent] {
        harness.delegate.events.filter { $0.name == "trigger_fire" }
    }

    @Test func theSameSkipTracksTheSameParamsAndAnotherPlacementOrSessionItsOwn() async throws {
        let harness = try await PresentationHarness.make(try await presentationConfig(Self.triggers))
        _ = try await harness.superwall.register(placement: "gate", params: ["level": 1])
        _ = try await harness.superwall.register(placement: "gate", params: ["level": 1])
        var events = fires(harness)
        #expect(events.count == 2 && events[0].superwallParameters == events[1].superwallParameters)
        #expect(events[1].superwallParameters["unmatched_audience_g1"] == "EXPRESSION")
        #expect(events[1].superwallParameters["unmatched_audience_g2"] == "EXPRESSION")

        _ = try await harness.superwall.register(placement: "other")
        events = fires(harness)
        #expect(events[2].superwallParameters["trigger_name"] == "other")
        #expect(events[2].superwallParameters["unmatched_audience_g1"] == nil)
        let requests = harness.delegate.events.filter { $0.name == "paywallPresentationRequest" }
        #expect(requests.count == 3 && requests[0].superwallParameters == requests[1].superwallParameters)
        #expect(requests[2].superwallParameters["source_event_name"] == "other")

        let session = events[0].superwallParameters["app_session_id"]
        try await harness.superwall.appWillResignActive()
        harness.clock.advance(by: 2 * 3600)
        try await harness.superwall.appDidBecomeActive()
        _ = try await harness.superwall.register(placement: "gate", params: ["level": 1])
        events = fires(harness)
        #expect(events.last?.superwallParameters["app_session_id"] != session)
        #expect(events.last?.superwallParameters["app_session_id"] != nil)
        // The repeats share their params, so a host may write them once; the others do not.
        #expect(events[0].sharedParameters != nil && events[0].sharedParameters === events[1].sharedParameters)
        #expect(events.last?.sharedParameters !== events[0].sharedParameters)
        #expect(events[2].sharedParameters !== events[0].sharedParameters)
        await harness.superwall.flushEvents()
        let rows = try String(contentsOfFile: harness.directory + "/events.jsonl", encoding: .utf8)
            .split(separator: "\n").filter { $0.contains(#""event_name":"trigger_fire""#) }
        #expect(rows.count == 4)
        #expect(
            rows.allSatisfy {
                $0.contains(#""$unmatched_audience_g1":"EXPRESSION""#) || $0.contains(#""$trigger_name":"other""#)
            }
        )
    }

    /// The placement registered again with other params is evaluated with those params.
    @Test func aPlacementRegisteredAgainWithOtherParamsIsEvaluatedWithThem() async throws {
        let harness = try await PresentationHarness.make(try await presentationConfig(Self.triggers))
        #expect(
            try await harness.superwall.register(placement: "gate", params: ["level": 1]).ending
                == .skipped(.noAudienceMatch)
        )
        #expect(
            try await harness.superwall.register(placement: "gate", params: ["level": 1]).ending
                == .skipped(.noAudienceMatch)
        )
        let register = harness.registerInBackground("gate", params: ["level": 20])
        let shown = try await harness.waitForPresentation()
        #expect(shown.info.experiment?.id == "g2")
        try await harness.superwall.dismiss()
        _ = try await register.value
        await harness.superwall.flushEvents()
        let rows = try String(contentsOfFile: harness.directory + "/events.jsonl", encoding: .utf8)
            .split(separator: "\n").filter { $0.contains(#""event_name":"gate""#) }
        #expect(rows.map { $0.contains(#""level":20"#) } == [false, false, true])
    }
}
