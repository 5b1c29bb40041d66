import Foundation
import JSONText
import TestSupport
import Testing

@Suite struct JSONTextDecoderTests {
    @Test func itDecodesWhatFoundationsDecoderDecodes() throws {
        var expected = try foundation(Sample.self, sampleText)
        #expect(expected.table["two"] == 2)
        // Of a key written twice (here once with an escape) Foundation reads the first; this
        // decoder reads the last, as JSON.parse, Python and jansson do.
        expected.table["two"] = 3
        #expect(try ours(Sample.self, sampleText) == expected)
    }

    @Test(arguments: [
        #"{"id":1}"#,
        #"{"id":null,"small":1,"big":1,"ratio":1,"flag":true,"title":"","items":[],"table":{},"nested":[]}"#,
        #"{"id":"1","small":1,"big":1,"ratio":1,"flag":true,"title":"","items":[],"table":{},"nested":[]}"#,
        #"{"id":1,"small":1,"big":1,"ratio":"x","flag":true,"title":"","items":[],"table":{},"nested":[]}"#,
        #"{"id":1,"small":1,"big":1,"ratio":1,"flag":1,"title":"","items":[],"table":{},"nested":[]}"#,
        #"{"id":1,"small":1,"big":1,"ratio":1,"flag":true,"title":"","items":[{"name":"a","weight":1,"tags":[3]}],"table":{},"nested":[]}"#,
        #"{"id":1,"small":1,"big":1,"ratio":1,"flag":true,"title":"","items":[{"name":"a","weight":1,"tags":[]},{"weight":1,"tags":[]}],"table":{},"nested":[]}"#,
        #"{"id":1,"small":1,"big":1,"ratio":1,"flag":true,"title":"","items":{},"table":{},"nested":[]}"#,
        #"{"id":1,"small":1,"big":1,"ratio":1,"flag":true,"title":"","items":null,"table":{},"nested":[]}"#,
        #"{"id":1,"small":1,"big":1,"ratio":1,"flag":true,"title":"","items":[],"table":{"a":"b"},"nested":[]}"#,
        #"{"id":1,"small":1,"big":1,"ratio":1,"flag":true,"title":"","items":[],"table":{},"nested":[[1],[2,null]]}"#,
        #"[]"#,
        #"null"#,
    ])
    func aValueThatDoesNotFitFailsWithFoundationsErrorCaseAndPath(_ text: String) throws {
        let expected = #expect(throws: (any Error).self) { try foundation(Sample.self, text) }
        let actual = #expect(throws: (any Error).self) { try ours(Sample.self, text) }
        #expect(summary(try #require(actual)) == summary(try #require(expected)))
    }

