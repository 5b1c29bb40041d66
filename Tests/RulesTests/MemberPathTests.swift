import Rules
import Testing

/// `Program.memberPaths`: the fields a program reads, when they are all it reads.
@Suite struct MemberPathTests {
    private func paths(_ source: String) throws -> [String]? {
        try Program(source).memberPaths?.map { "\($0.variable).\($0.field)" }
    }

    @Test func fieldsReadAreListedOnceInOrder() throws {
        #expect(
            try paths(#"user.plan == "pro" || (params.level > 3 && user.plan != "x")"#) == [
                "user.plan", "params.level",
            ]
        )
        #expect(
            try paths("has(user.trial) && params.items.exists(x, x > user.min)") == [
                "user.trial", "params.items", "user.min",
            ]
        )
        #expect(try paths("1 + 2 == 3") == [])
    }

    @Test func aWholeVariableAHostFunctionOrHasFnIsMoreThanFields() throws {
        #expect(try paths("size(user) == 1") == nil)
        #expect(try paths(#""plan" in user"#) == nil)
        #expect(try paths(#"device.daysSince("app_install") >= 7"#) == nil)
        #expect(try paths(#"daysSince(app_install) >= 7"#) == nil)
        #expect(try paths(#"device.minutesSince("x") > 1"#) == nil)
    }

    @Test func aFieldValueTellsAMissingVariableFromAMissingFieldAndAnIntFromADouble() {
        let path = try! #require(try Program("user.x == 1").memberPaths?.first)
        #expect(FieldValue(of: path, in: VariableActivation([:])) == .noVariable)
        #expect(FieldValue(of: path, in: VariableActivation(["user": .map(ValueMap([:]))])) == .field(nil))
        #expect(
            FieldValue(of: path, in: VariableActivation(["user": .map(ValueMap(["x": .int(1)]))]))
                != FieldValue(of: path, in: VariableActivation(["user": .map(ValueMap(["x": .double(1)]))]))
        )
    }
}
