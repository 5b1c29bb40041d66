import Foundation
import Rules
import Testing

/// An activation that remembers what rules read (an audience context) is asked for each
/// `variable.field` once, however many rules read it, and gives the same answers.
@Suite struct RememberedMemberTests {
    private final class CountingActivation: Activation, @unchecked Sendable {
        private let lock = NSLock()
        private var memo: [Int: Value?] = [:]
        private(set) var lookups = 0
        let variables: [String: Value]
        init(_ variables: [String: Value]) { self.variables = variables }

        func variable(named name: String) -> Value? {
            lock.withLock { lookups += 1 }
            return variables[name]
        }
        func rememberedMember(_ path: MemberPath) -> Value?? { lock.withLock { memo[path.number] } }
        func remember(_ value: Value?, for path: MemberPath) { lock.withLock { memo[path.number] = value } }
    }

    @Test func eachVariableFieldIsLookedUpOnceAcrossRules() throws {
        let activation = CountingActivation([
            "user": .map(ValueMap(["plan": .string("pro")])), "params": .map(ValueMap([:])),
        ])
        let rules = [
            "user.plan == \"pro\"", "user.plan == \"free\"", "has(user.plan) && user.plan != \"\"",
            "params.missing == 1",
        ]
        let answers = try rules.map { try Program($0).evaluate(activation).get() }
        #expect(answers == [.bool(true), .bool(false), .bool(true), .bool(false)])
        #expect(activation.lookups == 2, "user.plan once for four readings, params.missing once: \(activation.lookups)")
        let fresh = try rules.map { try Program($0).evaluate(VariableActivation(activation.variables)).get() }
        #expect(fresh == answers)
    }
}
