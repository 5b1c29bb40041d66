import Testing

@testable import Rules

/// A deterministic generator, so a failure names a seed that reproduces it.
struct SplitMix64: RandomNumberGenerator {
    var state: UInt64
    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}

/// Random expressions from the grammar, over the names an SDK context has.
struct ExpressionGenerator {
    var random: SplitMix64

    private mutating func pick<T>(_ options: [T]) -> T {
        options[Int(random.next() % UInt64(options.count))]
    }

    mutating func literal() -> String {
        pick([
            "0", "1", "-1", "42", "3u", "0u", "1.5", "-0.0", "1e300", "9223372036854775807",
            "'a'", "''", "'true'", "'42'", "'1.5'", "\"x y\"", "b'\\xff'", "true", "false", "null",
            "[1, 'a', 2.0]", "[]", "{'k': 1}", "{}", "timestamp('2024-01-01T00:00:00Z')", "duration('1h')",
        ])
    }

    mutating func reference() -> String {
        pick([
            "user.credits", "user.plan", "user.missing", "user.tags", "user.nested.deep", "device.platform",
            "device.activeEntitlements", "device.daysSince('app_open')", "computed.placementsInDay('x')",
            "device.unknownFn('x')", "params.source", "params", "undeclared", "x", "device.appVersion",
        ])
    }

    mutating func expression(depth: Int = 0) -> String {
        if depth > 4 { return random.next() % 2 == 0 ? literal() : reference() }
        let next = depth + 1
        switch random.next() % 14 {
        case 0: return literal()
        case 1: return reference()
        case 2:
            return
                "\(expression(depth: next)) \(pick(["==", "!=", "<", "<=", ">", ">=", "in"])) \(expression(depth: next))"
        case 3: return "\(expression(depth: next)) \(pick(["+", "-", "*", "/", "%"])) \(expression(depth: next))"
        case 4: return "\(expression(depth: next)) \(pick(["&&", "||"])) \(expression(depth: next))"
        case 5: return "\(pick(["!", "-"]))\(expression(depth: next))"
        case 6: return "(\(expression(depth: next)) ? \(expression(depth: next)) : \(expression(depth: next)))"
        case 7:
            return
                "\(pick(["size", "int", "uint", "double", "string", "bytes", "timestamp", "duration", "has", "max", "hasFn"]))(\(expression(depth: next)))"
        case 8:
            return
                "\(expression(depth: next)).\(pick(["contains", "startsWith", "endsWith", "matches", "maybe"]))(\(expression(depth: next)))"
        case 9:
            return
                "\(expression(depth: next)).\(pick(["all", "exists", "exists_one", "map", "filter"]))(x, \(expression(depth: next)))"
        case 10: return "\(expression(depth: next))[\(expression(depth: next))]"
        case 11: return "[\(expression(depth: next)), \(expression(depth: next))]"
        case 12: return "{\(expression(depth: next)): \(expression(depth: next))}"
        default:
            return "\(expression(depth: next)).\(pick(["a", "plan", "credits", "intToString()", "floatToString()"]))"
        }
    }

    /// A valid expression with a few characters deleted, duplicated or replaced.
    mutating func mutated() -> String {
        var scalars = Array(expression().unicodeScalars)
        for _ in 0..<(1 + random.next() % 4) where !scalars.isEmpty {
            let index = Int(random.next() % UInt64(scalars.count))
            switch random.next() % 3 {
            case 0: scalars.remove(at: index)
            case 1: scalars.insert(scalars[index], at: index)
            default: scalars[index] = pick(Array("()[]{}.,'\"\\!-?:0x9u".unicodeScalars))
            }
        }
        var text = ""
        text.unicodeScalars.append(contentsOf: scalars)
        return text
    }
}

/// Two SDK-shaped contexts that differ in every attribute.
let contexts: [EvaluationContext] = [
    EvaluationContext(
        variables: [
            "user": .map(
                ValueMap([
                    "credits": .int(5), "plan": .string("free"), "tags": .list([.string("a")]),
                    "nested": .map(ValueMap(["deep": .double(1.5)])),
                ])
            ),
            "device": .map(
                ValueMap([
                    "platform": .string("iOS"), "appVersion": .string("1.2.3"),
                    "activeEntitlements": .list([.string("pro")]),
                ])
            ),
            "params": .map(ValueMap(["source": .string("settings")])),
        ],
        computed: Set(PlacementFunction.allCases.map(\.rawValue)),
        device: Set(PlacementFunction.allCases.map(\.rawValue)),
        answers: ["daysSince": .int(3), "placementsInDay": .uint(7)]
    ),
    EvaluationContext(
        variables: [
            "user": .map(ValueMap([:])), "device": .map(ValueMap(["platform": .string("Android")])),
            "params": .string(""), "x": .string("true"),
        ]),
]

