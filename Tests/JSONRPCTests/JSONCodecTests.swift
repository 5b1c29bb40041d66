import Foundation
import JSONRPC
import TestSupport
import Testing

@Suite struct JSONCodecTests {
    private func roundTrip(_ text: String) throws -> String {
        String(decoding: JSONWriter.encode(try JSONDecoding.decode(text)), as: UTF8.self)
    }

    @Test func bareScalarsAreValidJSONTexts() throws {
        #expect(try JSONDecoding.decode("1") == .int(1))
        #expect(try JSONDecoding.decode("null") == .null)
        #expect(try JSONDecoding.decode("\"x\"") == .string("x"))
        #expect(try JSONDecoding.decode(" true ") == .bool(true))
    }

    @Test func integersKeepTheirExactValue() throws {
        #expect(try JSONDecoding.decode("9223372036854775807") == .int(.max))
        #expect(try JSONDecoding.decode("-9223372036854775808") == .int(.min))
        #expect(try JSONDecoding.decode("9223372036854775808") == .uint(9_223_372_036_854_775_808))
        #expect(try JSONDecoding.decode("18446744073709551615") == .uint(.max))
        #expect(try JSONDecoding.decode("18446744073709551616") == .double(18_446_744_073_709_551_616))
    }

    @Test func bigIntegersInsideDocumentsKeepEveryOtherNumberExact() throws {
        let value = try JSONDecoding.decode(#"{"a":[1,2.5,"7"],"big":18446744073709551615,"small":-3,"f":1e3}"#)
        #expect(value == ["a": [1, 2.5, "7"], "big": .uint(.max), "small": -3, "f": 1000.0])
        #expect(try roundTrip(#"[9007199254740993,18446744073709551615]"#) == "[9007199254740993,18446744073709551615]")
    }

    @Test func numbersInsideStringsDoNotConfuseExactIntegerRecovery() throws {
        let value = try JSONDecoding.decode(#"{"s":"12 -3 4.5e6 \" 9","n":18446744073709551615,"m":7}"#)
        #expect(value == ["s": "12 -3 4.5e6 \" 9", "n": .uint(.max), "m": 7])
    }

    @Test func duplicateKeysKeepTheLastValue() throws {
        #expect(try JSONDecoding.decode(#"{"a":1,"a":2}"#) == ["a": 2])
        // With a big integer present, a duplicate must not shift values between keys.
        let value = try JSONDecoding.decode(#"{"a":"s","b":6,"a":7,"c":18446744073709551615}"#)
        #expect(value["a"]?.doubleValue == 7)
        #expect(value["b"]?.doubleValue == 6)
        #expect(value["c"]?.doubleValue == Double(UInt64.max))
    }

    @Test func nulCharactersInStringValuesArePreserved() throws {
        let value = try JSONDecoding.decode(#"{"key":"a\u0000b"}"#)
        #expect(value == ["key": "a\u{0}b"])
        #expect(try roundTrip(#""a\u0000b""#) == #""a\u0000b""#)
    }

    /// jansson 2.14 refuses NUL in object keys; such a message is a parse error, said plainly.
    @Test func nulCharactersInObjectKeysAreASyntaxError() {
        #expect(throws: JSONSyntaxError.self) { try JSONDecoding.decode(#"{"k\u0000ey":1}"#) }
    }

    @Test func writerEscapesOnlyWhatJSONRequires() {
        let text = String(
            decoding: JSONWriter.encode("quote\" back\\ slash/ é \u{2028} \n\t\r\u{8}\u{c}\u{1f}"),
            as: UTF8.self
        )
        #expect(text == "\"quote\\\" back\\\\ slash/ é \u{2028} \\n\\t\\r\\b\\f\\u001f\"")
    }

    @Test func writerNeverEmitsARawNewline() throws {
        let value = try JSONDecoding.decode("{\n \"a\" : [ 1,\n 2 ],\n \"b\": \"x\\ny\"\n}")
        #expect(!JSONWriter.encode(value).contains(UInt8(ascii: "\n")))
    }

    @Test func objectsKeepKeyOrder() throws {
        #expect(try roundTrip(#"{"z":1,"a":2,"m":{"y":true,"b":null}}"#) == #"{"z":1,"a":2,"m":{"y":true,"b":null}}"#)
    }

    @Test func doublesUseTheShortestExactForm() {
        #expect(JSONValue.double(1.5).description == "1.5")
        #expect(JSONValue.double(0.1).description == "0.1")
        #expect(JSONValue.double(1e300).description == "1e+300")
        #expect(JSONValue.double(-0.0).description == "-0.0")
    }

    @Test func nonFiniteDoublesAreWrittenAsNull() {
        #expect(JSONValue.double(.infinity).description == "null")
        #expect(JSONValue.double(.nan).description == "null")
    }

    @Test func malformedTextIsASyntaxErrorWithAPosition() {
        #expect(throws: JSONSyntaxError.self) { try JSONDecoding.decode("{\"a\":}") }
        #expect(throws: JSONSyntaxError.self) { try JSONDecoding.decode("") }
        #expect(throws: JSONSyntaxError.self) { try JSONDecoding.decode("[1,]") }
        #expect(throws: JSONSyntaxError.self) { try JSONDecoding.decode("\"\\ud800\"") }
        #expect(throws: JSONSyntaxError.self) { try JSONDecoding.decode([0x22, 0xFF, 0x22]) }
        do {
            _ = try JSONDecoding.decode("{\n  \"a\": nope}")
            Issue.record("expected a syntax error")
        } catch {
            #expect(error.line == 2)
        }
    }

    @Test func numbersBeyondDoubleRangeAreRejected() {
        #expect(throws: JSONSyntaxError.self) { try JSONDecoding.decode("1e400") }
    }

    @Test func deepNestingWithinJanssonsLimitRoundTrips() throws {
        let depth = 1000
        let text = String(repeating: "[", count: depth) + String(repeating: "]", count: depth)
        #expect(try roundTrip(text) == text)
        let tooDeep = String(repeating: "[", count: 5000) + String(repeating: "]", count: 5000)
        #expect(throws: JSONSyntaxError.self) { try JSONDecoding.decode(tooDeep) }
    }

    @Test func unicodeSurvivesARoundTrip() throws {
        #expect(try roundTrip(#""\u00e9\ud83d\ude00 日本""#) == "\"é😀 日本\"")
    }

    /// Texts from one member to thousands read back whole.
    @Test func textsOfEverySizeDecodeWhole() throws {
        for count in [1, 40, 120, 400, 4_000] {
            let members = (0..<count).map { (index: Int) -> String in
                #""key\#(index)":{"n":\#(index),"s":"value \#(index)","a":[\#(index),true,null]}"#
            }
            let text = "{" + members.joined(separator: ",") + "}"
            let value = try JSONDecoding.decode(text)
            guard case .object(let object) = value else {
                Issue.record("not an object")
                continue
            }
            #expect(object.count == count)
            let last = Int64(count - 1)
            let expected: JSONValue = ["n": .int(last), "s": .string("value \(last)"), "a": [.int(last), true, nil]]
            #expect(object["key\(last)"] == expected)
            #expect(try roundTrip(text) == text)
        }
    }

    /// A tree parsed on one thread may be converted and dropped on another, while that
    /// thread parses texts of its own.
    @Test func aTreeParsedOnOneThreadIsReleasedOnAnother() async throws {
        let texts = (0..<200).map { (index: Int) -> String in
            #"{"id":\#(index),"params":{"placement":"p\#(index)","values":[1,2,3]}}"#
        }
        let trees = try texts.map { text in try Array(text.utf8).withUnsafeBytes { try JSONDecoding.parse($0) } }
        nonisolated(unsafe) let handedOver = trees
        let values = await Task.detached {
            var values: [JSONValue] = []
            for (index, tree) in handedOver.enumerated() {
                values.append(tree.value())
                _ = try? JSONDecoding.decode(#"{"interleaved":\#(index)}"#)
            }
            return values
        }.value
        for (index, value) in values.enumerated() {
            #expect(
                value == [
                    "id": .int(Int64(index)), "params": ["placement": .string("p\(index)"), "values": [1, 2, 3]],
                ]
            )
        }
    }
}
