/// The evaluation state of one run of a program.
final class Frame {
    let activation: any Activation
    let hostFunctions: (any HostFunctions)?
    /// Values of the macro variables in scope, by slot.
    var locals: [Value]
    private var remainingSteps: Int

    /// Macro iterations and produced elements one evaluation may spend.
    static let stepBudget = 100_000
    /// The longest string, bytes or list an operator may produce.
    static let maximumLength = 1 << 20

    init(activation: any Activation, localSlots: Int) {
        self.activation = activation
        hostFunctions = activation.hostFunctions
        locals = Array(repeating: .null, count: localSlots)
        remainingSteps = Self.stepBudget
    }

    func spend(_ steps: Int = 1) throws(EvaluationError) {
        remainingSteps -= steps
        if remainingSteps < 0 {
            throw EvaluationError(.budgetExceeded, "Evaluation exceeded \(Self.stepBudget) steps")
        }
    }

    func declares(_ name: String) -> Bool {
        Builtin(rawValue: name) != nil || hostFunctions?.declares(name) == true
    }
}

/// One node of a compiled program.
protocol Node: Sendable {
    func evaluate(_ frame: Frame) throws(EvaluationError) -> Value
}

struct Constant: Node {
    let value: Value
    func evaluate(_ frame: Frame) -> Value { value }
}

struct GlobalVariable: Node {
    let name: String
    func evaluate(_ frame: Frame) throws(EvaluationError) -> Value {
        guard let value = frame.activation.variable(named: name) else { throw .undeclared(name) }
        return value
    }
}

struct LocalVariable: Node {
    let slot: Int
    func evaluate(_ frame: Frame) -> Value { frame.locals[slot] }
}

/// `operand.field`: the map entry, else a function value when a function of that name exists
/// (cel-interpreter's reading of `device.daysSince`), else `No such key`.
struct Select: Node {
    let operand: any Node
    let field: String

    func evaluate(_ frame: Frame) throws(EvaluationError) -> Value {
        let container = try operand.evaluate(frame)
        if case .map(let map) = container, let value = map[field] { return value }
        if frame.declares(field) { return .function(field) }
        throw .noSuchKey(field)
    }
}

/// `has(x.f) ? x.f : fallback`, the null-safety rewrite's most common shape, with `x`
/// evaluated once.
struct SelectOrDefault: Node {
    let operand: any Node
    let field: String
    let fallback: Value

    func evaluate(_ frame: Frame) throws(EvaluationError) -> Value {
        let container: Value
        do {
            container = try operand.evaluate(frame)
        } catch where error.kind == .noSuchKey {
            return fallback
        }
        if case .map(let map) = container, let value = map[field] { return value }
        if frame.declares(field) { return .function(field) }
        return fallback
    }
}

/// `has(e)`: true unless resolving `e` runs into a missing key; other errors propagate.
struct Has: Node {
    let operand: any Node
    func evaluate(_ frame: Frame) throws(EvaluationError) -> Value {
        do {
            _ = try operand.evaluate(frame)
            return .bool(true)
        } catch where error.kind == .noSuchKey {
            return .bool(false)
        }
    }
}

struct Index: Node {
    let operand: any Node
    let index: any Node
    func evaluate(_ frame: Frame) throws(EvaluationError) -> Value {
        let container = try operand.evaluate(frame)
        return try Operators.index(container, try index.evaluate(frame))
    }
}

struct ListLiteral: Node {
    let elements: [any Node]
    func evaluate(_ frame: Frame) throws(EvaluationError) -> Value {
        var values: [Value] = []
        values.reserveCapacity(elements.count)
        for element in elements { values.append(try element.evaluate(frame)) }
        return .list(values)
    }
}

struct MapLiteral: Node {
    let entries: [(key: any Node, value: any Node)]
    func evaluate(_ frame: Frame) throws(EvaluationError) -> Value {
        var map: [MapKey: Value] = [:]
        for entry in entries {
            let keyValue = try entry.key.evaluate(frame)
            guard let key = MapKey(keyValue) else {
                throw EvaluationError(.unsupportedOperation, "Unsupported key type \(keyValue.kindName)")
            }
            map[key] = try entry.value.evaluate(frame)
        }
        return .map(ValueMap(keyed: map))
    }
}

struct MessageLiteral: Node {
    let name: String
    func evaluate(_ frame: Frame) throws(EvaluationError) -> Value {
        throw EvaluationError(.unsupportedOperation, "Message construction is not supported: \(name){...}")
    }
}

struct Not: Node {
    let operand: any Node
    func evaluate(_ frame: Frame) throws(EvaluationError) -> Value {
        .bool(!(try operand.evaluate(frame)).isTruthy)
    }
}

struct Negate: Node {
    let operand: any Node
    func evaluate(_ frame: Frame) throws(EvaluationError) -> Value {
        try Operators.negate(try operand.evaluate(frame))
    }
}

struct Arithmetic: Node {
    let operation: Operators.Arithmetic
    let left: any Node
    let right: any Node

    func evaluate(_ frame: Frame) throws(EvaluationError) -> Value {
        let result = try Operators.apply(operation, try left.evaluate(frame), try right.evaluate(frame))
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

struct Relation: Node {
    let relation: Expr.Relation
    let left: any Node
    let right: any Node

    func evaluate(_ frame: Frame) throws(EvaluationError) -> Value {
        let lhs = try left.evaluate(frame)
        let rhs = try right.evaluate(frame)
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
struct AllOf: Node {
    let operands: [any Node]
    func evaluate(_ frame: Frame) throws(EvaluationError) -> Value {
        var all = true
        for operand in operands {
            let value = try operand.evaluate(frame)
            if !value.isTruthy { all = false }
        }
        return .bool(all)
    }
}

/// A chain `a || b || c`: the first truthy operand itself, else the last operand's value.
struct FirstTruthy: Node {
    let operands: [any Node]
    func evaluate(_ frame: Frame) throws(EvaluationError) -> Value {
        var value = Value.null
        for operand in operands {
            value = try operand.evaluate(frame)
            if value.isTruthy { return value }
        }
        return value
    }
}

struct Conditional: Node {
    let condition: any Node
    let then: any Node
    let otherwise: any Node
    func evaluate(_ frame: Frame) throws(EvaluationError) -> Value {
        try (try condition.evaluate(frame)).isTruthy ? then.evaluate(frame) : otherwise.evaluate(frame)
    }
}

/// A call to a function the host declares, or to nothing: which one is only known when the
/// activation is.
struct DynamicCall: Node {
    let name: String
    let target: (any Node)?
    let arguments: [any Node]

    func evaluate(_ frame: Frame) throws(EvaluationError) -> Value {
        guard let host = frame.hostFunctions, host.declares(name) else { throw .undeclared(name) }
        if let target { _ = try target.evaluate(frame) }
        var values: [Value] = []
        values.reserveCapacity(arguments.count)
        for (position, argument) in arguments.enumerated() {
            do {
                values.append(try argument.evaluate(frame))
            } catch {
                throw EvaluationError(
                    .hostFunction, "\(name): argument \(position + 1) could not be resolved: \(error.message)")
            }
        }
        return host.call(name, arguments: values).normalized
    }
}
