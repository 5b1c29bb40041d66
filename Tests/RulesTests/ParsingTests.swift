import Foundation
import Rules
import Testing

@Suite struct ParsingTests {
    @Test("precedence: * before +, + before relations, relations before && before || before ?:")
    func precedence() {
        #expect(value("1 + 2 * 3") == .int(7))
        #expect(value("(1 + 2) * 3") == .int(9))
        #expect(value("1 + 1 == 2 && 2 < 3 || false ? 'yes' : 'no'") == .string("yes"))
        #expect(value("true ? 1 : false ? 2 : 3") == .int(1))
        #expect(value("false ? 1 : false ? 2 : 3") == .int(3))
        #expect(value("5 - 3") == .int(2))
        #expect(value("5-3") == .int(2))
        #expect(value("-5 * -1") == .int(5))
        #expect(value("!!true") == .bool(true))
    }

    @Test("literals: doubles, escapes, raw strings, bytes, uint, comments")
    func literals() {
        #expect(value(".5 + 1e3 + 1.5e-3") == .double(1000.5015))
        #expect(value(#""a\tb\u00e9\x41\101""#) == .string("a\tbéAA"))
        #expect(value(#"r"a\tb""#) == .string(#"a\tb"#))
        #expect(value("b'\\xff\\000'") == .bytes([255, 0]))
        #expect(value("'''multi\nline'''") == .string("multi\nline"))
        #expect(value("7u") == .uint(7))
        #expect(value("1 + // a comment\n 2") == .int(3))
        #expect(value("-9223372036854775808") == .int(.min))
    }

    @Test("parse errors carry the line and column")
    func positions() throws {
        guard case .failure(.compile(let error)) = evaluate("user.a ==\n  == 3") else {
            Issue.record("expected a compile error")
            return
        }
        let position = try #require(error.position)
        #expect(position.line == 2 && position.column == 3)
        #expect("\(error)".contains("line 2, column 3"))
    }

    @Test("hexadecimal literals are refused at compile time (Superscript aborts on them)")
    func hexLiterals() {
        guard case .failure(.compile(let error)) = evaluate("0x10 == 16") else {
            Issue.record("expected a compile error")
            return
        }
        #expect(error.message.contains("Hexadecimal"))
    }

    @Test(
        "deep nesting is a compile error, not a stack overflow",
        arguments: [
            String(repeating: "(", count: 5000) + "1" + String(repeating: ")", count: 5000),
            String(repeating: "!", count: 50_000) + "true",
            String(repeating: "-", count: 50_000) + "1",
            "1" + String(repeating: " + 1", count: 30_000),
            "a" + String(repeating: ".b", count: 30_000),
            String(repeating: "[", count: 5000) + String(repeating: "]", count: 5000),
        ]
    )
    func deepNesting(_ source: String) {
        guard case .failure(.compile) = evaluate(source) else {
            Issue.record("expected a compile error")
            return
        }
    }

    @Test("a long allowlist of || clauses still compiles and evaluates")
    func longAllowlist() {
        let clauses = (0..<150).map { "user.plan == 'p\($0)'" }.joined(separator: " || ")
        #expect(value(clauses + " || user.plan == 'free'", user) == .bool(true))
    }
}
