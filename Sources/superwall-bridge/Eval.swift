import ArgumentParser
import BridgeServer
import Foundation
import JSONRPC
import Rules

struct Eval: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Evaluate an audience-rule expression and print the result.",
        discussion: """
            Prints {"value": {"type": T, "value": V}} or {"error": {"message": M}} as one JSON line, and exits \
            1 on an error. The context file is a JSON object in the conformance data's form: {"variables": \
            {"user": {"type": "map", "value": {...}}}, "computed": {...}, "device": {...}, "host": {...}}.
            """)

    @Argument(help: "The expression, in Superwall's rules language (Superscript's CEL dialect).")
    var expression: String

    @Option(name: .long, help: "A JSON file holding the context; - reads it from stdin.")
    var context: String?

    func run() throws {
        var contextJSON: JSONValue?
        if let context {
            // FileHandle rather than Data(contentsOf:), which cannot read pipes such as <(...).
            guard let file = context == "-" ? FileHandle.standardInput : FileHandle(forReadingAtPath: context) else {
                throw ValidationError("Cannot open the context file \(context).")
            }
            let data = file.readDataToEndOfFile()
            do {
                contextJSON = try data.withUnsafeBytes { bytes throws(JSONSyntaxError) in try JSONDecoding.decode(bytes) }
            } catch {
                throw ValidationError("The context file is not JSON: \(error)")
            }
        }
        let evaluationContext: EvaluationContext
        do {
            evaluationContext = try ExpressionEvaluation.context(from: contextJSON)
        } catch {
            throw ValidationError("Invalid context: \(error)")
        }
        let result = ExpressionEvaluation.evaluate(expression, in: evaluationContext)
        print(String(decoding: JSONWriter.encode(result), as: UTF8.self))
        if case .object(let members) = result, members["error"] != nil { throw ExitCode(1) }
    }
}

