import Foundation
import Rules
import Testing

@Suite("Conformance: Superscript's own cases")
struct SuperscriptConformanceTests {
    @Test func theDataLoads() {
        #expect(rulesCases.count == 134)
    }

    @Test(
        "every superscript case gives exactly its expected result",
        arguments: rulesCases.filter { $0.profile == "superscript" }
    )
    func superscriptCase(_ testCase: ConformanceCase) {
        let (result, passes) = testCase.run()
        #expect(passes, "\(testCase.expr) gave \(result), expected \(testCase.expect)")
        if let match = testCase.match {
            let program = try? Program(testCase.expr)
            #expect(program?.matches(testCase.ctx) ?? false == match)
        }
    }

    @Test("robustness cases are errors, never crashes", arguments: rulesCases.filter { $0.profile == "robustness" })
    func robustnessCase(_ testCase: ConformanceCase) {
        guard case .failure = testCase.run().result else {
            Issue.record("\(testCase.expr) should be an error")
            return
        }
    }

    /// The legacy engine surfaced errors that Superscript turns into null or false; the
    /// bridge follows Superscript, so these cases must *not* give the legacy errors.
    @Test(
        "legacy cel-evaluator-rs cases give Superscript's answer instead",
        arguments: rulesCases.filter { $0.profile == "legacy-cel-evaluator-rs" }
    )
    func legacyCase(_ testCase: ConformanceCase) {
        guard case .success(let value) = testCase.run().result else {
            Issue.record("\(testCase.expr) should not be an error under Superscript")
            return
        }
        #expect(value != .bool(true))
    }
}
