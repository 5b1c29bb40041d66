/// The nodes of the null-safety rewrite's forms (`SuperscriptRewrite`), each evaluating the
/// operand it guards once.

/// `has(l) ? (l op r) : false` with `l` evaluated once (`Expr.guardedRelation`): false when
/// resolving `l` runs into a missing key; an error of `r` is the relation's.
final class GuardedRelation: Node {
    /// The relation, whose left operand is the one guarded.
    let guarded: Relation

    init(_ guarded: Relation) {
        self.guarded = guarded
    }

    func evaluate(_ frame: inout Frame) throws(EvaluationError) -> Value {
        let lhs: Value
        do {
            lhs = try guarded.left.evaluate(&frame)
        } catch  where error.kind == .noSuchKey {
            return .bool(false)
        }
        return try Relation.apply(guarded.relation, lhs, try guarded.right.evaluate(&frame), frame: &frame)
    }
}

/// `x == a || x == b` (or `x != a && x != b`) with `x` evaluated once (`Expr.eitherRelation`).
final class EitherRelation: Node {
    let relation: Expr.Relation
    let operand: any Node
    let literals: [Value]
    let operandOnLeft: Bool

    init(relation: Expr.Relation, operand: any Node, literals: [Value], operandOnLeft: Bool) {
        precondition(relation == .equal || relation == .notEqual, "only == and != relate to either literal")
        self.relation = relation
        self.operand = operand
        self.literals = literals
        self.operandOnLeft = operandOnLeft
    }

    func evaluate(_ frame: inout Frame) throws(EvaluationError) -> Value {
        let value = try operand.evaluate(&frame)
        try frame.charge(value.workSize)
        let equalsOne = literals.contains { literal in
            operandOnLeft ? Operators.equals(value, literal) : Operators.equals(literal, value)
        }
        return .bool(relation == .equal ? equalsOne : !equalsOne)
    }
}

/// `has(e) ? e : fallback` with `e` evaluated once (`Expr.orDefault`) when `e` is not a
/// plain member access (`SelectOrDefault` is that one).
final class MissingKeyFallback: Node {
    let inner: any Node
    let fallback: Value

    init(inner: any Node, fallback: Value) {
        self.inner = inner
        self.fallback = fallback
    }

    func evaluate(_ frame: inout Frame) throws(EvaluationError) -> Value {
        do {
            return try inner.evaluate(&frame)
        } catch  where error.kind == .noSuchKey {
            return fallback
        }
    }
}
