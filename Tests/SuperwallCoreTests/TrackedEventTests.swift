import Foundation
import Testing

@testable import SuperwallCore

@Suite struct TrackedEventTests {
    @Test func customParamsLoseDollarKeysNullsAndArraysAndKeepObjectsAndScalars() {
        let event = TrackedEvent(
            id: UUID(),
            name: "tap",
            isSuperwallEvent: false,
            customParameters: [
                "$sdk": 1, "none": .null, "list": [1, 2], "object": ["k": "v"], "text": "t", "flag": true,
                "number": 2.5,
            ],
            createdAt: Date()
        )
        #expect(event.customParameters == ["object": ["k": "v"], "text": "t", "flag": true, "number": 2.5])
        #expect(event.audienceParameters["$is_standard_event"] == false)
        #expect(event.audienceParameters["$event_name"] == "tap" && event.audienceParameters["event_name"] == "tap")
    }

    @Test func sdkParamsArePrefixedForAudiencesAndPlainWithIsSuperwallForTheDelegate() {
        let event = TrackedEvent(
            id: UUID(),
            name: "paywall_open",
            superwallParameters: ["paywall_identifier": "p"],
            customParameters: ["plan": "free"],
            createdAt: Date()
        )
        #expect(
            event.audienceParameters["$paywall_identifier"] == "p"
                && event.audienceParameters["paywall_identifier"] == nil
        )
        #expect(event.audienceParameters["plan"] == "free" && event.audienceParameters["$is_standard_event"] == true)
        #expect(event.delegateParameters == ["paywall_identifier": "p", "plan": "free", "is_superwall": true])
    }

    @Test func theLoggedParamsTextIsTheAudienceParameters() throws {
        let event = TrackedEvent(
            id: UUID(),
            name: "trigger_fire",
            superwallParameters: [
                "result": "no_rule_match", "event_name": "shadowed", "quote": "a\"b\n", "tab\tkey": "back\\slash \u{1}",
            ],
            customParameters: ["event_name": "also shadowed", "level": 5, "$sdk": "dropped", "ratio": 0.5],
            createdAt: Date()
        )
        let decoded = try JSONDecoder().decode([String: JSON].self, from: Data(event.audienceParametersJSON))
        #expect(decoded == event.audienceParameters)
        #expect(decoded["event_name"] == "trigger_fire")
        #expect(decoded["$quote"] == "a\"b\n")
        #expect(decoded["$tab\tkey"] == "back\\slash \u{1}")
    }
}
