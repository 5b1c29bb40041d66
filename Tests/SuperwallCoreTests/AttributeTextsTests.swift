import Foundation
import Testing

@testable import SuperwallCore

/// The attributes' text kept across `setUserAttributes` reads as the attributes written whole,
/// whatever changed them in between.
@Suite struct AttributeTextsTests {
    @Test func theKeptTextIsTheAttributesWrittenWholeAfterEveryKindOfChange() async throws {
        let delegate = RecordingDelegate()
        let superwall = makeSuperwall(delegate)
        _ = try await superwall.configure(apiKey: "pk_test", options: options(temporaryDirectory()))
        await superwall.awaitPresentationQueue()
        let steps: [@Sendable (Superwall) async throws -> Void] = [
            { _ = try await $0.mergeUserAttributes(["plan": "pro", "seats": 3, "tags": ["a", "b"]]) },
            {
                _ = try await $0.mergeUserAttributes(["nested": ["z": 1, "a": ["y": true, "b": nil]], "plan": "team"])
            },
            { _ = try await $0.mergeUserAttributes(["seats": nil, "event_name": "mine", "is_superwall": "mine"]) },
            { _ = try await $0.mergeUserAttributes(["application_installed_at": "mine", "quote\"d\n": "\u{1}"]) },
            { _ = try await $0.identify(userId: "user-1") },
            { _ = try await $0.mergeUserAttributes(["after identify": 1.5]) },
            { _ = try await $0.setIntegrationAttributes(["adjustId": "adj"]) },
            { _ = try await $0.mergeUserAttributes(["plan": nil, "aa": "first"]) },
            { _ = try await $0.reset() },
            { _ = try await $0.mergeUserAttributes(["after reset": true]) },
        ]
        for (index, step) in steps.enumerated() {
            delegate.clear()
            try await step(superwall)
            let attributes = try await superwall.userAttributes()
            let merged = try await superwall.mergeUserAttributes([:])
            #expect(merged.attributes == attributes, "step \(index)")
            #expect(merged.texts.objectText == JSON.sortedObjectText(Array(attributes)), "step \(index)")

            let event = try #require(delegate.events.last { $0.name == "user_attributes" })
            #expect(event.customParametersText != nil)
            var unwritten = event
            unwritten.customParametersText = nil
            #expect(
                try parsed(event.audienceParametersJSON) == parsed(unwritten.audienceParametersJSON),
                "step \(index)"
            )
            #expect(
                merged.texts.sortedObjectText(
                    eventParametersOnly: true,
                    leavingOut: { event.superwallParameters[$0] != nil || $0 == "is_superwall" },
                    mergedWith: event.sdkDelegateMembers
                ) == JSON.sortedObjectText(event.delegateMembers),
                "step \(index)"
            )
            #expect(
                merged.texts.sortedObjectText(eventParametersOnly: true)
                    == JSON.sortedObjectText(Array(event.customParameters)),
                "step \(index)"
            )
        }
    }

    @Test func aOneKeyChangeRewritesOnlyThatMember() {
        var attributes: [String: JSON] = Dictionary(uniqueKeysWithValues: (0..<50).map { ("k\($0)", .int(Int64($0))) })
        var texts = AttributeTexts(attributes)
        attributes["k7"] = "seven"
        attributes["k70"] = ["new": true]
        attributes["k3"] = nil
        texts.update(["k7", "k70", "k3", "absent"], from: attributes)
        #expect(texts.objectText == JSON.sortedObjectText(Array(attributes)))
        #expect(texts.members.map(\.key) == attributes.keys.sorted())
    }

    private func parsed(_ text: [UInt8]) throws -> NSDictionary {
        try #require(JSONSerialization.jsonObject(with: Data(text)) as? NSDictionary)
    }
}
