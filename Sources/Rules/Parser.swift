/// A recursive-descent parser for the CEL grammar of cel-parser 0.7.1.
///
/// Precedence, lowest first: `?:` (right-associative), `||`, `&&`, relations, `+ -`,
/// `* / %`, unary `! -`, member access and calls, primaries. Relations associate to the left
/// (cel-parser refuses `a < b < c`; accepting it is harmless). The height of the tree is
/// limited so that no input can exhaust the stack: every bracket, unary operator and chained
/// binary operator on the way down counts one level.
struct Parser {
    static let maximumDepth = 400
    static let maximumSourceLength = 100_000

    private let tokens: [Token]
    private var cursor = 0
    private var depth = 0

    static func parse(_ source: String) throws(CompileError) -> Expr {
        guard source.utf8.count <= maximumSourceLength else {
            throw CompileError("Expression is longer than \(maximumSourceLength) bytes", at: nil)
        }
        var parser = Parser(tokens: try Lexer.tokenize(source))
        let expression = try parser.expression()
        guard case .end = parser.current.kind else {
            throw CompileError("Unexpected \(parser.current.kind.spelling)", at: parser.current.position)
        }
        return expression
    }

    private init(tokens: [Token]) {
        self.tokens = tokens
    }

    private var current: Token { tokens[cursor] }

    private mutating func advance() -> Token {
        let token = tokens[cursor]
        if cursor < tokens.count - 1 { cursor += 1 }
        return token
    }

    private func isPunctuation(_ symbol: String) -> Bool {
        if case .punctuation(let found) = current.kind { return found == symbol }
        return false
    }

    private mutating func accept(_ symbol: String) -> Bool {
        guard isPunctuation(symbol) else { return false }
        _ = advance()
        return true
    }

    private mutating func expect(_ symbol: String) throws(CompileError) {
        guard accept(symbol) else {
            throw CompileError("Expected '\(symbol)' but found \(current.kind.spelling)", at: current.position)
        }
    }

    private mutating func enter() throws(CompileError) {
        depth += 1
        if depth > Self.maximumDepth {
            throw CompileError("Expression nests deeper than \(Self.maximumDepth) levels", at: current.position)
        }
    }

    // MARK: Grammar

    private mutating func expression() throws(CompileError) -> Expr {
        try enter()
        defer { depth -= 1 }
        let condition = try disjunction()
        guard accept("?") else { return condition }
        let then = try disjunction()
        try expect(":")
        let otherwise = try expression()
        return .conditional(condition, then, otherwise)
    }

    private mutating func disjunction() throws(CompileError) -> Expr {
        let entry = depth
        defer { depth = entry }
        var left = try conjunction()
        while accept("||") {
            try enter()
            left = .or(left, try conjunction())
        }
        return left
    }

    private mutating func conjunction() throws(CompileError) -> Expr {
        let entry = depth
        defer { depth = entry }
        var left = try relation()
        while accept("&&") {
            try enter()
            left = .and(left, try relation())
        }
        return left
    }

    private mutating func relation() throws(CompileError) -> Expr {
        let entry = depth
        defer { depth = entry }
        var left = try addition()
        while true {
            let relation: Expr.Relation
            switch current.kind {
            case .punctuation(let symbol):
                guard let found = Expr.Relation(rawValue: symbol) else { return left }
                relation = found
            case .identifier("in"):
                relation = .in
            default:
                return left
            }
            _ = advance()
            try enter()
            left = .relation(relation, left, try addition())
        }
    }

    private mutating func addition() throws(CompileError) -> Expr {
        let entry = depth
        defer { depth = entry }
        var left = try multiplication()
        while true {
            let operation: Operators.Arithmetic
            if accept("+") { operation = .add } else if accept("-") { operation = .subtract } else { return left }
            try enter()
            left = .arithmetic(operation, left, try multiplication())
        }
    }

    private mutating func multiplication() throws(CompileError) -> Expr {
        let entry = depth
        defer { depth = entry }
        var left = try unary()
        while true {
            let operation: Operators.Arithmetic
            if accept("*") {
                operation = .multiply
            } else if accept("/") {
                operation = .divide
            } else if accept("%") {
                operation = .remainder
            } else {
                return left
            }
            try enter()
            left = .arithmetic(operation, left, try unary())
        }
    }

