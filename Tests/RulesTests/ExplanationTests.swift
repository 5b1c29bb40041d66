import Rules
import Testing

@Suite struct ExplanationTests {
    private func context(_ user: [String: Value]) -> EvaluationContext {
        EvaluationContext(variables: ["user": .map(ValueMap(user))])
    }

    @Test func everyNodeOfTheSourceCarriesTheValueItTook() throws {
        let explanation = try Program.explain(
            #"user.plan == "pro" && user.age >= 18"#,
            context(["plan": .string("pro"), "age": .int(20)])
        )
        #expect(explanation.matches)
        #expect(explanation.trace.text == #"user.plan == "pro" && user.age >= 18"#)
        #expect(explanation.trace.outcome == .value(.bool(true)))
        let (plan, age) = (explanation.trace.children[0], explanation.trace.children[1])
        #expect(plan.text == #"user.plan == "pro""#)
        #expect(plan.children.map(\.text) == ["user.plan", #""pro""#])
        #expect(plan.children[0].outcome == .value(.string("pro")))
        #expect(age.outcome == .value(.bool(true)))
        #expect(age.children[0].outcome == .value(.int(20)))
    }

    @Test func theOperandAShortCircuitSkipsIsMarkedNotEvaluated() throws {
        let explanation = try Program.explain(
            #"user.plan == "pro" || user.age >= 18"#,
            context(["plan": .string("pro")])
        )
        #expect(explanation.result == .success(.bool(true)))
        #expect(explanation.trace.children[0].outcome == .value(.bool(true)))
        #expect(explanation.trace.children[1].outcome == .notEvaluated)
        #expect(explanation.trace.children[1].children.allSatisfy { $0.outcome == .notEvaluated })
    }

    @Test func theBranchNotTakenIsMarkedNotEvaluated() throws {
        let explanation = try Program.explain("user.age > 18 ? 1 : 2", context(["age": .int(30)]))
        #expect(explanation.result == .success(.int(1)))
        #expect(explanation.trace.children.map(\.outcome) == [.value(.bool(true)), .value(.int(1)), .notEvaluated])
    }

    @Test func aMissingAttributeShowsAsAnErrorAtTheMemberWhileTheRuleReadsItsDefault() throws {
        let explanation = try Program.explain("user.age > 18", context([:]))
        #expect(explanation.result == .success(.bool(false)))
        let member = explanation.trace.children[0]
        #expect(member.text == "user.age")
        guard case .error(let error) = member.outcome else {
            Issue.record("expected an error at user.age")
            return
        }
        #expect(error.kind == .noSuchKey)
        #expect(explanation.trace.outcome == .value(.bool(false)))
    }

    @Test func aTypeMismatchShowsAtTheNodeWhereItHappenedAndAbove() throws {
        let explanation = try Program.explain(#"1 + user.name > 2 || false"#, context(["name": .string("x")]))
        guard case .failure(let error) = explanation.result else {
            Issue.record("expected the rule to fail")
            return
        }
        let relation = explanation.trace.children[0]
        let sum = relation.children[0]
        #expect(sum.text == "1 + user.name")
        #expect(sum.outcome == .error(error))
        #expect(sum.children.map(\.outcome) == [.value(.int(1)), .value(.string("x"))])
        #expect(relation.outcome == .error(error))
        #expect(explanation.trace.children[1].outcome == .notEvaluated)
    }

    @Test func aMacroBodyCountsItsEvaluations() throws {
        let explanation = try Program.explain("[1, 2, 3].exists(x, x > 2)", EvaluationContext())
        #expect(explanation.result == .success(.bool(true)))
        let body = explanation.trace.children[1]
        #expect(body.text == "x > 2")
        #expect(body.evaluations == 3)
        #expect(body.outcome == .value(.bool(true)))
    }

    @Test func printingKeepsOnlyTheParenthesesPrecedenceNeeds() throws {
        let source = #"(a + b) * c == 1 && !(d || e) ? f.g(1, "s") : [1, 2.5, -3][0]"#
        let explanation = try Program.explain(source, EvaluationContext())
        #expect(explanation.trace.text == source)
    }

    @Test(arguments: (try? ConformanceCase.load("rules-cases")) ?? [])
    func theExplainedResultIsTheEvaluatedOne(_ testCase: ConformanceCase) throws {
        let evaluated = ProgramCache.shared.evaluate(testCase.expr, testCase.ctx)
        let explained = Result { () throws(CompileError) in try Program.explain(testCase.expr, testCase.ctx) }
        switch (evaluated, explained) {
        case (.failure(.compile), .failure): break
        case (.success(let value), .success(let explanation)): #expect(explanation.result == .success(value))
        case (.failure(.evaluation(let error)), .success(let explanation)):
            #expect(explanation.result == .failure(error))
        default: Issue.record("evaluate gave \(evaluated), explain \(explained)")
        }
    }

    @Test(arguments: (try? ConformanceCase.load("cel-spec-cases")) ?? [])
    func theExplainedResultIsTheEvaluatedOneOnCelSpecCases(_ testCase: ConformanceCase) throws {
        try theExplainedResultIsTheEvaluatedOne(testCase)
    }
}

/// What an explanation costs: linear in the rule, whatever its shape.
@Suite struct ExplanationBoundTests {
    /// `user.f1.f2….fK`, and a user holding that chain with `1` at its end.
    private func chain(_ depth: Int) -> (rule: String, context: EvaluationContext) {
        let fields = (1...depth).map { "f\($0)" }
        var value = Value.int(1)
        for field in fields.dropFirst().reversed() { value = .map(ValueMap([field: value])) }
        let user = ValueMap([fields[0]: value])
        return ("user." + fields.joined(separator: ".") + " == 1", EvaluationContext(variables: ["user": .map(user)]))
    }

