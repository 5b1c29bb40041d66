import Foundation
import JSONText
import TestSupport
import Testing

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
