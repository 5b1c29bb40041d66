/// The syntax tree of an expression, after parsing and before lowering to a program.
indirect enum Expr: Sendable, Equatable {
    /// A literal: null, bool, int, uint, double, string or bytes.
    case literal(Value)
    case identifier(String)
    /// `operand.field`
    case select(Expr, String)
    /// `operand[index]`
    case index(Expr, Expr)
    /// `name(arguments)` or `target.name(arguments)`
    case call(String, target: Expr?, [Expr])
    case list([Expr])
    case map([MapEntry])
    /// `Name{field: value}`: parsed, and an error when evaluated (no message types here).
    case message(String, [MapEntry])
    case not(Expr)
    case negate(Expr)
    case arithmetic(Operators.Arithmetic, Expr, Expr)
    case relation(Relation, Expr, Expr)
    case and(Expr, Expr)
    case or(Expr, Expr)
    case conditional(Expr, Expr, Expr)
    /// A node of the source marked for an explanation (`Program.explain`): evaluating it
    /// records, under its number, the value or error it gave. Only explaining compiles make it.
    case traced(Int, Expr)
    /// A look at a marked node that is not one of its evaluations (`has()`'s, in the
    /// null-safety rewrite): only an error it raises is recorded.
    case probed(Int, Expr)
    /// The null-safety rewrite's `has(e) ? e : fallback`, with `e` written (and evaluated)
    /// once: `e`, or `fallback` when resolving it runs into a missing key. Only the rewrite
    /// makes it. Written twice, each member of a chain `a.b.c` doubled the tree below it.
    case orDefault(Expr, Value)
    /// The rewrite's `has(l) ? (l op r) : false`, with `l` written once: the relation, or
    /// false when resolving `l` runs into a missing key.
    case guardedRelation(Relation, Expr, Expr)
    /// The rewrite's `x == "42" || x == 42` (`!=` and `&&` likewise), with `x` written once:
    /// `operand` related to each of `literals`, on their left when `operandOnLeft`. Only
    /// `==` (any matches) and `!=` (none matches).
    case eitherRelation(Relation, operand: Expr, literals: [Value], operandOnLeft: Bool)

    struct MapEntry: Sendable, Equatable {
        let key: Expr
        let value: Expr
    }

    enum Relation: String, Sendable {
        case less = "<"
        case lessOrEqual = "<="
        case greater = ">"
        case greaterOrEqual = ">="
        case equal = "=="
        case notEqual = "!="
        case `in` = "in"
    }
}

extension Expr.Relation: Equatable {}

extension Expr {
    /// The node under any explanation marks.
    var unwrapped: Expr {
        switch self {
        case .traced(_, let inner), .probed(_, let inner): inner.unwrapped
        default: self
        }
    }

    /// The explanation mark of this node, if it has one.
    var traceNumber: Int? {
        if case .traced(let number, _) = self { return number }
        return nil
    }
}

extension Expr {
    /// How many nodes the tree has, marks not counted.
    var nodeCount: Int {
        switch self {
        case .literal, .identifier: 1
        case .select(let operand, _), .not(let operand), .negate(let operand): 1 + operand.nodeCount
        case .index(let left, let right), .arithmetic(_, let left, let right), .relation(_, let left, let right),
            .and(let left, let right), .or(let left, let right), .guardedRelation(_, let left, let right):
            1 + left.nodeCount + right.nodeCount
        case .call(_, let target, let arguments):
            1 + (target?.nodeCount ?? 0) + arguments.reduce(0) { $0 + $1.nodeCount }
        case .list(let elements): 1 + elements.reduce(0) { $0 + $1.nodeCount }
        case .map(let entries), .message(_, let entries):
            1 + entries.reduce(0) { $0 + $1.key.nodeCount + $1.value.nodeCount }
        case .conditional(let condition, let then, let otherwise):
            1 + condition.nodeCount + then.nodeCount + otherwise.nodeCount
        case .traced(_, let inner), .probed(_, let inner): inner.nodeCount
        case .orDefault(let inner, _), .eitherRelation(_, let inner, _, _): 1 + inner.nodeCount
        }
    }
}