/// Results compared as values, and errors by message.
func sameOutcome(_ left: Result<Value, EvaluationError>, _ right: Result<Value, EvaluationError>) -> Bool {
    switch (left, right) {
    case (.success(let l), .success(let r)): l == r
    case (.failure(let l), .failure(let r)): l.message == r.message
    default: false
    }
}

/// The loops are async and yield each round: the suites share a two-thread pool with
/// in-process servers that must not starve while thousands of expressions run.
@Suite struct PropertyTests {
    @Test("random expressions never crash, and a program compiled once answers as one compiled each time")
    func compiledOnceEqualsCompiledEachTime() async {
        var generator = ExpressionGenerator(random: SplitMix64(state: 20_261_122))
        var evaluated = 0
        for _ in 0..<3000 {
            await Task.yield()
            let source = generator.expression()
            guard let once = try? Program(source) else { continue }
            for context in contexts {
                let fresh = (try? Program(source))?.evaluate(context)
                #expect(fresh.map { sameOutcome(once.evaluate(context), $0) } == true, "\(source)")
                evaluated += 1
            }
        }
        #expect(evaluated > 3000)
    }

    @Test("the optimised program answers exactly as the plain lowering of the same tree")
    func optimisationsChangeNothing() async throws {
        var generator = ExpressionGenerator(random: SplitMix64(state: 7))
        for _ in 0..<3000 {
            await Task.yield()
            let source = generator.expression()
            guard let optimised = try? Program(source, optimize: true) else { continue }
            let plain = try Program(source, optimize: false)
            for context in contexts {
                #expect(sameOutcome(optimised.evaluate(context), plain.evaluate(context)), "\(source)")
            }
        }
    }

    @Test("mangled expressions compile or fail cleanly, and never crash when evaluated")
    func mangledInput() async {
        var generator = ExpressionGenerator(random: SplitMix64(state: 99))
        var compiled = 0
        for _ in 0..<5000 {
            await Task.yield()
            let source = generator.mutated()
            guard let program = try? Program(source) else { continue }
            compiled += 1
            for context in contexts { _ = program.evaluate(context) }
        }
        #expect(compiled > 0)
    }

    @Test("random bytes never crash the lexer or parser")
    func randomBytes() async {
        var random = SplitMix64(state: 5)
        for _ in 0..<3000 {
            await Task.yield()
            let length = Int(random.next() % 40)
            let bytes = (0..<length).map { _ in UInt8(truncatingIfNeeded: random.next()) }
            _ = try? Program(String(decoding: bytes, as: UTF8.self))
        }
    }
}

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

@Suite struct ProgramCacheTests {
    @Test("one cache serves concurrent evaluations: each source compiles once and every answer is right")
    func concurrentEvaluations() async {
        let cache = ProgramCache()
        let sources = (0..<40).map { "user.credits + \($0) == \(5 + $0)" }
        let context = contexts[0]
        let wrong = await withTaskGroup(of: Int.self) { group in
            for worker in 0..<8 {
                group.addTask {
                    var wrong = 0
                    for round in 0..<200 {
                        let source = sources[(worker * 7 + round) % sources.count]
                        if case .success(.bool(true)) = cache.evaluate(source, context) {} else { wrong += 1 }
                        if round % 20 == 0 { await Task.yield() }
                    }
                    return wrong
                }
            }
            return await group.reduce(0, +)
        }
        #expect(wrong == 0)
        #expect(cache.count == sources.count)
    }

    @Test("a source that does not compile is cached as its error, and the cache stays bounded")
    func failuresAndCapacity() {
        let cache = ProgramCache(capacity: 3)
        guard case .failure(.compile) = cache.evaluate("1 +", contexts[0]) else {
            Issue.record("expected a compile error")
            return
        }
        for number in 0..<10 { _ = cache.evaluate("\(number) == \(number)", contexts[0]) }
        #expect(cache.count == 3)
    }

    @Test("a rule matches only what evaluates to exactly true, keeps its program, and a broken rule matches nothing")
    func rulesKeepTheirPrograms() throws {
        let rule = Rule("user.credits == 5")
        let first = try rule.program.get()
        #expect(rule.matches(contexts[0]))
        #expect(try rule.program.get().source == first.source)
        #expect(!Rule("user.credits").matches(contexts[0]))
        #expect(!Rule("1 +").matches(contexts[0]))
        #expect(Rule("a == 1") == Rule("a == 1") && Rule("a == 1") != Rule("a == 2"))
    }
}

@Suite struct RuleTextTests {
    @Test func aRuleThatNamesMatchesIsKnownFromItsText() {
        #expect(Rule(#"user.email.matches("@example\\.com$")"#).mayCallMatches)
        #expect(Rule("matches(user.name, '^A')").mayCallMatches)
        #expect(!Rule("user.plan == 'pro' && device.daysSince(app_install) > 3").mayCallMatches)
        #expect(!Rule("").mayCallMatches)
        #expect(!Rule("match").mayCallMatches)
    }
}
