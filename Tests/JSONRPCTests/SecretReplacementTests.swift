import Testing

@testable import JSONRPC

/// What a trace's secrets become, wherever a frame carries them.
@Suite struct SecretReplacementTests {
    private func replaced(_ frame: String, _ secrets: [(String, String)]) -> String {
        let replacements = SecretReplacements()
        for (secret, token) in secrets { replacements.add(secret, as: token) }
        return String(decoding: replacements.replacing(inFrame: Array(frame.utf8)), as: UTF8.self)
    }

    @Test func aSecretIsReplacedInEverySpellingButNeverInTheProtocolsOwnMembers() throws {
        let payload = Array(#"{"user":{"name":"Zo\u00eb Marker","email":"zoe@example.com"}}"#.utf8)
        let frame = """
            {"jsonrpc":"2.0","id":"2.0","method":"x","params":{"a":"Zoë Marker","log":"user Zoë Marker, kept",\
            "escaped":"{\\"name\\":\\"Zoë Marker\\"}","accept64":"\(Base64.encode(payload))","version":"2.0"}}
            """
        let text = replaced(frame, [("Zoë Marker", "token-1"), ("2.0", "token-2")])
        let message = try JSONDecoding.decode(text)
        #expect(message["jsonrpc"] == "2.0" && message["id"] == "2.0" && message["method"] == "x")
        #expect(message["params"]?["a"] == "token-1")
        #expect(message["params"]?["log"] == "user token-1, kept")
        #expect(message["params"]?["escaped"] == #"{"name":"token-1"}"#)
        #expect(message["params"]?["version"] == "token-2")
        guard case .string(let encoded)? = message["params"]?["accept64"], let decoded = Base64.decode(encoded) else {
            Issue.record("the payload is not base64 any more")
            return
        }
        #expect(String(decoding: decoded, as: UTF8.self) == #"{"user":{"name":"token-1","email":"zoe@example.com"}}"#)
    }

    @Test func aSecretIsReplacedOnlyWhereItStandsAsAWordAndAShortOneOnlyQuoted() {
        #expect(
            replaced(#"{"a":"free","b":"freeTrial_start","c":"[\"free\"]","d":"a free trial"}"#, [("free", "T")])
                == #"{"a":"T","b":"freeTrial_start","c":"[\"T\"]","d":"a free trial"}"#
        )
        #expect(
            replaced(#"{"a":"id=uid-marker-1&x","b":"xuid-marker-1"}"#, [("uid-marker-1", "T")])
                == #"{"a":"id=T&x","b":"xuid-marker-1"}"#
        )
    }

    @Test func base64RoundTripsAndRefusesWhatIsNotAPayload() {
        for text in ["", "a", "ab", "abc", "héllo wörld, a longer text"] {
            let bytes = Array(text.utf8)
            if bytes.count >= 12 { #expect(Base64.decode(Base64.encode(bytes)) == bytes) }
        }
        #expect(Base64.decode("aGVsbG8gd29ybGQsIGhp") == Array("hello world, hi".utf8))
        #expect(Base64.decode("not base64 at all!!!") == nil)
        #expect(Base64.decode("abcd") == nil)  // too short to be a payload
    }
}
