/// How an expression came to its value: its source tree, each node with the value it took,
/// the error it raised, or that it was never evaluated (the other side of a short-circuit).
public struct ExpressionTrace: Sendable, Equatable {
    public enum Outcome: Sendable, Equatable {
        case value(Value)
        case error(EvaluationError)
        /// Short-circuited, or inside a branch that was not taken.
        case notEvaluated
    }

    /// The node as source text (printed from the tree, so spacing is normalised).
    public var text: String
    public var outcome: Outcome
    /// How many times the node was evaluated: more than once inside a macro (`exists`, `all`),
    /// where `outcome` is the last iteration's.
    public var evaluations: Int
    public var children: [ExpressionTrace]
}

/// A rule's value, as `Program.evaluate` gives it, with the trace of its source.
public struct RuleExplanation: Sendable, Equatable {
    public var result: Result<Value, EvaluationError>
    public var trace: ExpressionTrace

    /// Whether the rule matches, as an audience reads it: only exactly `true` does.
    public var matches: Bool {
        if case .success(.bool(true)) = result { return true }
        return false
    }
}

extension Program {
    /// Evaluates `source` as `Program.evaluate` does, recording every source node's value.
    /// Slower than a plain evaluation (nothing is fused, every node reports): for tools, not
    /// for the presentation path.
    public static func explain(_ source: String, _ activation: any Activation) throws(CompileError) -> RuleExplanation {
        var numbers = 0
        let (marked, shape) = SourceShape.mark(try Parser.parse(source), next: &numbers)
        var compiler = Compiler(optimize: false)
        let root = try compiler.lower(SuperscriptRewrite.apply(marked))
        let recorder = TraceRecorder(count: numbers)
        var frame = Frame(activation: activation, localSlots: compiler.slotCount)
        frame.trace = recorder
        let result: Result<Value, EvaluationError>
        do {
            result = .success(try root.evaluate(&frame))
        } catch  where error.becomesNullResult {
            result = .success(.null)
        } catch {
            result = .failure(error)
        }
        return RuleExplanation(result: result, trace: shape.trace(from: recorder))
    }
}

/// What the marked nodes gave during one evaluation, by number.
final class TraceRecorder {
    private struct Entry {
        var value: Value?
        var error: EvaluationError?
        var evaluations = 0
    }

    private var entries: [Entry]
    /// How many probes are under way: values read inside one are not evaluations.
    var probes = 0

    init(count: Int) {
        entries = Array(repeating: Entry(), count: count)
    }

    func record(_ number: Int, _ outcome: Result<Value, EvaluationError>) {
        if case .success = outcome, probes > 0 { return }
        entries[number].evaluations += 1
        switch outcome {
        case .success(let value): entries[number].value = value
        case .failure(let error): entries[number].error = error
        }
    }

    /// A node that raised an error shows it even when it later gave a value: a member that is
    /// missing fails inside `has()` and is then read as the rule's default.
    func outcome(of number: Int) -> (ExpressionTrace.Outcome, evaluations: Int) {
        let entry = entries[number]
        if let error = entry.error { return (.error(error), entry.evaluations) }
        if let value = entry.value { return (.value(value), entry.evaluations) }
        return (.notEvaluated, 0)
    }
}

/// Records a marked node's value or error, and passes both on unchanged. A probe
/// (`isEvaluation` false) records only an error.
final class Traced: Node {
    let number: Int
    let inner: any Node
    let isEvaluation: Bool

    init(number: Int, inner: any Node, isEvaluation: Bool) {
        self.number = number
        self.inner = inner
        self.isEvaluation = isEvaluation
    }

    func evaluate(_ frame: inout Frame) throws(EvaluationError) -> Value {
        if !isEvaluation { frame.trace?.probes += 1 }
        defer { if !isEvaluation { frame.trace?.probes -= 1 } }
        do {
            let value = try inner.evaluate(&frame)
            frame.trace?.record(number, .success(value))
            return value
        } catch {
            frame.trace?.record(number, .failure(error))
            throw error
        }
    }
}