    private mutating func unary() throws(CompileError) -> Expr {
        try enter()
        defer { depth -= 1 }
        if accept("!") { return .not(try unary()) }
        if isPunctuation("-") {
            let position = advance().position
            if case .int64MinMagnitude = current.kind {
                _ = advance()
                return try memberSuffixes(.literal(.int(.min)))
            }
            let operand = try unary()
            // A minus before a numeric literal is part of the literal, as in cel-parser; the
            // null-safety rewrite treats `-1` as a literal.
            switch operand {
            case .literal(.int(let value)) where value != .min: return .literal(.int(-value))
            case .literal(.double(let value)): return .literal(.double(-value))
            case .literal(.uint): throw CompileError("An unsigned integer cannot be negated", at: position)
            default: return .negate(operand)
            }
        }
        return try member()
    }

    private mutating func member() throws(CompileError) -> Expr {
        try memberSuffixes(try primary())
    }

    private mutating func memberSuffixes(_ start: Expr) throws(CompileError) -> Expr {
        let entry = depth
        defer { depth = entry }
        var operand = start
        while true {
            try enter()
            if accept(".") {
                let name = try identifier()
                if accept("(") {
                    operand = .call(name, target: operand, try arguments(closing: ")"))
                } else {
                    operand = .select(operand, name)
                }
            } else if accept("[") {
                let index = try expression()
                try expect("]")
                operand = .index(operand, index)
            } else if isPunctuation("{"), let name = qualifiedName(operand) {
                _ = advance()
                operand = .message(name, try entries(fieldKeys: true))
            } else {
                return operand
            }
        }
    }

    private func qualifiedName(_ expression: Expr) -> String? {
        switch expression {
        case .identifier(let name): name
        case .select(let operand, let field): qualifiedName(operand).map { "\($0).\(field)" }
        default: nil
        }
    }

    private mutating func primary() throws(CompileError) -> Expr {
        let token = advance()
        switch token.kind {
        case .int(let value): return .literal(.int(value))
        case .uint(let value): return .literal(.uint(value))
        case .double(let value): return .literal(.double(value))
        case .string(let value): return .literal(.string(value))
        case .bytes(let value): return .literal(.bytes(value))
        case .int64MinMagnitude:
            throw CompileError("Integer '9223372036854775808' is out of range", at: token.position)
        case .identifier(let name):
            switch name {
            case "true": return .literal(.bool(true))
            case "false": return .literal(.bool(false))
            case "null": return .literal(.null)
            case "in": throw CompileError("Unexpected 'in'", at: token.position)
            default:
                if accept("(") { return .call(name, target: nil, try arguments(closing: ")")) }
                return .identifier(name)
            }
        case .punctuation("."):
            let name = try identifier()
            if accept("(") { return .call(name, target: nil, try arguments(closing: ")")) }
            return .identifier(name)
        case .punctuation("("):
            let inner = try expression()
            try expect(")")
            return inner
        case .punctuation("["):
            return .list(try arguments(closing: "]"))
        case .punctuation("{"):
            return .map(try entries(fieldKeys: false))
        default:
            throw CompileError("Unexpected \(token.kind.spelling)", at: token.position)
        }
    }

    private mutating func identifier() throws(CompileError) -> String {
        let token = advance()
        guard case .identifier(let name) = token.kind else {
            throw CompileError("Expected a name but found \(token.kind.spelling)", at: token.position)
        }
        return name
    }

    /// Comma-separated expressions up to `closing`, allowing a trailing comma.
    private mutating func arguments(closing: String) throws(CompileError) -> [Expr] {
        try enter()
        defer { depth -= 1 }
        var items: [Expr] = []
        while !accept(closing) {
            items.append(try expression())
            if !accept(",") {
                try expect(closing)
                break
            }
        }
        return items
    }

    /// `key: value` pairs up to `}`; in a message the keys are field names.
    private mutating func entries(fieldKeys: Bool) throws(CompileError) -> [Expr.MapEntry] {
        try enter()
        defer { depth -= 1 }
        var items: [Expr.MapEntry] = []
        while !accept("}") {
            let key: Expr = fieldKeys ? .literal(.string(try identifier())) : try expression()
            try expect(":")
            items.append(Expr.MapEntry(key: key, value: try expression()))
            if !accept(",") {
                try expect("}")
                break
            }
        }
        return items
    }
}

extension Token.Kind {
    var spelling: String {
        switch self {
        case .identifier(let name): "'\(name)'"
        case .int(let value): "'\(value)'"
        case .uint(let value): "'\(value)u'"
        case .double(let value): "'\(value)'"
        case .string: "a string"
        case .bytes: "a bytes literal"
        case .punctuation(let symbol): "'\(symbol)'"
        case .int64MinMagnitude: "'9223372036854775808'"
        case .end: "end of the expression"
        }
    }
}