    private func nodes(_ trace: ExpressionTrace) -> Int {
        1 + trace.children.reduce(0) { $0 + nodes($1) }
    }

    private func evaluations(_ trace: ExpressionTrace) -> [Int] {
        [trace.evaluations] + trace.children.flatMap(evaluations)
    }

    @Test func aMemberChainIsExplainedOnceAMemberWithEveryMemberEvaluatedOnce() throws {
        // Each member of the chain doubled the explaining program: 2^24 nodes took gigabytes.
        let (rule, context) = chain(200)
        let explanation = try Program.explain(rule, context)
        #expect(explanation.result == .success(.bool(true)))
        #expect(nodes(explanation.trace) == 200 + 3)
        #expect(evaluations(explanation.trace).allSatisfy { $0 == 1 }, "\(evaluations(explanation.trace))")
        #expect(try Program(rule).evaluate(context) == .success(.bool(true)))
    }

    @Test func aMissingMemberDeepInAChainStillShowsWhereTheChainBroke() throws {
        let (rule, _) = chain(30)
        let explanation = try Program.explain(rule, EvaluationContext(variables: ["user": .map(ValueMap([:]))]))
        #expect(explanation.result == .success(.bool(false)))
        var node = explanation.trace.children[0]
        while let first = node.children.first, first.text != "user" { node = first }
        #expect(node.text == "user.f1")
        guard case .error(let error) = node.outcome else {
            Issue.record("expected an error at user.f1, found \(node.outcome)")
            return
        }
        #expect(error.kind == .noSuchKey)
    }

    @Test func numericStringComparisonsNestedInsideEachOtherStayLinear() throws {
        // `"1" == ("1" == (…))`: each level wrote its other side twice.
        var rule = "user.n"
        for _ in 0..<60 { rule = "\"1\" == (\(rule))" }
        let context = EvaluationContext(variables: ["user": .map(ValueMap(["n": .int(1)]))])
        #expect(try Program(rule).evaluate(context) == Program.explain(rule, context).result)
    }

    @Test func anExplanationShowsAtMostItsNodeLimitAndCountsWhatItLeftOut() throws {
        let terms = 3_000
        let rule = "size([" + (0..<terms).map { "user.a\($0)" }.joined(separator: ", ") + "]) == \(terms)"
        let explanation = try Program.explain(rule, EvaluationContext(variables: ["user": .map(ValueMap([:]))]))
        #expect(explanation.result == .success(.bool(true)))
        func omitted(_ trace: ExpressionTrace) -> Int {
            trace.omittedNodes + trace.children.reduce(0) { $0 + omitted($1) }
        }
        let shown = nodes(explanation.trace)
        #expect(shown <= ExpressionTrace.maximumNodes)
        // The relation, the call, the list and the literal, and each member with its variable.
        #expect(shown + omitted(explanation.trace) == terms * 2 + 4)
        #expect(explanation.trace.text.utf8.count <= ExpressionTrace.textLimit + " …".utf8.count)
        #expect(explanation.trace.text.hasSuffix(" …"))
    }
}

/// A rule's value never depends on the order in which a map's keys are hashed.
@Suite struct MapOrderTests {
    private let counts = EvaluationContext(variables: [
        "user": .map(ValueMap(["counts": .map(ValueMap(["x": .int(5), "y": .string("n/a"), "z": .int(7)]))]))
    ])

    @Test func existsIsTrueWhenAnyElementIsTrueWhateverTheOthersRaise() throws {
        #expect(try Program("user.counts.exists(k, user.counts[k] > 3)").evaluate(counts) == .success(.bool(true)))
        #expect(try Program("['n/a', 5].exists(x, x > 3)").evaluate(counts) == .success(.bool(true)))
        // No element decides: the error is the rule's.
        guard case .failure = try Program("['n/a', 1].exists(x, x > 3)").evaluate(counts) else {
            Issue.record("expected an error when no element is true")
            return
        }
    }

    @Test func allIsFalseWhenAnyElementIsFalseWhateverTheOthersRaise() throws {
        #expect(try Program("user.counts.all(k, user.counts[k] > 6)").evaluate(counts) == .success(.bool(false)))
        #expect(try Program("['n/a', 1].all(x, x > 3)").evaluate(counts) == .success(.bool(false)))
        guard case .failure = try Program("['n/a', 5].all(x, x > 3)").evaluate(counts) else {
            Issue.record("expected an error when no element is false")
            return
        }
    }

    @Test func aMapsKeysAreIteratedInOneOrder() throws {
        let keys = try Program("{'b': 1, 2: 0, 'a': 2, true: 3, 1u: 4, -1: 5}.map(k, k)").evaluate(counts)
        #expect(keys == .success(.list([.bool(true), .int(-1), .int(2), .uint(1), .string("a"), .string("b")])))
    }

    @Test func theExplanationAgreesWithTheDecisionOverAMap() throws {
        let rule = "{'k': 1, 11u: 21}.exists(k, k >= 2)"
        #expect(try Program(rule).evaluate(counts) == Program.explain(rule, counts).result)
        #expect(try Program(rule).evaluate(counts) == .success(.bool(true)))
    }
}
