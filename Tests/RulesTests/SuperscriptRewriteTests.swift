import Foundation
import Rules
import Testing

@Suite struct SuperscriptRewriteTests {
    @Test("a missing attribute behaves as the zero value of the literal it is compared with")
    func zeroValueDefaults() {
        #expect(value("user.missing < 10", user) == .bool(true))
        #expect(value("user.missing == false", user) == .bool(true))
        #expect(value("user.missing != 'x'", user) == .bool(true))
        #expect(value("user.missing == 0.0", user) == .bool(true))
        #expect(value("user.missing == null", user) == .bool(true))
        #expect(value("user.missing == '0'", user) == .bool(false))
        #expect(value("user.missing in ['a']", user) == .bool(false))
        #expect(value("user.missing", user) == .null)
    }

    @Test("the rewrite is applied to the left side only")
    func leftSideOnly() {
        #expect(isError("1 > user.missing", user))
        #expect(value("'free' == user.plan", user) == .bool(true))
    }

    @Test("numeric-string equality is coerced both ways, ordering is not")
    func coercion() {
        #expect(value("user.credits == '5'", user) == .bool(true))
        #expect(value("'5' == user.credits", user) == .bool(true))
        #expect(value("user.credits != '5'", user) == .bool(false))
        #expect(value("user.credits == 5.0", user) == .bool(true))
        #expect(isError("user.credits > '3'", user))
        #expect(value("user.code == 42", ["user": .map(ValueMap(["code": .string("42")]))]) == .bool(false))
    }

    @Test("'true' and 'false' are booleans, in the expression and in the variables")
    func booleanStrings() {
        #expect(value("flag == true", ["flag": .string("true")]) == .bool(true))
        #expect(value("flag == 'false'", ["flag": .bool(false)]) == .bool(true))
        #expect(value("'true'") == .bool(true))
    }

    @Test("undeclared references and unknown functions give null, not an error")
    func undeclared() {
        #expect(value("nothing == 'x'") == .null)
        #expect(value("a.b.c") == .null)
        #expect(value("nothing()") == .null)
    }
}
