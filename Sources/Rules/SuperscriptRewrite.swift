/// Superscript's pre-pass, applied once to the parsed tree:
///
/// 1. a member access `a.b` outside `has()` becomes `has(a.b) ? a.b : null`;
/// 2. a relation whose left side is a member access becomes `(has(l) ? l : D) op r` when `r`
///    is a literal, `D` being the zero value of the literal's kind, and
///    `has(l) ? (l op r) : false` otherwise;
/// 3. the same with `hasFn("device.f")` for a left side `device.f(...)` / `computed.f(...)`;
///    whether `f` is declared is known only at evaluation, so `hasFn` is asked then;
/// 4. the string literals `"true"` and `"false"` become booleans;
/// 5. `x == "42"` becomes `x == "42" || x == 42` (and `!=` a conjunction) when either side is
///    a string literal that parses as a number, as Rust's `parse` would (no trimming).
///
/// Each rule writes what it repeats once (`Expr.orDefault`, `.guardedRelation`,
/// `.eitherRelation`), so the rewritten tree is linear in the source: written as the
/// conditionals above, a chain `user.f1.f2….f24` became 2^24 nodes to lower and evaluate.
///
/// Where Superscript leaves the order of 2 and 5 open, 2 comes first: a missing attribute
/// compared with `"0"` is `"" == "0" || "" == 0`, false, like any other comparison of a
/// missing attribute with a non-empty string.
enum SuperscriptRewrite {
    static func apply(_ expression: Expr) -> Expr {
        rewrite(expression, insideHas: false)
    }

    private static func rewrite(_ expression: Expr, insideHas: Bool) -> Expr {
        switch expression {
        case .literal(.string("true")): return .literal(.bool(true))
        case .literal(.string("false")): return .literal(.bool(false))
        case .literal, .identifier: return expression
        case .select(let operand, let field):
            let access = Expr.select(rewrite(operand, insideHas: insideHas), field)
            if insideHas { return access }
            return .orDefault(access, .null)
        case .index(let operand, let index):
            return .index(rewrite(operand, insideHas: insideHas), rewrite(index, insideHas: insideHas))
        case .call(let name, let target, let arguments):
            let argumentsInsideHas = insideHas || (name == "has" && target == nil)
            return .call(
                name,
                target: target.map { rewrite($0, insideHas: insideHas) },
                arguments.map { rewrite($0, insideHas: argumentsInsideHas) }
            )
        case .list(let elements):
            return .list(elements.map { rewrite($0, insideHas: insideHas) })
        case .map(let entries):
            return .map(entries.map { rewrite($0, insideHas: insideHas) })
        case .message(let name, let entries):
            return .message(name, entries.map { rewrite($0, insideHas: insideHas) })
        case .not(let operand):
            return .not(rewrite(operand, insideHas: insideHas))
        case .negate(let operand):
            return .negate(rewrite(operand, insideHas: insideHas))
        case .arithmetic(let operation, let left, let right):
            return .arithmetic(operation, rewrite(left, insideHas: insideHas), rewrite(right, insideHas: insideHas))
        case .and(let left, let right):
            return .and(rewrite(left, insideHas: insideHas), rewrite(right, insideHas: insideHas))
        case .or(let left, let right):
            return .or(rewrite(left, insideHas: insideHas), rewrite(right, insideHas: insideHas))
        case .conditional(let condition, let then, let otherwise):
            return .conditional(
                rewrite(condition, insideHas: insideHas),
                rewrite(then, insideHas: insideHas),
                rewrite(otherwise, insideHas: insideHas)
            )
        case .traced(let number, .select(let operand, let field)) where !insideHas:
            // The access inside `has()` is marked too, so a missing member shows as the
            // error it would have been, at the member, although the rule reads it as null.
            let access = Expr.select(rewrite(operand, insideHas: false), field)
            return .traced(number, .orDefault(.probed(number, access), .null))
        case .traced(let number, let inner):
            return .traced(number, rewrite(inner, insideHas: insideHas))
        case .probed(let number, let inner):
            return .probed(number, rewrite(inner, insideHas: insideHas))
        case .orDefault, .guardedRelation, .eitherRelation:
            // Made by this rewrite, never read by it.
            return expression
        case .relation(let relation, let left, let right):
            let safe = nullSafeRelation(relation, left, right, insideHas: insideHas)
            return coerceNumericString(relation, original: (left, right), safe)
        }
    }

