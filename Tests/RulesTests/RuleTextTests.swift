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