/// The source tree of an expression, numbered in pre-order, as the explanation shows it.
struct SourceShape {
    let number: Int
    let text: String
    let children: [SourceShape]

    private static let comprehensions: Set<String> = ["all", "exists", "exists_one", "map", "filter"]

    /// `expression` with every node marked, and its shape.
    static func mark(_ expression: Expr, next: inout Int) -> (Expr, SourceShape) {
        let number = next
        next += 1
        var children: [SourceShape] = []
        func child(_ expression: Expr) -> Expr {
            let (marked, shape) = mark(expression, next: &next)
            children.append(shape)
            return marked
        }
        let marked: Expr
        switch expression {
        case .literal, .identifier, .traced, .probed:
            marked = expression
        case .select(let operand, let field):
            marked = .select(child(operand), field)
        case .index(let operand, let index):
            marked = .index(child(operand), child(index))
        case .call(let name, let target, let arguments):
            let markedTarget = target.map(child)
            // A macro's first argument names its variable: it is not evaluated.
            let declaresVariable = target != nil && comprehensions.contains(name)
            let markedArguments = arguments.enumerated().map { position, argument in
                declaresVariable && position == 0 ? argument : child(argument)
            }
            marked = .call(name, target: markedTarget, markedArguments)
        case .list(let elements):
            marked = .list(elements.map(child))
        case .map(let entries):
            marked = .map(entries.map { Expr.MapEntry(key: child($0.key), value: child($0.value)) })
        case .message(let name, let entries):
            marked = .message(name, entries)
        case .not(let operand):
            marked = .not(child(operand))
        case .negate(let operand):
            marked = .negate(child(operand))
        case .arithmetic(let operation, let left, let right):
            marked = .arithmetic(operation, child(left), child(right))
        case .relation(let relation, let left, let right):
            marked = .relation(relation, child(left), child(right))
        case .and(let left, let right):
            marked = .and(child(left), child(right))
        case .or(let left, let right):
            marked = .or(child(left), child(right))
        case .conditional(let condition, let then, let otherwise):
            marked = .conditional(child(condition), child(then), child(otherwise))
        }
        return (
            .traced(number, marked),
            SourceShape(number: number, text: ExpressionPrinter.text(of: expression), children: children)
        )
    }

    func trace(from recorder: TraceRecorder) -> ExpressionTrace {
        let (outcome, evaluations) = recorder.outcome(of: number)
        return ExpressionTrace(
            text: text,
            outcome: outcome,
            evaluations: evaluations,
            children: children.map { $0.trace(from: recorder) }
        )
    }
}

/// Prints a syntax tree back as CEL source, with only the parentheses precedence needs.
enum ExpressionPrinter {
    static func text(of expression: Expr) -> String {
        render(expression, within: 0)
    }

    /// Binding strength, loosest first: `?:`, `||`, `&&`, relations, `+ -`, `* / %`, unary,
    /// member access and calls, primaries.
    private static func precedence(of expression: Expr) -> Int {
        switch expression {
        case .conditional: 0
        case .or: 1
        case .and: 2
        case .relation: 3
        case .arithmetic(let operation, _, _): operation == .add || operation == .subtract ? 4 : 5
        case .not, .negate: 6
        case .select, .index, .call: 7
        case .literal, .identifier, .list, .map, .message: 8
        case .traced(_, let inner), .probed(_, let inner): precedence(of: inner)
        }
    }

