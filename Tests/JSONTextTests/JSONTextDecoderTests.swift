import Foundation
import JSONText
import TestSupport
import Testing

/// A value with every shape the config decodes: nested objects, arrays, optionals, a
/// dictionary, integers of several widths, doubles, booleans and strings with escapes.
private struct Sample: Codable, Equatable {
    struct Item: Codable, Equatable {
        var name: String
        var weight: Double
        var tags: [String]
    }

    var id: Int
    var small: UInt8
    var big: Int64
    var ratio: Double
    var flag: Bool
    var title: String
    var note: String?
    var missing: String?
    var items: [Item]
    var table: [String: Int]
    var nested: [[Int]]
}

private let sampleText = #"""
    { "id": 42, "small": 255, "big": -9223372036854775808, "ratio": 1.5e-3, "flag": true,
      "title": "tab\there \"quoted\" \\ \/ \u00e9 \ud83d\ude00 é ✓ 😀", "note": null,
      "items": [ {"name": "a", "weight": 2, "tags": []}, {"name": "b\n", "weight": -0.25, "tags": ["x", "y"]} ],
      "table": {"one": 1, "two": 2, "tw\u006f": 3}, "nested": [[], [1, 2], [3]], "ignored": {"deep": [null, false]} }
    """#

private func foundation<T: Decodable>(_ type: T.Type, _ text: String) throws -> T {
    try JSONDecoder().decode(type, from: Data(text.utf8))
}

private func ours<T: Decodable>(_ type: T.Type, _ text: String) throws -> T {
    try JSONTextDecoder().decode(type, from: Array(text.utf8))
}

/// A decoding error as case name and JSON path, the parts of it the config reports.
private func summary(_ error: any Error) -> String {
    func path(_ keys: [any CodingKey]) -> String {
        keys.reduce("$") { text, key in key.intValue.map { text + "[\($0)]" } ?? text + "." + key.stringValue }
    }
    switch error as? DecodingError {
    case .keyNotFound(let key, let context): return "keyNotFound \(path(context.codingPath + [key]))"
    case .typeMismatch(let type, let context): return "typeMismatch \(type) \(path(context.codingPath))"
    case .valueNotFound(let type, let context): return "valueNotFound \(type) \(path(context.codingPath))"
    case .dataCorrupted(let context): return "dataCorrupted \(path(context.codingPath))"
    default: return "\(error)"
    }
}

@Suite struct JSONTextDecoderTests {
    @Test func itDecodesWhatFoundationsDecoderDecodes() throws {
        let expected = try foundation(Sample.self, sampleText)
        #expect(try ours(Sample.self, sampleText) == expected)
        #expect(expected.table["two"] == 2)
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

    @Test func ofAKeyWrittenTwiceTheFirstIsRead() throws {
        struct One: Decodable { var a: Int }
        #expect(try ours(One.self, #"{"a":1,"b":0,"a":2}"#).a == 1)
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

@Suite struct JSONStreamTests {
    @Test func itReadsAnObjectsMembersAndAnArraysElementsOneByOneWithWhereEachIs() throws {
        let text = Array(#" {"a": [1, {"b": "c"} , "d"], "e": null} "#.utf8)
        var read: [String] = []
        try text.withUnsafeBytes { bytes in
            var stream = try JSONStream(bytes)
            try stream.open(.object)
            while let name = try stream.nextMember() {
                if stream.nextKind == .array {
                    try stream.open(.array)
                    while try stream.nextElement() {
                        let (kind, written) = try stream.readValue { document, range in
                            (document.kind, String(decoding: bytes[range], as: UTF8.self))
                        }
                        read.append("\(name)[]: \(kind) \(written)")
                    }
                } else {
                    try stream.skipValue()
                    read.append("\(name): skipped")
                }
            }
            try stream.finish()
        }
        #expect(read == ["a[]: number 1", #"a[]: object {"b": "c"}"#, #"a[]: string "d""#, "e: skipped"])
    }

    @Test(arguments: [
        #"{"a": [1 2]}"#, #"{"a": [1,]}"#, #"{"a": 1,}"#, #"{"a": 1} x"#, #"{"a" 1}"#, #"{"a": [1}"#, #"{"#,
    ])
    func punctuationBetweenValuesIsCheckedAsStrictlyAsInsideThem(_ text: String) {
        let bytes = Array(text.utf8)
        #expect(throws: DecodingError.self, "\(text)") {
            try bytes.withUnsafeBytes { bytes in
                var stream = try JSONStream(bytes)
                try stream.open(.object)
                while try stream.nextMember() != nil {
                    if stream.nextKind == .array {
                        try stream.open(.array)
                        while try stream.nextElement() { try stream.skipValue() }
                    } else {
                        try stream.skipValue()
                    }
                }
                try stream.finish()
            }
        }
    }
}
