/// The syntax tree of an expression, after parsing and before lowering to a program.
indirect enum Expr: Sendable, Equatable {
    case literal(Literal)
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

    struct MapEntry: Sendable, Equatable {
        let key: Expr
        let value: Expr
    }

    enum Relation: String, Sendable {
        case less = "<", lessOrEqual = "<=", greater = ">", greaterOrEqual = ">="
        case equal = "==", notEqual = "!=", `in` = "in"
    }

    enum Literal: Sendable, Equatable {
        case null
        case bool(Bool)
        case int(Int64)
        case uint(UInt64)
        case double(Double)
        case string(String)
        case bytes([UInt8])

        var value: Value {
            switch self {
            case .null: .null
            case .bool(let value): .bool(value)
            case .int(let value): .int(value)
            case .uint(let value): .uint(value)
            case .double(let value): .double(value)
            case .string(let value): .string(value)
            case .bytes(let value): .bytes(value)
            }
        }
    }
}

extension Expr.Relation: Equatable {}
