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

    /// Repetitions of what emits no instruction (`1{0}` repeated 990 × 990 × 999 times) ran a
    /// billion compile steps, 13 s in the release build, without ever reaching the instruction
    /// bound: a pattern is refused once its compilation has emitted 100,000 nodes.
    @Test func aPatternThatRepeatsNothingABillionTimesIsRefusedAtOnce() throws {
        #expect(throws: EvaluationError.self) { try RegularExpression(#"\b01{00}{0990}{0990}{0999}0}{0999}"#) }
        #expect(throws: EvaluationError.self) { try RegularExpression("(a{0}b{0}){990}{990}{999}") }
        #expect(try RegularExpression("(a{0}){990}").matches("x"))
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

/// An evaluation is bounded in what its operations touch, not only in its steps, and stops
/// when its task is cancelled.
@Suite struct WorkBudgetTests {
    private let big = VariableActivation(["big": .string(String(repeating: "a", count: 512 * 1024))])

    private func budgetError(_ source: String, _ activation: VariableActivation) throws -> EvaluationError? {
        guard case .failure(let error) = try Program(source).evaluate(activation) else { return nil }
        return error
    }

    @Test func aRuleThatMakesANewLargeStringEachStepStopsAtTheWorkBudget() throws {
        // Each step keeps a new 512 KiB string: 1,000 of them would be half a gigabyte.
        let rule = "size([" + (1...1_000).map(String.init).joined(separator: ",") + "].map(x, big + string(x))) > 0"
        let error = try #require(try budgetError(rule, big))
        #expect(error.kind == .budgetExceeded)
        #expect(error.message.contains("MiB of work"))
    }

    @Test func manySearchesOfALargeStringStopAtTheWorkBudget() throws {
        let rule = (0..<200).map { "big.contains('b\($0)')" }.joined(separator: " || ")
        let error = try #require(try budgetError(rule, big))
        #expect(error.kind == .budgetExceeded)
        // Forty searches of it are well within the budget.
        let fewer = (0..<40).map { "big.contains('b\($0)')" }.joined(separator: " || ")
        #expect(try Program(fewer).evaluate(big) == .success(.bool(false)))
    }

    @Test func anEvaluationWhoseTaskIsCancelledStops() async throws {
        let program = try Program(
            "size([1,2,3,4,5,6,7,8,9,10].map(a, [1,2,3,4,5,6,7,8,9,10].map(b, [1,2,3,4,5,6,7,8,9,10].map(c, [1,2,3,4,5,6,7,8,9,10].map(d, 1))))) > 0"
        )
        let cancelled = Task {
            withUnsafeCurrentTask { $0?.cancel() }
            return program.evaluate(VariableActivation())
        }
        guard case .failure(let error) = await cancelled.value else {
            Issue.record("expected the cancelled evaluation to stop")
            return
        }
        #expect(error.message == "The evaluation was cancelled")
        #expect(program.evaluate(VariableActivation()) == .success(.bool(true)))
    }

    @Test func aSearchFindsBytesAsRustDoesAndStaysLinear() throws {
        // A needle that almost matches at every start: a quadratic search would take minutes.
        let text = String(repeating: "a", count: 200_000) + "b"
        let needle = String(repeating: "a", count: 100_000) + "b"
        let activation = VariableActivation(["text": .string(text), "needle": .string(needle)])
        #expect(try Program("text.contains(needle)").evaluate(activation) == .success(.bool(true)))
        // By bytes: a precomposed é is not e with a combining accent.
        let accents = VariableActivation(["text": .string("caf\u{E9}"), "needle": .string("e\u{301}")])
        #expect(try Program("text.contains(needle)").evaluate(accents) == .success(.bool(false)))
        #expect(try Program("'x-e\u{301}-y'.contains('e\u{301}')").evaluate(accents) == .success(.bool(true)))
    }

    @Test func wordBoundariesHoldForLettersOfEveryScript() throws {
        #expect(value(#"'café au lait'.matches('é\\b')"#) == .bool(true))
        #expect(value(#"'naïve'.matches('a\\Bï')"#) == .bool(true))
        #expect(value(#"'naïve'.matches('a\\bï')"#) == .bool(false))
        #expect(value(#"'snake_case'.matches('e\\b')"#) == .bool(true))
        #expect(value(#"'snake_case'.matches('e\\b_')"#) == .bool(false))
    }
}