    @Test(arguments: [
        (
            #"{"id":1,"small":256,"big":1,"ratio":1,"flag":true,"title":"","items":[],"table":{},"nested":[]}"#,
            "$.small"
        ),
        (#"{"id":1.5,"small":1,"big":1,"ratio":1,"flag":true,"title":"","items":[],"table":{},"nested":[]}"#, "$.id"),
        (
            #"{"id":1,"small":1,"big":1,"ratio":1,"flag":true,"title":"","items":[],"table":{},"nested":[[1, 2.5]]}"#,
            "$.nested[0][1]"
        ),
    ])
    func aNumberThatDoesNotFitItsTypeIsCorruptDataAtItsOwnPath(_ text: String, path: String) {
        let error = #expect(throws: (any Error).self) { try ours(Sample.self, text) }
        #expect(error.map(summary) == "dataCorrupted \(path)")
    }

    @Test(arguments: [
        "100", "1e2", "1.0", "-0", "1E+2", "2.5", "1e400", "9223372036854775807", "9223372036854775808",
        "-9223372036854775809",
    ])
    func anIntegerWrittenAnyWayDecodesAsFoundationDecodesIt(_ number: String) {
        let expected = try? foundation([Int].self, "[\(number)]")
        #expect((try? ours([Int].self, "[\(number)]")) == expected)
        let expectedDouble = try? foundation([Double].self, "[\(number)]")
        #expect((try? ours([Double].self, "[\(number)]")) == expectedDouble)
    }

    @Test func ofAKeyWrittenTwiceTheLastIsRead() throws {
        struct One: Decodable { var a: Int }
        #expect(try ours(One.self, #"{"a":1,"b":0,"a":2}"#).a == 2)
    }

    @Test func aMemberNameWrittenWithEscapesIsFound() throws {
        struct Named: Decodable { var event_name: String }
        #expect(try ours(Named.self, #"{"event\u005fname":"x"}"#).event_name == "x")
    }

    @Test func everyMutationIsRefusedExactlyWhenJSONSerializationRefusesIt() throws {
        // Fixed seed: deletes, duplicates or replaces one byte with punctuation or an escape
        // character; the decoder must accept exactly the texts JSONSerialization accepts, but
        // for trailing commas.
        var generator = SeededGenerator(seed: 7)
        // Short numbers: an exponent put into a long run of digits makes a number past
        // Double's range, which JSONSerialization refuses though it is JSON.
        let bytes = Array(sampleText.replacingOccurrences(of: "-9223372036854775808", with: "-92").utf8)
        let replacements = Array("{}[],:\" 0.-e+tfn\\u".utf8)
        var refused = 0
        for _ in 0..<3000 {
            let mutated = generator.mutatingOnce(bytes, replacingWith: replacements)
            // Foundation's JSONSerialization on Linux takes a trailing comma; RFC 8259 does not.
            let text = String(decoding: mutated, as: UTF8.self)
            let hasTrailingComma =
                text.replacingOccurrences(of: " ", with: "").contains(",]")
                || text.replacingOccurrences(of: " ", with: "").contains(",}")
            let isJSON =
                !hasTrailingComma
                && (try? JSONSerialization.jsonObject(with: Data(mutated), options: [.fragmentsAllowed])) != nil
            let parsed = Result { try mutated.withUnsafeBytes { try JSONDocument.parsing($0) { _ in } } }
            #expect((try? parsed.get()) != nil || !isJSON, "\(String(decoding: mutated, as: UTF8.self))")
            if !isJSON {
                refused += 1
                guard case .failure(let error) = parsed, case .dataCorrupted(let context)? = error as? DecodingError
                else {
                    Issue.record("accepted text that is not JSON: \(String(decoding: mutated, as: UTF8.self))")
                    continue
                }
                #expect(context.codingPath.isEmpty)
            }
        }
        #expect(refused > 1000)
    }

    @Test(
        arguments: [
            [0x22, 0xFF, 0x22],  // not UTF-8 at all
            [0x22, 0xC0, 0x80, 0x22],  // an overlong NUL
            [0x22, 0xED, 0xA0, 0x80, 0x22],  // a UTF-16 surrogate written as UTF-8
            [0x22, 0xE2, 0x9C, 0x22],  // a three-byte character cut short
            [0x22, 0xF4, 0x90, 0x80, 0x80, 0x22],  // past U+10FFFF
            Array(#""\ud800""#.utf8),  // a high surrogate escape alone
            Array(#""\udc00\ud800""#.utf8),  // surrogate escapes the wrong way round
            Array("\"a\tb\"".utf8),  // a raw control character
        ] as [[UInt8]]
    )
    func aStringThatIsNotValidTextIsRefused(_ bytes: [UInt8]) {
        #expect(throws: DecodingError.self) { try JSONTextDecoder().decode(String.self, from: bytes) }
    }

    @Test func nestingIsAcceptedTo512LevelsAndRefusedPastThem() throws {
        func parse(depth: Int) throws {
            let text = Array((String(repeating: "[", count: depth) + String(repeating: "]", count: depth)).utf8)
            try text.withUnsafeBytes { try JSONDocument.parsing($0) { _ in } }
        }
        #expect(throws: Never.self) { try parse(depth: 512) }
        #expect(throws: DecodingError.self) { try parse(depth: 513) }
    }

    @Test func aSyntaxErrorSaysWhatIsWrongAtWhichByte() {
        let error = #expect(throws: DecodingError.self) { try ours([Int].self, "[1, 2,, 3]") }
        guard case .dataCorrupted(let context)? = error else {
            Issue.record("expected dataCorrupted")
            return
        }
        #expect(context.debugDescription.contains("at byte 6"), "\(context.debugDescription)")
    }
}
