/// The evaluation state of one run of a program, passed down `inout` so an evaluation
/// allocates nothing for it.
struct Frame {
    let activation: any Activation
    /// Values of the macro variables in scope, by slot.
    var locals: [Value]
    private var remainingSteps: Int
    private var remainingMatchSteps: Int
    private var remainingWork: Int
    /// Set only when explaining (`Program.explain`): where `Traced` nodes report.
    var trace: TraceRecorder?

    /// Macro iterations and produced elements one evaluation may spend.
    static let stepBudget = 100_000
    /// Regular-expression steps one evaluation may spend, all its `matches` together: one
    /// match's bound (`RegularExpression.maximumSteps`). Each match spends its worst case
    /// before it runs. A bound per match let a rule of 200 `matches` on a 60 KB attribute
    /// run for seconds.
    static let matchStepBudget = RegularExpression.maximumSteps
    /// The longest string, bytes or list an operator may produce.
    static let maximumLength = 1 << 20
    /// What one evaluation's string, list and map operations may touch in all, in bytes (a
    /// list or map counts its elements): every operand an operator or function reads and
    /// every value it makes. Steps alone bound no work: 1,600 `contains()` on a 1 MiB string
    /// took 55 s, and a `map` that kept a new 1 MiB string each step took gigabytes.
    static let workBudget = 32 << 20

    init(activation: any Activation, localSlots: Int) {
        self.activation = activation
        locals = Array(repeating: .null, count: localSlots)
        remainingSteps = Self.stepBudget
        remainingMatchSteps = Self.matchStepBudget
        remainingWork = Self.workBudget
    }

    mutating func spend(_ steps: Int = 1) throws(EvaluationError) {
        let before = remainingSteps
        remainingSteps -= steps
        if remainingSteps < 0 {
            throw EvaluationError(.budgetExceeded, "Evaluation exceeded \(Self.stepBudget) steps")
        }
        // A request cancelled while its rule runs stops within a thousand steps.
        if before >> 10 != remainingSteps >> 10 { try stopIfCancelled() }
    }

    /// Spends `bytes` of the work budget (`workBudget`).
    mutating func charge(_ bytes: Int) throws(EvaluationError) {
        let before = remainingWork
        remainingWork -= bytes
        if remainingWork < 0 {
            throw EvaluationError(
                .budgetExceeded,
                "The rule's string, list and map operations exceed \(Self.workBudget >> 20) MiB of work"
            )
        }
        if before >> 16 != remainingWork >> 16 { try stopIfCancelled() }
    }

    /// Spends what reading `values` costs.
    mutating func charge(reading values: Value...) throws(EvaluationError) {
        var bytes = 0
        for value in values { bytes += value.workSize }
        try charge(bytes)
    }

    private func stopIfCancelled() throws(EvaluationError) {
        if Task.isCancelled { throw EvaluationError(.budgetExceeded, "The evaluation was cancelled") }
    }

    /// Matches `text` against `pattern`, spending its worst case from the evaluation's budget.
    mutating func match(_ text: String, against pattern: RegularExpression) throws(EvaluationError) -> Bool {
        try stopIfCancelled()
        try charge(text.utf8.count)
        let input = Array(text.unicodeScalars)
        let cost = pattern.worstCaseSteps(forInputOf: input.count)
        remainingMatchSteps -= cost
        if remainingMatchSteps < 0 {
            throw EvaluationError(
                .budgetExceeded,
                "The rule's matches() calls exceed \(Self.matchStepBudget) regular-expression steps in all"
            )
        }
        return try pattern.matches(input)
    }

    var hostFunctions: (any HostFunctions)? { activation.hostFunctions }

    /// `container.field`: the map's entry, else a function value when a function of that name
    /// exists (cel-interpreter's reading of `device.daysSince`), else nil.
    func member(_ field: String, of container: Value, isBuiltin: Bool) -> Value? {
        if case .map(let map) = container, let value = map[field] { return value }
        return declares(field, isBuiltin: isBuiltin) ? .function(field) : nil
    }

    /// Whether `name` is a function: a builtin (which the compiler already knows) or the host's.
    func declares(_ name: String, isBuiltin: Bool) -> Bool {
        isBuiltin || hostFunctions?.declares(name) == true
    }
}

/// One node of a compiled program. Nodes are classes: a program is a tree of references,
/// and calling down it copies no boxed structs.
protocol Node: AnyObject, Sendable {
    func evaluate(_ frame: inout Frame) throws(EvaluationError) -> Value
}

final class Constant: Node {
    let value: Value

    init(value: Value) {
        self.value = value
    }
    func evaluate(_ frame: inout Frame) -> Value { value }
}

final class GlobalVariable: Node {
    let name: String

    init(name: String) {
        self.name = name
    }
    func evaluate(_ frame: inout Frame) throws(EvaluationError) -> Value {
        guard let value = frame.activation.variable(named: name) else { throw .undeclared(name) }
        return value
    }
}

final class LocalVariable: Node {
    let slot: Int

