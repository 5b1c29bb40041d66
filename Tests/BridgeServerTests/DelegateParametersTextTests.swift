import Foundation
import JSONRPC
import Testing

@testable import BridgeServer
@testable import SuperwallCore

/// The delegate's params of an event: un-prefixed, `is_superwall: true`, keys in order, and
/// written once for the events that share them.
@Suite struct DelegateParametersTextTests {
    private static func event(_ name: String, level: Int, sharing shared: SharedParameters?) -> TrackedEvent {
        var event = TrackedEvent(
            id: UUID(),
            name: name,
            superwallParameters: ["trigger_name": .string(name), "is_superwall": .bool(false)],
            customParameters: ["level": .int(Int64(level)), "trigger_name": "the app's", "$secret": "x"],
            createdAt: Date(timeIntervalSince1970: 0)
        )
        event.sharedParameters = shared
        return event
    }

    @Test func theTextIsTheDelegatesParamsWithTheSDKsWinningAndKeysInOrder() throws {
        let text = DelegateParametersText().text(of: Self.event("gate", level: 3, sharing: nil))
        #expect(String(decoding: text, as: UTF8.self) == #"{"is_superwall":true,"level":3,"trigger_name":"gate"}"#)
        #expect(
            try JSONDecoding.decode(text)
                == JSONValue(.object(Self.event("gate", level: 3, sharing: nil).delegateParameters))
        )
    }

    @Test func eventsThatShareTheirParamsGetTheTextWrittenForTheFirst() {
        let texts = DelegateParametersText()
        let shared = SharedParameters()
        let first = texts.text(of: Self.event("gate", level: 1, sharing: shared))
        // Sharing promises equal params; a text rewritten for this one would say level 2.
        #expect(texts.text(of: Self.event("gate", level: 2, sharing: shared)) == first)
        #expect(texts.text(of: Self.event("gate", level: 2, sharing: SharedParameters())) != first)
        #expect(texts.text(of: Self.event("gate", level: 2, sharing: nil)) != first)
    }

    @Test func onlyTheMostRecentSharedTextsAreKept() {
        let texts = DelegateParametersText()
        let oldest = SharedParameters()
        _ = texts.text(of: Self.event("gate", level: 1, sharing: oldest))
        for level in 2...(DelegateParametersText.capacity + 1) {
            _ = texts.text(of: Self.event("gate", level: level, sharing: SharedParameters()))
        }
        let again = texts.text(of: Self.event("gate", level: 9, sharing: oldest))
        #expect(String(decoding: again, as: UTF8.self).contains(#""level":9"#))
    }
}
