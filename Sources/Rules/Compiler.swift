/// Lowers a rewritten tree to nodes: resolves macro variables to slots, picks builtins, and
/// (when optimising) fuses the null-safety rewrite's `has(x.f) ? x.f : D` into one node and
/// flattens `&&` / `||` chains. Unoptimised lowering exists so tests can check that the
/// optimisations change nothing.
struct Compiler {
    private let optimize: Bool
    private var scopes: [(name: String, slot: Int)] = []
    private(set) var slotCount = 0
    /// The variables' fields the expression reads, when that is all it reads of the outside
    /// world (no variable whole, no host function, no `hasFn`); nil otherwise. Its value is
    /// then a function of these fields' values alone (`Program.memberPaths`).
    private(set) var memberPaths: [MemberPath]? = []

    init(optimize: Bool = true) {
        self.optimize = optimize
    }

    private static let comprehensions: Set<String> = ["all", "exists", "exists_one", "map", "filter"]

    mutating func lower(_ expression: Expr) throws(CompileError) -> any Node {
        switch expression {
        case .literal(let literal):
            return Constant(value: literal)
        case .identifier(let name):
            if let local = scopes.last(where: { $0.name == name }) { return LocalVariable(slot: local.slot) }
            memberPaths = nil
            return GlobalVariable(name: name)
        case .select(let operand, let field):
            return Select(operand: try lowerOperand(operand, reading: field), field: field)
        case .index(let operand, let index):
            return Index(operand: try lower(operand), index: try lower(index))
        case .call(let name, let target, let arguments):
            return try lowerCall(name, target: target, arguments)
        case .list(let elements):
            let nodes = try lowerAll(elements)
            let constants = nodes.compactMap { ($0 as? Constant)?.value }
            if optimize, constants.count == nodes.count { return Constant(value: .list(constants)) }
            return ListLiteral(elements: nodes)
        case .map(let entries):
            var lowered: [(key: any Node, value: any Node)] = []
            for entry in entries { lowered.append((try lower(entry.key), try lower(entry.value))) }
            return MapLiteral(entries: lowered)
        case .message(let name, _):
            return MessageLiteral(name: name)
        case .not(let operand):
            return Not(operand: try lower(operand))
        case .negate(let operand):
            return Negate(operand: try lower(operand))
        case .arithmetic(let operation, let left, let right):
            return Arithmetic(operation: operation, left: try lower(left), right: try lower(right))
        case .relation(let relation, let left, let right):
            return Relation(relation: relation, left: try lower(left), right: try lower(right))
        case .and(let left, let right):
            let operands =
                optimize
                ? flatten(expression) { if case .and(let l, let r) = $0 { (l, r) } else { nil } } : [left, right]
            return AllOf(operands: try lowerAll(operands))
        case .or(let left, let right):
            let operands =
                optimize
                ? flatten(expression) { if case .or(let l, let r) = $0 { (l, r) } else { nil } } : [left, right]
            return FirstTruthy(operands: try lowerAll(operands))
        case .conditional(let condition, let then, let otherwise):
            if optimize, case .call("has", nil, let hasArguments) = condition, hasArguments.count == 1,
                case .select(let operand, let field) = then, hasArguments[0] == then,
                case .literal(let fallback) = otherwise
            {
                return SelectOrDefault(
                    operand: try lowerOperand(operand, reading: field),
                    field: field,
                    fallback: fallback
                )
            }
            return Conditional(condition: try lower(condition), then: try lower(then), otherwise: try lower(otherwise))
        case .orDefault(let inner, let fallback):
            if optimize, case .select(let operand, let field) = inner {
                return SelectOrDefault(
                    operand: try lowerOperand(operand, reading: field),
                    field: field,
                    fallback: fallback
                )
            }
            return MissingKeyFallback(inner: try lower(inner), fallback: fallback)
        case .guardedRelation(let relation, let left, let right):
            return GuardedRelation(Relation(relation: relation, left: try lower(left), right: try lower(right)))
        case .eitherRelation(let relation, let operand, let literals, let operandOnLeft):
            return EitherRelation(
                relation: relation,
                operand: try lower(operand),
                literals: literals,
                operandOnLeft: operandOnLeft
            )
        case .traced(let number, let inner):
            return Traced(number: number, inner: try lower(inner), isEvaluation: true)
        case .probed(let number, let inner):
            return Traced(number: number, inner: try lower(inner), isEvaluation: false)
        }
    }

