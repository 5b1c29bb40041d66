import ArgumentParser
import BridgeServer
import Foundation
import JSONRPC
import Rules
import SuperwallCore

struct Eval: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Evaluate an audience-rule expression and print the result.",
        discussion: """
            Prints {"value": {"type": T, "value": V}} or {"error": {"message": M}} as one JSON line, and exits \
            1 on an error. The context file is a JSON object in the conformance data's form: {"variables": \
            {"user": {"type": "map", "value": {...}}}, "computed": {...}, "device": {...}, "host": {...}}.
            """
    )

    /// Unrecognised words are the expression's, so one that starts with `-` (`-1 + 2`) needs no `--`.
    @Argument(
        parsing: .allUnrecognized,
        help: "The expression, in Superwall's rules language (Superscript's CEL dialect)."
    )
    var expression: [String] = []

    @Option(
        name: .long,
        help: "A JSON file holding the context (plain JSON, or the typed form with variables); - reads it from stdin."
    )
    var context: String?

    /// The largest context read.
    static let maximumContextSize = 16 * 1024 * 1024

    func validate() throws {
        guard !expression.isEmpty else { throw ValidationError("Missing expected argument '<expression>'.") }
    }

    func run() throws {
        var contextJSON: JSONValue?
        if let context {
            let data: Data
            if context == "-" {
                data = FileHandle.standardInput.readData(ofLength: Self.maximumContextSize + 1)
                guard data.count <= Self.maximumContextSize else {
                    throw ValidationError("The context on stdin is over the limit of \(Self.maximumContextSize) bytes.")
                }
            } else {
                do {
                    data = try LocalFile.read(context, atMost: Self.maximumContextSize)
                } catch {
                    throw ValidationError("Cannot open the context file \(context): \(error.reason).")
                }
            }
            do {
                contextJSON = try data.withUnsafeBytes { bytes throws(JSONSyntaxError) in try JSONDecoding.decode(bytes)
                }
            } catch let error as JSONSyntaxError {
                throw ValidationError("The context file is not JSON: \(error.positionedReason)")
            }
        }
        let evaluationContext: EvaluationContext
        do {
            evaluationContext = try ExpressionEvaluation.context(from: contextJSON)
        } catch {
            throw ValidationError("Invalid context: \(error)")
        }
        let result = ExpressionEvaluation.evaluate(expression.joined(separator: " "), in: evaluationContext)
        print(String(decoding: JSONWriter.encode(result), as: UTF8.self))
        if case .object(let members) = result, members["error"] != nil { throw ExitCode(1) }
    }
}
