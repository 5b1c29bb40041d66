import Foundation
import JSONText
import Testing

@Suite struct JSONStringWritingTests {
    /// Each character JSON must escape, at every place in and around an eight-byte word, is
    /// escaped, and the text reads back as it was.
    @Test func everyCharacterThatNeedsAnEscapeIsEscapedWhereverItFalls() throws {
        let specials: [UInt8] = [0x00, 0x01, 0x08, 0x09, 0x0A, 0x0C, 0x0D, 0x1F, 0x22, 0x5C]
        for special in specials {
            for length in 1...20 {
                for position in 0..<length {
                    var utf8 = Array(repeating: UInt8(ascii: "a"), count: length)
                    utf8[position] = special
                    let text = String(decoding: utf8, as: UTF8.self)
                    var written: [UInt8] = []
                    JSONStringWriting.appendQuoted(text, to: &written)
                    #expect(!written.dropFirst().dropLast().contains(where: { $0 < 0x20 }))
                    let read = try JSONDecoder().decode(String.self, from: Data(written))
                    #expect(read == text, "\(special) at \(position) of \(length)")
                }
            }
        }
    }

    /// Bytes just past the escaped ranges (space, `#`, `]`, `~`, a multi-byte character) pass as
    /// they are: the word-at-a-time test must not take a neighbour for a special.
    @Test func textWithNothingToEscapeIsCopiedAsItIs() {
        for text in [" #]~ abcdefgh 12345678", "étoile ★ 🙂 — “quoted”", String(repeating: "!$%&'()*+,-./", count: 9)] {
            var written: [UInt8] = []
            JSONStringWriting.appendQuoted(text, prefix: UInt8(ascii: "$"), to: &written)
            #expect(written == Array("\"$\(text)\"".utf8))
        }
    }

    @Test func controlCharactersAreWrittenWithTheirShortEscapeOrAsUnicode() {
        var written: [UInt8] = []
        JSONStringWriting.appendQuoted("a\u{8}\u{C}\n\r\t\u{1}\"\\", to: &written)
        #expect(String(decoding: written, as: UTF8.self) == #""a\b\f\n\r\t\u0001\"\\""#)
    }
}