    /// A member access's operand: a variable read only for `field` keeps the expression's
    /// reads a list of member paths.
    private mutating func lowerOperand(_ operand: Expr, reading field: String) throws(CompileError) -> any Node {
        guard case .identifier(let name) = operand, !scopes.contains(where: { $0.name == name }) else {
            return try lower(operand)
        }
        memberPaths?.append(MemberPath.of(variable: name, field: field))
        return GlobalVariable(name: name)
    }

    private mutating func lowerAll(_ expressions: [Expr]) throws(CompileError) -> [any Node] {
        var nodes: [any Node] = []
        nodes.reserveCapacity(expressions.count)
        for expression in expressions { nodes.append(try lower(expression)) }
        return nodes
    }

    /// The operands of a left-deep chain `a op b op c`, in order; `split` takes one link apart.
    private func flatten(_ expression: Expr, _ split: (Expr) -> (Expr, Expr)?) -> [Expr] {
        var operands: [Expr] = []
        var node = expression
        while let (left, right) = split(node) {
            operands.append(right)
            node = left
        }
        operands.append(node)
        return operands.reversed()
    }

    private mutating func lowerCall(_ name: String, target: Expr?, _ arguments: [Expr]) throws(CompileError) -> any Node
    {
        if name == "has", target == nil {
            guard let first = arguments.first else { throw CompileError("has() needs an argument", at: nil) }
            return Has(operand: try lower(first))
        }
        if let target, Self.comprehensions.contains(name), let kind = Comprehension.Kind(rawValue: name) {
            return try lowerComprehension(kind, range: target, arguments)
        }
        if name == "maybe" {
            let all = (target.map { [$0] } ?? []) + arguments
            guard all.count == 3 else { throw CompileError("maybe() takes a receiver and two arguments", at: nil) }
            return Maybe(receiver: try lower(all[0]), preferred: try lower(all[1]), fallback: try lower(all[2]))
        }
        if let builtin = Builtin(rawValue: name) {
            if builtin == .unknownFunction || builtin == .test_custom_func { return Constant(value: .null) }
            if builtin == .size, let target {
                return BuiltinCall(
                    builtin: builtin,
                    arguments: try lowerAll(arguments),
                    ignoredReceiver: try lower(target)
                )
            }
            if builtin == .hasFn { memberPaths = nil }
            let all = (target.map { [$0] } ?? []) + arguments
            if builtin == .matches, all.count == 2, case .literal(.string(let pattern)) = all[1],
                let compiled = try? RegularExpression(pattern)
            {
                return MatchesConstantPattern(text: try lower(all[0]), pattern: compiled)
            }
            return BuiltinCall(builtin: builtin, arguments: try lowerAll(all))
        }
        memberPaths = nil
        return DynamicCall(
            name: name,
            target: try target.map { (expression) throws(CompileError) in try lower(expression) },
            arguments: try lowerAll(arguments)
        )
    }

    private mutating func lowerComprehension(
        _ kind: Comprehension.Kind,
        range: Expr,
        _ arguments: [Expr]
    ) throws(CompileError) -> any Node {
        let validCount = kind == .map ? (2...3) : (2...2)
        guard validCount.contains(arguments.count), case .identifier(let variable) = arguments[0].unwrapped else {
            throw CompileError("\(kind.rawValue)() takes a variable name and an expression", at: nil)
        }
        let loweredRange = try lower(range)
        let slot = slotCount
        slotCount += 1
        scopes.append((variable, slot))
        defer { scopes.removeLast() }
        let body = try lower(arguments[1])
        let transform = arguments.count == 3 ? try lower(arguments[2]) : nil
        return Comprehension(kind: kind, range: loweredRange, slot: slot, body: body, transform: transform)
    }
}