    init(slot: Int) {
        self.slot = slot
    }
    func evaluate(_ frame: inout Frame) -> Value { frame.locals[slot] }
}

/// `operand.field`: the map entry, else a function value when a function of that name exists
/// (cel-interpreter's reading of `device.daysSince`), else `No such key`.
final class Select: Node {
    let operand: any Node
    let field: String
    private let fieldIsBuiltin: Bool
    /// Set when the operand is a variable: what it reads, for the activation to remember.
    private let path: MemberPath?

    init(operand: any Node, field: String) {
        self.operand = operand
        self.field = field
        fieldIsBuiltin = Builtin(rawValue: field) != nil
        path = (operand as? GlobalVariable).map { MemberPath.of(variable: $0.name, field: field) }
    }

    func evaluate(_ frame: inout Frame) throws(EvaluationError) -> Value {
        if let path, let remembered = frame.activation.rememberedMember(path) {
            guard let remembered else { throw .noSuchKey(field) }
            return remembered
        }
        let container = try operand.evaluate(&frame)
        let value = frame.member(field, of: container, isBuiltin: fieldIsBuiltin)
        if let path { frame.activation.remember(value, for: path) }
        guard let value else { throw .noSuchKey(field) }
        return value
    }
}

/// `has(x.f) ? x.f : fallback`, the null-safety rewrite's most common shape, with `x`
/// evaluated once.
final class SelectOrDefault: Node {
    let operand: any Node
    let field: String
    let fallback: Value
    private let fieldIsBuiltin: Bool
    /// Set when the operand is a variable: what it reads, for the activation to remember.
    private let path: MemberPath?

    init(operand: any Node, field: String, fallback: Value) {
        self.operand = operand
        self.field = field
        self.fallback = fallback
        fieldIsBuiltin = Builtin(rawValue: field) != nil
        path = (operand as? GlobalVariable).map { MemberPath.of(variable: $0.name, field: field) }
    }

    func evaluate(_ frame: inout Frame) throws(EvaluationError) -> Value {
        if let path, let remembered = frame.activation.rememberedMember(path) { return remembered ?? fallback }
        let container: Value
        do {
            container = try operand.evaluate(&frame)
        } catch  where error.kind == .noSuchKey {
            return fallback
        }
        let value = frame.member(field, of: container, isBuiltin: fieldIsBuiltin)
        if let path { frame.activation.remember(value, for: path) }
        return value ?? fallback
    }
}

/// `has(e)`: true unless resolving `e` runs into a missing key; other errors propagate.
final class Has: Node {
    let operand: any Node

    init(operand: any Node) {
        self.operand = operand
    }
    func evaluate(_ frame: inout Frame) throws(EvaluationError) -> Value {
        do {
            _ = try operand.evaluate(&frame)
            return .bool(true)
        } catch  where error.kind == .noSuchKey {
            return .bool(false)
        }
    }
}

final class Index: Node {
    let operand: any Node
    let index: any Node

    init(operand: any Node, index: any Node) {
        self.operand = operand
        self.index = index
    }
    func evaluate(_ frame: inout Frame) throws(EvaluationError) -> Value {
        let container = try operand.evaluate(&frame)
        return try Operators.index(container, try index.evaluate(&frame))
    }
}

final class ListLiteral: Node {
    let elements: [any Node]

    init(elements: [any Node]) {
        self.elements = elements
    }
    func evaluate(_ frame: inout Frame) throws(EvaluationError) -> Value {
        try frame.charge(elements.count)
        var values: [Value] = []
        values.reserveCapacity(elements.count)
        for element in elements { values.append(try element.evaluate(&frame)) }
        return .list(values)
    }
}

final class MapLiteral: Node {
    let entries: [(key: any Node, value: any Node)]

    init(entries: [(key: any Node, value: any Node)]) {
        self.entries = entries
    }
    func evaluate(_ frame: inout Frame) throws(EvaluationError) -> Value {
        try frame.charge(entries.count)
        var map: [MapKey: Value] = [:]
        for entry in entries {
            let keyValue = try entry.key.evaluate(&frame)
            guard let key = MapKey(keyValue) else {
                throw EvaluationError(.unsupportedOperation, "Unsupported key type \(keyValue.kindName)")
            }
            map[key] = try entry.value.evaluate(&frame)
        }
        return .map(ValueMap(keyed: map))
    }
}

final class MessageLiteral: Node {
    let name: String

    init(name: String) {
        self.name = name
    }
    func evaluate(_ frame: inout Frame) throws(EvaluationError) -> Value {
        throw EvaluationError(.unsupportedOperation, "Message construction is not supported: \(name){...}")
    }
}

final class Not: Node {
    let operand: any Node

    init(operand: any Node) {
        self.operand = operand
    }
    func evaluate(_ frame: inout Frame) throws(EvaluationError) -> Value {
        .bool(!(try operand.evaluate(&frame)).isTruthy)
    }
}

final class Negate: Node {
    let operand: any Node

