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
