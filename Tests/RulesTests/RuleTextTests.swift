import Testing

@testable import Rules

@Suite struct RuleTextTests {
    @Test func aRuleThatNamesMatchesIsKnownFromItsText() {
        #expect(Rule(#"user.email.matches("@example\\.com$")"#).mayCallMatches)
        #expect(Rule("matches(user.name, '^A')").mayCallMatches)
        #expect(!Rule("user.plan == 'pro' && device.daysSince(app_install) > 3").mayCallMatches)
        #expect(!Rule("").mayCallMatches)
        #expect(!Rule("match").mayCallMatches)
    }
}

/// The text an explanation and a decision record print for a rule parses back to the same rule.
@Suite struct PrintedRuleTests {
    private func reprinted(_ source: String) throws -> String {
        ExpressionPrinter.text(of: try Parser.parse(source))
    }

    @Test(arguments: [
        "2e308 > 1.0", "-2e308 < 1.0", "b'\\xff' == b'\\xff'", "b'\\000' == b'\\000'", "(-7).f == 1",
        "(-7.5).f == 1", ".true ? 1 : 2", "Msg{f: 1} == 1", "[1, 'a', {'k': [true]}][2]",
        "!(a || b) && c", "a - (b - c)", ".in{} == 1", ". in {}", ". in ()", ".true(1) == .null()",
        "x.exists(k, k > 0) ? 'yes' : 'no'",
    ])
    func thePrintedTextParsesBackToTheSameTree(_ source: String) throws {
        let printed = try reprinted(source)
        #expect(try Parser.parse(printed) == Parser.parse(source), "printed as \(printed)")
    }

    @Test func valuesPrintAsLiteralsThatReadBackAsTheSameValue() {
        #expect(ExpressionPrinter.literal(.double(.infinity)) == "1e999")
        #expect(ExpressionPrinter.literal(.double(-.infinity)) == "-1e999")
        #expect(ExpressionPrinter.literal(.double(.nan)) == #"double("NaN")"#)
        #expect(ExpressionPrinter.literal(.bytes([0xFF, 0x00, 0x41, 0x22])) == #"b"\xff\x00A\"""#)
    }
}
