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
