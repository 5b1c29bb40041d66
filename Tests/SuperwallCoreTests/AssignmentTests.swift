import Foundation
import Testing

@testable import SuperwallCore

@Suite struct AssignmentTests {
    private func config(_ triggers: [Trigger]) -> Config {
        Config(
            buildId: "b",
            triggers: triggers,
            paywalls: [],
            logLevel: 0,
            appSessionTimeoutMs: 0,
            featureFlags: FeatureFlags(),
            preloadingDisabled: PreloadingDisabled(all: false, placements: []),
            locales: [],
            attribution: nil,
            products: [],
            web2appConfig: nil,
            prioritizedCampaignId: nil,
            iosAppId: nil,
            bundleIdConfig: nil,
            testModeUserIds: [],
            requestId: nil,
            droppedElements: []
        )
    }

    private func rule(_ experiment: String, campaign: String, _ variants: [Variant]) -> Audience {
        Audience(
            experimentId: experiment,
            experimentGroupId: campaign,
            expression: nil,
            occurrence: nil,
            computedProperties: [],
            preload: Preload(behavior: .ifTrue),
            variants: variants
        )
    }

    private let a = Variant(id: "a", kind: .treatment, percentage: 50, paywallIdentifier: "pa")
    private let b = Variant(id: "b", kind: .treatment, percentage: 50, paywallIdentifier: "pb")

    @Test func aStoredVariantThatStillExistsIsKeptWithItsConfirmation() {
        let plan = AssignmentPlanner.plan(
            for: config([Trigger(placementName: "p", audiences: [rule("e", campaign: "c", [a, b])])]),
            stored: [Store.Assignment(experimentId: "e", variant: b, isSentToServer: true)],
            random: ScriptedRandomSource(draws: [0])
        )
        #expect(plan["e"] == Store.Assignment(experimentId: "e", variant: b, isSentToServer: true))
    }

    @Test func aVanishedVariantIsDrawnAgainUnconfirmed() {
        let gone = Variant(id: "gone", kind: .treatment, percentage: 100, paywallIdentifier: "x")
        let plan = AssignmentPlanner.plan(
            for: config([Trigger(placementName: "p", audiences: [rule("e", campaign: "c", [a, b])])]),
            stored: [Store.Assignment(experimentId: "e", variant: gone, isSentToServer: true)],
            random: ScriptedRandomSource(draws: [60])
        )
        #expect(plan["e"] == Store.Assignment(experimentId: "e", variant: b, isSentToServer: false))
    }

    @Test func anExperimentWithoutVariantsLosesItsAssignmentAndOldExperimentsAreKept() {
        let old = Store.Assignment(experimentId: "retired", variant: a, isSentToServer: true)
        let plan = AssignmentPlanner.plan(
            for: config([Trigger(placementName: "p", audiences: [rule("e", campaign: "c", [])])]),
            stored: [Store.Assignment(experimentId: "e", variant: a, isSentToServer: false), old],
            random: ScriptedRandomSource(draws: [0])
        )
        #expect(plan["e"] == nil)
        #expect(plan["retired"] == old)
    }

    /// SuperwallKit groups audiences by campaign: only the first placement seen with a
    /// campaign contributes its audiences.
    @Test func onlyTheFirstPlacementOfACampaignContributesItsAudiences() {
        let plan = AssignmentPlanner.plan(
            for: config([
                Trigger(placementName: "one", audiences: [rule("e1", campaign: "c", [a])]),
                Trigger(placementName: "two", audiences: [rule("e2", campaign: "c", [b])]),
                Trigger(placementName: "three", audiences: [rule("e3", campaign: "d", [b])]),
            ]),
            stored: [],
            random: ScriptedRandomSource(draws: [0])
        )
        #expect(Set(plan.keys) == ["e1", "e3"])
    }

