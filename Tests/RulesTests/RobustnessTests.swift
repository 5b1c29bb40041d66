import Testing

@testable import Rules

@Suite struct RobustnessTests {
    @Test(
        "runaway comprehensions stop at the step budget with an error",
        arguments: [
            "[1,2,3,4,5,6,7,8,9,10].map(a, [1,2,3,4,5,6,7,8,9,10].map(b, [1,2,3,4,5,6,7,8,9,10].map(c, [1,2,3,4,5,6,7,8,9,10].map(d, [1,2,3,4,5,6,7,8,9,10].map(e, [1,2,3,4,5,6,7,8,9,10].map(f, 1))))))",
            "[1,2,3,4,5,6,7,8,9,10].all(a, [1,2,3,4,5,6,7,8,9,10].all(b, [1,2,3,4,5,6,7,8,9,10].all(c, [1,2,3,4,5,6,7,8,9,10].all(d, [1,2,3,4,5,6,7,8,9,10].all(e, [1,2,3,4,5,6,7,8,9,10].all(f, true))))))",
        ]
    )
    func stepBudget(_ source: String) throws {
        let result = try Program(source).evaluate(VariableActivation())
        guard case .failure(let error) = result else {
            Issue.record("expected the budget to stop it")
            return
        }
        #expect(error.kind == .budgetExceeded)
    }

    @Test("regular expressions cannot backtrack exponentially")
    func pathologicalRegex() throws {
        let input = String(repeating: "a", count: 5000) + "!"
        let program = try Program("text.matches('^(a+)+$') || text.matches('(a|aa)*b') || text.matches('(a*)*$')")
        #expect(program.evaluate(VariableActivation(["text": .string(input)])) == .success(.bool(true)))
        #expect(
            try Program("text.matches('^(a+)+$')").evaluate(VariableActivation(["text": .string(input)]))
                == .success(.bool(false))
        )
    }

    /// Each match had its own bound of 10 million steps: 200 on a 60 KB attribute ran for seconds.
    @Test(
        "a rule's matches share one budget",
        arguments: [
            (0..<200).map { "text.matches('(a|b)*c\($0)')" }.joined(separator: " || "),
            (0..<200).map { "text.matches(pattern + '\($0)')" }.joined(separator: " || "),
        ]
    )
    func matchesShareOneBudget(_ source: String) throws {
        let text = String(repeating: "a", count: 60_000)
        let result = try Program(source).evaluate(
            VariableActivation(["text": .string(text), "pattern": .string("(a|b)*c")])
        )
        guard case .failure(let error) = result else {
            Issue.record("expected the budget to stop it")
            return
        }
        #expect(error.kind == .budgetExceeded)
        #expect(error.message.contains("regular-expression steps in all"))
        // A rule of a few such matches is within it.
        #expect(
            try Program("text.matches('(a|b)*c') || text.matches('a$')").evaluate(
                VariableActivation(["text": .string(text)])
            ) == .success(.bool(true))
        )
    }

    @Test(
        "oversized or unsupported patterns are errors",
        arguments: [
            "'a'.matches('a{2000}')", "'a'.matches('(((a)))' + '(' )", "'a'.matches('\\\\p{L}')",
            "'a'.matches('" + String(repeating: "a", count: 1200) + "')", "'a'.matches('*')",
            "'a'.matches('(a{1000}){1000}')",
        ]
    )
    func badPatterns(_ source: String) throws {
        guard case .failure(let error) = try Program(source).evaluate(VariableActivation()) else {
            Issue.record("expected an error")
            return
        }
        #expect(error.kind == .invalidArgument)
    }

    @Test("an unresolvable host-function argument is an error, not a crash or a null")
    func unresolvableHostArgument() throws {
        let context = EvaluationContext(computed: ["daysSince"], device: ["daysSince"])
        guard case .failure(let error) = try Program("daysSince(app_install) >= 1").evaluate(context) else {
            Issue.record("expected an error")
            return
        }
        #expect(error.kind == .hostFunction)
        #expect(error.message.contains("app_install"))
    }

    @Test("huge string results are refused")
    func hugeStrings() throws {
        let big = String(repeating: "x", count: 600_000)
        let result = try Program("s + s").evaluate(VariableActivation(["s": .string(big)]))
        guard case .failure(let error) = result else {
            Issue.record("expected an error")
            return
        }
        #expect(error.kind == .budgetExceeded)
    }

    @Test("a long source is refused before lexing")
    func longSource() {
        #expect(throws: CompileError.self) { try Program(String(repeating: "1 + ", count: 30_000) + "1") }
    }
}

extension Result where Success == Value, Failure == EvaluationError {
    static func == (left: Self, right: Self) -> Bool { sameOutcome(left, right) }
}