    init(operand: any Node) {
        self.operand = operand
    }
    func evaluate(_ frame: inout Frame) throws(EvaluationError) -> Value {
        try Operators.negate(try operand.evaluate(&frame))
    }
}

final class Arithmetic: Node {
    let operation: Operators.Arithmetic
    let left: any Node
    let right: any Node

    init(operation: Operators.Arithmetic, left: any Node, right: any Node) {
        self.operation = operation
        self.left = left
        self.right = right
    }

    func evaluate(_ frame: inout Frame) throws(EvaluationError) -> Value {
        let result = try Operators.apply(operation, try left.evaluate(&frame), try right.evaluate(&frame))
        try frame.charge(result.workSize)
        switch result {
        case .string(let text) where text.utf8.count > Frame.maximumLength:
            throw EvaluationError(.budgetExceeded, "Result longer than \(Frame.maximumLength) bytes")
        case .bytes(let bytes) where bytes.count > Frame.maximumLength:
            throw EvaluationError(.budgetExceeded, "Result longer than \(Frame.maximumLength) bytes")
        case .list(let elements):
            try frame.spend(elements.count)
            return result
        default:
            return result
        }
    }
}

final class Relation: Node {
    let relation: Expr.Relation
    let left: any Node
    let right: any Node

    init(relation: Expr.Relation, left: any Node, right: any Node) {
        self.relation = relation
        self.left = left
        self.right = right
    }

    func evaluate(_ frame: inout Frame) throws(EvaluationError) -> Value {
        let lhs = try left.evaluate(&frame)
        return try Self.apply(relation, lhs, try right.evaluate(&frame), frame: &frame)
    }

    static func apply(
        _ relation: Expr.Relation,
        _ lhs: Value,
        _ rhs: Value,
        frame: inout Frame
    ) throws(EvaluationError) -> Value {
        // `in` reads its container; the others read both sides, as far as the shorter goes.
        try frame.charge(relation == .in ? rhs.workSize : min(lhs.workSize, rhs.workSize))
        switch relation {
        case .equal: return .bool(Operators.equals(lhs, rhs))
        case .notEqual: return .bool(!Operators.equals(lhs, rhs))
        case .in: return .bool(try Operators.contains(rhs, lhs))
        case .less: return .bool(try Operators.compare(lhs, rhs) < 0)
        case .lessOrEqual: return .bool(try Operators.compare(lhs, rhs) <= 0)
        case .greater: return .bool(try Operators.compare(lhs, rhs) > 0)
        case .greaterOrEqual: return .bool(try Operators.compare(lhs, rhs) >= 0)
        }
    }
}

/// A chain `a && b && c`: every operand is evaluated, in order, and the first error wins
/// (cel-interpreter does not short-circuit `&&`); the result is whether all are truthy.
final class AllOf: Node {
    let operands: [any Node]

    init(operands: [any Node]) {
        self.operands = operands
    }
    func evaluate(_ frame: inout Frame) throws(EvaluationError) -> Value {
        var all = true
        for operand in operands {
            let value = try operand.evaluate(&frame)
            if !value.isTruthy { all = false }
        }
        return .bool(all)
    }
}

/// A chain `a || b || c`: the first truthy operand itself, else the last operand's value.
final class FirstTruthy: Node {
    let operands: [any Node]

    init(operands: [any Node]) {
        self.operands = operands
    }
    func evaluate(_ frame: inout Frame) throws(EvaluationError) -> Value {
        var value = Value.null
        for operand in operands {
            value = try operand.evaluate(&frame)
            if value.isTruthy { return value }
        }
        return value
    }
}

final class Conditional: Node {
    let condition: any Node
    let then: any Node
    let otherwise: any Node

    init(condition: any Node, then: any Node, otherwise: any Node) {
        self.condition = condition
        self.then = then
        self.otherwise = otherwise
    }
    func evaluate(_ frame: inout Frame) throws(EvaluationError) -> Value {
        try (try condition.evaluate(&frame)).isTruthy ? then.evaluate(&frame) : otherwise.evaluate(&frame)
    }
}

/// A call to a function the host declares, or to nothing: which one is only known when the
/// activation is.
final class DynamicCall: Node {
    let name: String
    let target: (any Node)?
    let arguments: [any Node]

    init(name: String, target: (any Node)?, arguments: [any Node]) {
        self.name = name
        self.target = target
        self.arguments = arguments
    }

    func evaluate(_ frame: inout Frame) throws(EvaluationError) -> Value {
        guard let host = frame.hostFunctions, host.declares(name) else { throw .undeclared(name) }
        if let target { _ = try target.evaluate(&frame) }
        var values: [Value] = []
        values.reserveCapacity(arguments.count)
        for (position, argument) in arguments.enumerated() {
            do {
                values.append(try argument.evaluate(&frame))
            } catch {
                throw EvaluationError(
                    .hostFunction,
                    "\(name): argument \(position + 1) could not be resolved: \(error.message)"
                )
            }
        }
        return host.call(name, arguments: values).normalized
    }
}