    private static func rewrite(_ entry: Expr.MapEntry, insideHas: Bool) -> Expr.MapEntry {
        Expr.MapEntry(key: rewrite(entry.key, insideHas: insideHas), value: rewrite(entry.value, insideHas: insideHas))
    }

    /// Rules 2 and 3. Returns the rewritten relation, and its left operand as it will be
    /// compared (for rule 5 to reuse).
    private static func nullSafeRelation(
        _ relation: Expr.Relation,
        _ left: Expr,
        _ right: Expr,
        insideHas: Bool
    ) -> (relation: Expr, left: Expr, right: Expr) {
        let rewrittenRight = rewrite(right, insideHas: insideHas)
        /// A member access on the left, as compared (marked as the source's node when explaining).
        let guarded: Expr?
        let mark = { (expression: Expr) in left.traceNumber.map { Expr.traced($0, expression) } ?? expression }
        switch left.unwrapped {
        case .select(let operand, let field) where !insideHas:
            guarded = mark(Expr.select(rewrite(operand, insideHas: false), field))
        case .call(let name, let target?, let arguments)
        where !insideHas && (target.unwrapped == .identifier("device") || target.unwrapped == .identifier("computed")):
            guard case .identifier(let receiver) = target.unwrapped else { preconditionFailure("matched above") }
            let call = mark(
                Expr.call(
                    name,
                    target: rewrite(target, insideHas: false),
                    arguments.map { rewrite($0, insideHas: false) }
                )
            )
            let declared = Expr.call("hasFn", target: nil, [.literal(.string("\(receiver).\(name)"))])
            // `hasFn` is asked first; the call is written once.
            if case .literal(let literal) = rewrittenRight.unwrapped {
                let safeLeft = Expr.conditional(declared, call, .literal(zeroValue(of: literal)))
                return (.relation(relation, safeLeft, rewrittenRight), safeLeft, rewrittenRight)
            }
            let checked = Expr.conditional(declared, .relation(relation, call, rewrittenRight), .literal(.bool(false)))
            return (checked, call, rewrittenRight)
        default:
            guarded = nil
        }
        guard let guarded else {
            let rewrittenLeft = rewrite(left, insideHas: insideHas)
            return (.relation(relation, rewrittenLeft, rewrittenRight), rewrittenLeft, rewrittenRight)
        }
        if case .literal(let literal) = rewrittenRight.unwrapped {
            let safeLeft = Expr.orDefault(guarded, zeroValue(of: literal))
            return (.relation(relation, safeLeft, rewrittenRight), safeLeft, rewrittenRight)
        }
        let checked = Expr.guardedRelation(relation, guarded, rewrittenRight)
        return (checked, guarded, rewrittenRight)
    }

    private static func zeroValue(of literal: Value) -> Value {
        switch literal {
        case .int: .int(0)
        case .uint: .uint(0)
        case .double: .double(0)
        case .string: .string("")
        case .bool: .bool(false)
        default: .null
        }
    }

    /// Rule 5.
    private static func coerceNumericString(
        _ relation: Expr.Relation,
        original: (Expr, Expr),
        _ safe: (relation: Expr, left: Expr, right: Expr)
    ) -> Expr {
        guard relation == .equal || relation == .notEqual else { return safe.relation }
        let number: Value
        let numberOnRight: Bool
        if case .literal(.string(let text)) = original.1.unwrapped, let parsed = numericLiteral(text) {
            number = parsed
            numberOnRight = true
        } else if case .literal(.string(let text)) = original.0.unwrapped, let parsed = numericLiteral(text) {
            number = parsed
            numberOnRight = false
        } else {
            return safe.relation
        }
        // The side compared with both is written once.
        if numberOnRight, case .literal(let text) = safe.right.unwrapped {
            return .eitherRelation(relation, operand: safe.left, literals: [text, number], operandOnLeft: true)
        }
        if !numberOnRight, case .literal(let text) = safe.left.unwrapped {
            return .eitherRelation(relation, operand: safe.right, literals: [text, number], operandOnLeft: false)
        }
        return safe.relation
    }

    /// Rust's `parse::<i64>()`, then `u64`, then `f64`.
    static func numericLiteral(_ text: String) -> Value? {
        if let value = Int64(text) { return .int(value) }
        if let value = UInt64(text) { return .uint(value) }
        return Conversions.rustDouble(text).map { .double($0) }
    }
}
