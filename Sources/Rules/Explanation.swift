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
    /// How many nodes of the source below this one the explanation leaves out: it shows at
    /// most `ExpressionTrace.maximumNodes`, so that its size stays linear in the rule's.
    public var omittedNodes: Int = 0

    /// The most nodes an explanation shows.
    public static let maximumNodes = 2_000
    /// The most bytes of source text a node carries (then " …").
    public static let textLimit = 1_024
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

    init(count: Int) {
        entries = Array(repeating: Entry(), count: count)
    }

    func record(_ number: Int, _ outcome: Result<Value, EvaluationError>) {
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
/// (`isEvaluation` false) records only an error: the null-safety rewrite's look at a member
/// whose value the rule reads as its default when it is missing.
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
        do {
            let value = try inner.evaluate(&frame)
            if isEvaluation { frame.trace?.record(number, .success(value)) }
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
    /// The nodes left out below this one, its children's included.
    let omitted: Int

    private static let comprehensions: Set<String> = ["all", "exists", "exists_one", "map", "filter"]

    /// `expression` with its nodes marked, and its shape: the first
    /// `ExpressionTrace.maximumNodes` in pre-order; the others are left unmarked and counted.
    static func mark(_ expression: Expr, next: inout Int) -> (Expr, SourceShape) {
        let number = next
        next += 1
        var children: [SourceShape] = []
        var omitted = 0
        func child(_ expression: Expr) -> Expr {
            guard next < ExpressionTrace.maximumNodes else {
                omitted += expression.nodeCount
                return expression
            }
            let (marked, shape) = mark(expression, next: &next)
            children.append(shape)
            omitted += shape.omitted
            return marked
        }
        let marked: Expr
        switch expression {
        case .literal, .identifier, .traced, .probed, .orDefault, .guardedRelation, .eitherRelation:
            // Marks and the rewrite's forms are made after this, never seen by it.
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
        let text = ExpressionPrinter.text(of: expression, limit: ExpressionTrace.textLimit)
        let shape = SourceShape(number: number, text: text, children: children, omitted: omitted)
        return (.traced(number, marked), shape)
    }

    func trace(from recorder: TraceRecorder) -> ExpressionTrace {
        let (outcome, evaluations) = recorder.outcome(of: number)
        // The count of what is left out is the node's own: its children's are their own.
        let own = omitted - children.reduce(0) { $0 + $1.omitted }
        return ExpressionTrace(
            text: text,
            outcome: outcome,
            evaluations: evaluations,
            children: children.map { $0.trace(from: recorder) },
            omittedNodes: own
        )
    }
}

/// Prints a syntax tree back as CEL source, with only the parentheses precedence needs.
enum ExpressionPrinter {
    /// The text, or its first `limit` bytes or a little more followed by " …" when it is
    /// longer.
    static func text(of expression: Expr, limit: Int = .max) -> String {
        var output = Writer(limit: limit == .max ? .max : limit + 1)
        render(expression, within: 0, into: &output)
        guard limit < .max, output.text.utf8.count > limit else { return output.text }
        return String(decoding: output.text.utf8.prefix(limit), as: UTF8.self) + " …"
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
        // A negative number is written with its sign: `(-7).f`, not `-7.f`.
        case .literal(.int(let value)): value < 0 ? 6 : 8
        case .literal(.double(let value)): value.sign == .minus && !value.isNaN ? 6 : 8
        case .literal, .identifier, .list, .map, .message: 8
        case .traced(_, let inner), .probed(_, let inner), .orDefault(let inner, _): precedence(of: inner)
        case .guardedRelation: 3
        case .eitherRelation: 1
        }
    }

    /// Text written up to a limit: past it, nothing more is rendered, so printing every node
    /// of a deep rule costs the limit per node, not the size of the node's subtree.
    private struct Writer {
        var text = ""
        let limit: Int

        var isFull: Bool { text.utf8.count >= limit }

        mutating func write(_ piece: String) {
            let room = limit - text.utf8.count
            guard room > 0 else { return }
            text += piece.utf8.count <= room ? piece : String(decoding: piece.utf8.prefix(room), as: UTF8.self)
        }
    }

    private static func render(_ expression: Expr, within context: Int, into output: inout Writer) {
        guard !output.isFull else { return }
        let own = precedence(of: expression)
        switch expression {
        case .traced(_, let inner), .probed(_, let inner), .orDefault(let inner, _):
            return render(inner, within: context, into: &output)
        default: break
        }
        if own < context { output.write("(") }
        func each(_ expressions: [Expr], separator: String = ", ") {
            for (position, element) in expressions.enumerated() {
                if position > 0 { output.write(separator) }
                render(element, within: 0, into: &output)
            }
        }
        func binary(_ left: Expr, _ symbol: String, _ right: Expr, left leftContext: Int, right rightContext: Int) {
            render(left, within: leftContext, into: &output)
            output.write(" \(symbol) ")
            render(right, within: rightContext, into: &output)
        }
        func entries(_ entries: [Expr.MapEntry], fieldNames: Bool) {
            for (position, entry) in entries.enumerated() {
                if position > 0 { output.write(", ") }
                // A message's keys are field names, not strings.
                if fieldNames, case .literal(.string(let field)) = entry.key {
                    output.write(field)
                } else {
                    render(entry.key, within: 0, into: &output)
                }
                output.write(": ")
                render(entry.value, within: 0, into: &output)
            }
        }
        switch expression {
        case .literal(let value): output.write(literal(value))
        // `.true` is the identifier; `true` would read back as the literal.
        case .identifier(let name): output.write(keywords.contains(name) ? "." + name : name)
        case .select(let operand, let field):
            render(operand, within: 7, into: &output)
            output.write("." + field)
        case .index(let operand, let index):
            render(operand, within: 7, into: &output)
            output.write("[")
            render(index, within: 0, into: &output)
            output.write("]")
        case .call(let name, let target, let arguments):
            if let target {
                render(target, within: 7, into: &output)
                output.write(".")
            } else if keywords.contains(name) {
                // `.in()` is a call of a function named `in`; `in()` would not read back.
                output.write(".")
            }
            output.write(name + "(")
            each(arguments)
            output.write(")")
        case .list(let elements):
            output.write("[")
            each(elements)
            output.write("]")
        case .map(let members):
            output.write("{")
            entries(members, fieldNames: false)
            output.write("}")
        case .message(let name, let members):
            output.write((keywords.contains(name) ? "." + name : name) + "{")
            entries(members, fieldNames: true)
            output.write("}")
        case .not(let operand):
            output.write("!")
            render(operand, within: 6, into: &output)
        case .negate(let operand):
            output.write("-")
            render(operand, within: 6, into: &output)
        // Binary operators associate to the left: a right operand of the same strength keeps
        // its parentheses.
        case .arithmetic(let operation, let left, let right):
            binary(left, operation.rawValue, right, left: own, right: own + 1)
        case .relation(let relation, let left, let right), .guardedRelation(let relation, let left, let right):
            binary(left, relation.rawValue, right, left: own, right: own + 1)
        case .and(let left, let right): binary(left, "&&", right, left: 2, right: 3)
        case .or(let left, let right): binary(left, "||", right, left: 1, right: 2)
        case .conditional(let condition, let then, let otherwise):
            render(condition, within: 1, into: &output)
            output.write(" ? ")
            render(then, within: 1, into: &output)
            output.write(" : ")
            render(otherwise, within: 0, into: &output)
        case .eitherRelation(let relation, let operand, let literals, let operandOnLeft):
            for (position, value) in literals.enumerated() {
                if position > 0 { output.write(relation == .equal ? " || " : " && ") }
                if operandOnLeft {
                    render(operand, within: 4, into: &output)
                    output.write(" \(relation.rawValue) " + literal(value))
                } else {
                    output.write(literal(value) + " \(relation.rawValue) ")
                    render(operand, within: 4, into: &output)
                }
            }
        case .traced, .probed, .orDefault: break
        }
        if own < context { output.write(")") }
    }

    /// The words the parser reads as literals or operators, never as identifiers.
    private static let keywords: Set<String> = ["true", "false", "null", "in"]

    /// A value as a CEL literal would write it, read back as the same value: an infinite
    /// double as a literal too large for a double, NaN as `double("NaN")`, bytes with every
    /// octet outside printable ASCII escaped.
    static func literal(_ value: Value) -> String {
        switch value {
        case .null: return "null"
        case .bool(let value): return value ? "true" : "false"
        case .int(let value): return String(value)
        case .uint(let value): return "\(value)u"
        case .double(let value):
            if value.isNaN { return #"double("NaN")"# }
            if value.isInfinite { return value < 0 ? "-1e999" : "1e999" }
            let text = NumberFormatting.rustDisplay(value)
            return text.contains(".") || text.contains("e") ? text : text + ".0"
        case .string(let text): return quoted(text)
        case .bytes(let bytes): return "b" + quotedBytes(bytes)
        case .list(let elements): return "[" + elements.map(literal).joined(separator: ", ") + "]"
        case .map(let map):
            // A variable such as `device` holds dozens of entries: only small maps are spelled out.
            let entries = map.entries
            guard entries.count <= 8 else { return "{\(entries.count) entries}" }
            let spelled = entries.map { (Printing.keyDescription($0.key), literal($0.value)) }.sorted { $0.0 < $1.0 }
            return "{" + spelled.map { "\(quoted($0.0)): \($0.1)" }.joined(separator: ", ") + "}"
        case .timestamp, .duration: return (try? Printing.string(value)) ?? "null"
        case .function(let name, _): return name
        }
    }

    private static func quotedBytes(_ bytes: [UInt8]) -> String {
        var result = "\""
        for byte in bytes {
            switch byte {
            case UInt8(ascii: "\""): result += "\\\""
            case UInt8(ascii: "\\"): result += "\\\\"
            case 0x20...0x7E: result.unicodeScalars.append(Unicode.Scalar(byte))
            default:
                let hex = String(byte, radix: 16)
                result += "\\x" + (hex.count == 1 ? "0" + hex : hex)
            }
        }
        return result + "\""
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