    private static func render(_ expression: Expr, within context: Int) -> String {
        let own = precedence(of: expression)
        let text: String
        switch expression {
        case .literal(let value): text = literal(value)
        case .identifier(let name): text = name
        case .select(let operand, let field): text = "\(render(operand, within: 7)).\(field)"
        case .index(let operand, let index): text = "\(render(operand, within: 7))[\(render(index, within: 0))]"
        case .call(let name, let target, let arguments):
            let list = arguments.map { render($0, within: 0) }.joined(separator: ", ")
            text = (target.map { "\(render($0, within: 7))." } ?? "") + "\(name)(\(list))"
        case .list(let elements): text = "[" + elements.map { render($0, within: 0) }.joined(separator: ", ") + "]"
        case .map(let entries):
            text =
                "{"
                + entries.map { "\(render($0.key, within: 0)): \(render($0.value, within: 0))" }.joined(separator: ", ")
                + "}"
        case .message(let name, let entries):
            text =
                "\(name){"
                + entries.map { "\(render($0.key, within: 0)): \(render($0.value, within: 0))" }.joined(separator: ", ")
                + "}"
        case .not(let operand): text = "!" + render(operand, within: 6)
        case .negate(let operand): text = "-" + render(operand, within: 6)
        // Binary operators associate to the left: a right operand of the same strength keeps
        // its parentheses.
        case .arithmetic(let operation, let left, let right):
            text = "\(render(left, within: own)) \(operation.rawValue) \(render(right, within: own + 1))"
        case .relation(let relation, let left, let right):
            text = "\(render(left, within: own)) \(relation.rawValue) \(render(right, within: own + 1))"
        case .and(let left, let right): text = "\(render(left, within: 2)) && \(render(right, within: 3))"
        case .or(let left, let right): text = "\(render(left, within: 1)) || \(render(right, within: 2))"
        case .conditional(let condition, let then, let otherwise):
            text = "\(render(condition, within: 1)) ? \(render(then, within: 1)) : \(render(otherwise, within: 0))"
        case .traced(_, let inner), .probed(_, let inner): return render(inner, within: context)
        }
        return own < context ? "(\(text))" : text
    }

    /// A value as a CEL literal would write it.
    static func literal(_ value: Value) -> String {
        switch value {
        case .null: return "null"
        case .bool(let value): return value ? "true" : "false"
        case .int(let value): return String(value)
        case .uint(let value): return "\(value)u"
        case .double(let value):
            let text = NumberFormatting.rustDisplay(value)
            return text.contains(".") || !value.isFinite ? text : text + ".0"
        case .string(let text): return quoted(text)
        case .bytes(let bytes): return "b" + quoted(String(decoding: bytes, as: UTF8.self))
        case .list(let elements): return "[" + elements.map(literal).joined(separator: ", ") + "]"
        case .map(let map):
            // A variable such as `device` holds dozens of entries: only small maps are spelled out.
            let entries = map.entries
            guard entries.count <= 8 else { return "{\(entries.count) entries}" }
            let spelled = entries.map { (Printing.keyDescription($0.key), literal($0.value)) }.sorted { $0.0 < $1.0 }
            return "{" + spelled.map { "\(quoted($0.0)): \($0.1)" }.joined(separator: ", ") + "}"
        case .timestamp, .duration: return (try? Printing.string(value)) ?? "null"
        case .function(let name): return name
        }
    }

    private static func quoted(_ text: String) -> String {
        var result = "\""
        for scalar in text.unicodeScalars {
            switch scalar {
            case "\"": result += "\\\""
            case "\\": result += "\\\\"
            case "\n": result += "\\n"
            case "\t": result += "\\t"
            case "\r": result += "\\r"
            default:
                if scalar.value < 0x20 {
                    result +=
                        "\\u" + String(repeating: "0", count: 4 - String(scalar.value, radix: 16).count)
                        + String(scalar.value, radix: 16)
                } else {
                    result.unicodeScalars.append(scalar)
                }
            }
        }
        return result + "\""
    }
}

extension ExpressionTrace {
    /// A value as explanations print it: a CEL literal, with a map of many entries abbreviated.
    public static func text(of value: Value) -> String {
        ExpressionPrinter.literal(value)
    }
}
