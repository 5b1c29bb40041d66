import Foundation
import Rules
import Testing

@Suite("Conformance: google/cel-spec (informational)")
struct CELSpecConformanceTests {
    /// The pass count when this floor was recorded. The dialect departs from the CEL spec on
    /// purpose (Superscript itself passes 304 of 516); a drop below the floor is a regression.
    static let floor = 364

    /// Async and yielding: the suites share a two-thread pool with in-process servers that
    /// must not starve while hundreds of cases run.
    @Test func passCountDoesNotDropBelowTheFloor() async throws {
        let cases = try ConformanceCase.load("cel-spec-cases")
        var passed = 0
        var failures: [String] = []
        for testCase in cases {
            await Task.yield()
            if testCase.run().passes { passed += 1 } else { failures.append(testCase.expr) }
        }
        print("cel-spec conformance: \(passed) of \(cases.count) pass (floor \(Self.floor))")
        if ProcessInfo.processInfo.environment["CEL_SPEC_FAILURES"] != nil {
            for failure in failures { print("  fails: \(failure)") }
        }
        #expect(passed >= Self.floor)
    }
}
