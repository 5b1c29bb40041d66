import Foundation
import Rules
import Testing

/// One case of the conformance data: an expression, its context, and what it must give.
struct ConformanceCase: Decodable, CustomTestStringConvertible, Sendable {
    enum Expectation: Decodable, Sendable {
        case value(Value)
        case error(String)
        /// A value the dialect has no kind for (cel-spec's `type` values).
        case unrepresentable

        private enum CodingKeys: String, CodingKey { case Err }

        init(from decoder: any Decoder) throws {
            let keyed = try decoder.container(keyedBy: CodingKeys.self)
            if let message = try keyed.decodeIfPresent(String.self, forKey: .Err) {
                self = .error(message)
            } else if let value = try? Value(from: decoder) {
                self = .value(value)
            } else {
                self = .unrepresentable
            }
        }
    }

    let expr: String
    let ctx: EvaluationContext
    let expect: Expectation
    let match: Bool?
    let profile: String?
    let name: String?
    let note: String?

    var testDescription: String { expr }

    static func load(_ file: String) throws -> [ConformanceCase] {
        let url = try #require(Bundle.module.url(forResource: file, withExtension: "json", subdirectory: "Fixtures"))
        return try JSONDecoder().decode([ConformanceCase].self, from: Data(contentsOf: url))
    }

    /// The result as the conformance data writes it, and whether it is what the case expects.
    func run() -> (result: Result<Value, RuleError>, passes: Bool) {
        let result = ProgramCache.shared.evaluate(expr, ctx)
        switch (expect, result) {
        case (.value(let expected), .success(let actual)): return (result, expected == actual)
        case (.error, .failure): return (result, true)
        default: return (result, false)
        }
    }
}

let rulesCases = (try? ConformanceCase.load("rules-cases")) ?? []
