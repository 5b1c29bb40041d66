import Foundation
import GRDB
import TestSupport
import Testing

@testable import SuperwallCore

@Suite struct JSONTextWritingTests {
    /// Small strings (most keys) and large ones, with and without what must be escaped, read
    /// back as they were written.
    @Test(arguments: [
        "plan", "", "a \"quoted\" word", "back\\slash", "line\nbreak\tand\r", "bell\u{07}", "ünïcødé ✓",
        String(repeating: "long text without escapes ", count: 20), String(repeating: "long \"escaped\"\n", count: 20),
    ])
    func stringsReadBackAsWritten(text: String) throws {
        let written = JSON.object([text: .string(text)]).jsonText
        let read = try JSONDecoder().decode([String: String].self, from: Data(written.utf8))
        #expect(read == [text: text])
    }
}