    @Test func assignmentsAreStickyAcrossRestartsAndRedrawnOnReset() async throws {
        let config = try await presentationConfig([
            placement(
                "gate",
                [
                    audience(
                        "e",
                        rule: nil,
                        variants: [
                            treatment("a", "onboarding-annual", 50), treatment("b", "summer-sale", 50),
                        ]
                    )
                ]
            )
        ])
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("assign-\(UUID().uuidString)")
            .path
        do {
            let first = try await PresentationHarness.make(
                config,
                random: ScriptedRandomSource(draws: [70]),
                directory: directory
            )
            #expect(try await first.superwall.assignments().map { $0.variant.id } == ["b"])
        }
        let restarted = try await PresentationHarness.make(
            config,
            random: ScriptedRandomSource(draws: [10]),
            directory: directory
        )
        #expect(try await restarted.superwall.assignments().map { $0.variant.id } == ["b"])
        _ = try await restarted.superwall.reset()
        #expect(try await restarted.superwall.assignments().map { $0.variant.id } == ["a"])
        #expect(try await restarted.superwall.assignments().map { $0.isSentToServer } == [false])
    }

    @Test func localConfigSourcesLeaveAssignmentsUnconfirmed() async throws {
        let config = try await presentationConfig([
            placement("gate", [audience("e", rule: nil, variants: [holdout("h")])])
        ])
        let harness = try await PresentationHarness.make(config)
        let confirmed = try await harness.superwall.confirmAllAssignments()
        #expect(confirmed.map { $0.experimentId } == ["e"])
        #expect(confirmed.map { $0.isSentToServer } == [false])
        #expect(harness.delegate.names.contains("confirm_all_assignments"))
    }

    /// SuperwallKit's `confirmAllAssignments` only confirms; the bridge tracked a
    /// `trigger_fire` for every holdout and no-match placement, inflating trigger counts.
    @Test func confirmingAllAssignmentsTracksNoTriggerFire() async throws {
        let config = try await presentationConfig([
            placement("held", [audience("e", rule: nil, variants: [holdout("h")])]),
            placement("nobody", [audience("f", rule: "user.plan == \"never\"", variants: [holdout("g")])]),
        ])
        let harness = try await PresentationHarness.make(config)
        harness.delegate.clear()
        _ = try await harness.superwall.confirmAllAssignments()
        #expect(harness.delegate.names == ["confirm_all_assignments"])
    }

    /// With the http source, a holdout is confirmed once with `POST confirm_assignments`; a
    /// failed post leaves it unconfirmed and the next presentation posts again.
    @Test func theServerIsToldOnceAndAFailedConfirmationIsRetried() async throws {
        let body = try await presentationConfig([
            placement("gate", [audience("e", rule: nil, variants: [holdout("h")])])
        ])
        let confirm = "/api/v1/confirm_assignments"
        let server = try await ScriptedAPIServer.start(
            [.init(status: 200, body: body)],
            pathSequences: [confirm: [.init(status: 500), .init(status: 200, body: "{}")]]
        )
        // The event queue's timer may post events meanwhile, on a slow run: only confirmations count.
        let confirmations = { server.posts.filter { $0.path == confirm } }
        let harness = try await PresentationHarness.make(body, source: HTTPConfigSource(baseURL: server.baseURL))
        _ = try await harness.superwall.register(placement: "gate")
        try await eventually { confirmations().count == 1 }
        try await eventually { await harness.superwall.confirmationsPending == 0 }
        #expect(try await harness.superwall.assignments().map { $0.isSentToServer } == [false])
        _ = try await harness.superwall.register(placement: "gate")
        try await eventually { confirmations().count == 2 }
        try await eventually { (try? await harness.superwall.assignments().map { $0.isSentToServer }) == [true] }
        _ = try await harness.superwall.register(placement: "gate")
        _ = try await harness.superwall.confirmAllAssignments()
        #expect(confirmations().count == 2)
        let posted =
            try JSONSerialization.jsonObject(with: Data(try #require(confirmations().first?.body).utf8))
            as? [String: [[String: String]]]
        #expect(posted?["assignments"] == [["experiment_id": "e", "variant_id": "h"]])
    }
}
