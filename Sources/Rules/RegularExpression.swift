/// `matches()`: Rust `regex` syntax, run by a Pike VM, so time grows with pattern size times
/// input length and never exponentially (there are no backreferences, as in Rust).
///
/// Bounds: patterns of at most 1,000 characters, repetition counts of at most 1,000, programs
/// of at most 10,000 instructions, nesting of at most 100 groups, and at most 10 million
/// instruction steps per match; past any of them `matches` is an error. Supported: literals,
/// `.`, classes (`[a-z]`, `[^...]`, `\d \w \s` and their negations), groups (plain,
/// non-capturing, named), alternation, `* + ? {n} {n,} {n,m}` (lazy forms too), anchors
/// `^ $ \A \z \b \B`, and the flags `i` (ASCII case folding), `m` and `s`. Unicode classes
/// (`\p{...}`) are refused.
struct RegularExpression {
    static let maximumPatternLength = 1000
    static let maximumRepetition = 1000
    static let maximumInstructions = 10_000
    /// The most nodes compiling a pattern may emit, repetitions counted out.
    static let maximumCompiledNodes = 100_000
    static let maximumNesting = 100
    static let maximumSteps = 10_000_000

    private let program: [Instruction]
    /// Whether the program asserts `\b` or `\B`: a match then reads which of the input's
    /// scalars are word characters once, not at every step (a Unicode property lookup made
    /// such a step a hundred times a character step).
    private let assertsWordBoundaries: Bool

    init(_ pattern: String) throws(EvaluationError) {
        guard pattern.unicodeScalars.count <= Self.maximumPatternLength else {
            throw Self.failure("pattern is longer than \(Self.maximumPatternLength) characters")
        }
        var parser = RegexParser(Array(pattern.unicodeScalars))
        let tree = try parser.parseAll()
        var compiler = RegexCompiler()
        try compiler.emit(tree)
        compiler.append(.match)
        program = compiler.instructions
        assertsWordBoundaries = program.contains { instruction in
            if case .assert(.wordBoundary) = instruction { return true }
            if case .assert(.notWordBoundary) = instruction { return true }
            return false
        }
    }

    static func failure(_ message: String) -> EvaluationError {
        EvaluationError.invalidArgument("matches", message)
    }

    /// The most steps a match against an input of `count` scalars can take.
    func worstCaseSteps(forInputOf count: Int) -> Int {
        program.count.multipliedReportingOverflow(by: count + 1).overflow ? .max : program.count * (count + 1)
    }

    /// Whether the pattern matches anywhere in `text`.
    func matches(_ text: String) throws(EvaluationError) -> Bool {
        try matches(Array(text.unicodeScalars))
    }

    /// Whether the pattern matches anywhere in `input`.
    func matches(_ input: [Unicode.Scalar]) throws(EvaluationError) -> Bool {
        guard worstCaseSteps(forInputOf: input.count) <= Self.maximumSteps else {
            throw Self.failure("pattern and input are too large to match within \(Self.maximumSteps) steps")
        }
        var current = ThreadList(capacity: program.count)
        var next = ThreadList(capacity: program.count)
        let words = assertsWordBoundaries ? input.map(CharacterMatcher.isWord) : []
        current.startGeneration()
        for position in 0...input.count {
            // A fresh start thread at every position: the search is unanchored. It shares the
            // generation of the threads that advanced here, so none is added twice.
            if add(0, at: position, input: input, words: words, to: &current) { return true }
            guard position < input.count else { break }
            let scalar = input[position]
            next.startGeneration()
            for pc in current.threads {
                guard case .character(let matcher) = program[pc], matcher.matches(scalar) else { continue }
                if add(pc + 1, at: position + 1, input: input, words: words, to: &next) { return true }
            }
            swap(&current, &next)
        }
        return false
    }

    /// Adds `pc` and everything reachable from it without consuming input; true when that
    /// reaches `match`. `words` says which scalars of the input are word characters, when
    /// the program asks.
    private func add(
        _ start: Int,
        at position: Int,
        input: [Unicode.Scalar],
        words: [Bool],
        to list: inout ThreadList
    ) -> Bool {
        var pending = [start]
        while let pc = pending.popLast() {
            guard list.mark(pc) else { continue }
            switch program[pc] {
            case .match: return true
            case .character: list.threads.append(pc)
            case .jump(let target): pending.append(target)
            case .split(let first, let second):
                pending.append(second)
                pending.append(first)
            case .assert(let assertion):
                if assertion.holds(at: position, in: input, words: words) { pending.append(pc + 1) }
            }
        }
        return false
    }
}

private struct ThreadList {
    var threads: [Int] = []
    private var marks: [UInt32]
    private var generation: UInt32 = 0

    init(capacity: Int) {
        marks = Array(repeating: 0, count: capacity)
    }

    mutating func mark(_ pc: Int) -> Bool {
        if marks[pc] == generation { return false }
        marks[pc] = generation
        return true
    }

    mutating func startGeneration() {
        threads.removeAll(keepingCapacity: true)
        generation &+= 1
    }
}

enum Instruction {
    case character(CharacterMatcher)
    case split(Int, Int)
    case jump(Int)
    case assert(Assertion)
    case match
}

enum Assertion {
    case textStart, textEnd, lineStart, lineEnd, wordBoundary, notWordBoundary

    func holds(at position: Int, in input: [Unicode.Scalar], words: [Bool]) -> Bool {
        switch self {
        case .textStart: return position == 0
        case .textEnd: return position == input.count
        case .lineStart: return position == 0 || input[position - 1] == "\n"
        case .lineEnd: return position == input.count || input[position] == "\n"
        case .wordBoundary, .notWordBoundary:
            let before = position > 0 && words[position - 1]
            let after = position < input.count && words[position]
            return (before != after) == (self == .wordBoundary)
        }
    }
}

struct CharacterMatcher {
    var ranges: [ClosedRange<UInt32>]
    var negated = false
    var caseInsensitive = false

    static func isWord(_ scalar: Unicode.Scalar) -> Bool {
        if scalar.isASCII {
            let value = scalar.value
            return value == 0x5F || (0x30...0x39).contains(value) || (0x41...0x5A).contains(value)
                || (0x61...0x7A).contains(value)
        }
        return scalar.properties.isAlphabetic || scalar.properties.numericType == .decimal
    }

    func matches(_ scalar: Unicode.Scalar) -> Bool {
        var found = contains(scalar.value)
        if !found, caseInsensitive, scalar.isASCII, let folded = Self.otherCase(scalar.value) {
            found = contains(folded)
        }
        return found != negated
    }

    private func contains(_ value: UInt32) -> Bool {
        ranges.contains { $0.contains(value) }
    }

    private static func otherCase(_ value: UInt32) -> UInt32? {
        switch value {
        case 0x41...0x5A: value + 32
        case 0x61...0x7A: value - 32
        default: nil
        }
    }
}

indirect enum RegexNode {
    case empty
    case character(CharacterMatcher)
    case assert(Assertion)
    case concatenation([RegexNode])
    case alternation([RegexNode])
    case repetition(RegexNode, minimum: Int, maximum: Int?)
}

struct RegexFlags {
    var caseInsensitive = false
    var multiLine = false
    var dotMatchesNewline = false
}

private struct RegexParser {
    private let scalars: [Unicode.Scalar]
    private var cursor = 0
    private var depth = 0
    private var flags = RegexFlags()

    init(_ scalars: [Unicode.Scalar]) {
        self.scalars = scalars
    }

    mutating func parseAll() throws(EvaluationError) -> RegexNode {
        let node = try alternation()
        guard cursor == scalars.count else { throw RegularExpression.failure("unbalanced ')'") }
        return node
    }

    private var current: Unicode.Scalar? { cursor < scalars.count ? scalars[cursor] : nil }

    private mutating func alternation() throws(EvaluationError) -> RegexNode {
        var branches = [try concatenation()]
        while current == "|" {
            cursor += 1
            branches.append(try concatenation())
        }
        return branches.count == 1 ? branches[0] : .alternation(branches)
    }

    private mutating func concatenation() throws(EvaluationError) -> RegexNode {
        var items: [RegexNode] = []
        while let scalar = current, scalar != "|", scalar != ")" {
            if let atom = try atom() { items.append(try quantified(atom)) }
        }
        return items.count == 1 ? items[0] : (items.isEmpty ? .empty : .concatenation(items))
    }

    private mutating func quantified(_ atom: RegexNode) throws(EvaluationError) -> RegexNode {
        var node = atom
        while let scalar = current {
            let bounds: (Int, Int?)
            switch scalar {
            case "*":
                bounds = (0, nil)
                cursor += 1
            case "+":
                bounds = (1, nil)
                cursor += 1
            case "?":
                bounds = (0, 1)
                cursor += 1
            case "{":
                guard let counted = try countedRepetition() else { return node }
                bounds = counted
            default: return node
            }
            if current == "?" { cursor += 1 }
            node = .repetition(node, minimum: bounds.0, maximum: bounds.1)
        }
        return node
    }

    /// `{n}`, `{n,}`, `{n,m}`; nil (and a literal `{`) when what follows is not a count.
    private mutating func countedRepetition() throws(EvaluationError) -> (Int, Int?)? {
        let start = cursor
        cursor += 1
        func number() -> Int? {
            var digits = ""
            while let scalar = current, scalar.properties.numericType == .decimal, scalar.isASCII {
                digits.unicodeScalars.append(scalar)
                cursor += 1
            }
            return digits.isEmpty ? nil : Int(digits.prefix(5))
        }
        guard let minimum = number() else {
            cursor = start
            return nil
        }
        var maximum: Int? = minimum
        if current == "," {
            cursor += 1
            maximum = number()
        }
        guard current == "}" else {
            cursor = start
            return nil
        }
        cursor += 1
        guard minimum <= RegularExpression.maximumRepetition, (maximum ?? 0) <= RegularExpression.maximumRepetition,
            maximum.map({ $0 >= minimum }) ?? true
        else {
            throw RegularExpression.failure(
                "repetition count out of range (at most \(RegularExpression.maximumRepetition))"
            )
        }
        return (minimum, maximum)
    }

    private mutating func atom() throws(EvaluationError) -> RegexNode? {
        guard let scalar = current else { return nil }
        cursor += 1
        switch scalar {
        case "(": return try group()
        case "[": return .character(try characterClass())
        case ".":
            var matcher = CharacterMatcher(ranges: [0...0x10FFFF])
            if !flags.dotMatchesNewline { matcher = CharacterMatcher(ranges: [0x0A...0x0A], negated: true) }
            return .character(matcher)
        case "^": return .assert(flags.multiLine ? .lineStart : .textStart)
        case "$": return .assert(flags.multiLine ? .lineEnd : .textEnd)
        case "\\": return try escape()
        case "*", "+", "?": throw RegularExpression.failure("repetition operator '\(scalar)' has nothing to repeat")
        default: return .character(literal(scalar.value))
        }
    }

    private func literal(_ value: UInt32) -> CharacterMatcher {
        CharacterMatcher(ranges: [value...value], caseInsensitive: flags.caseInsensitive)
    }

    private mutating func group() throws(EvaluationError) -> RegexNode? {
        depth += 1
        defer { depth -= 1 }
        guard depth <= RegularExpression.maximumNesting else {
            throw RegularExpression.failure("groups nest deeper than \(RegularExpression.maximumNesting)")
        }
        let saved = flags
        if current == "?" {
            cursor += 1
            if current == "P" || current == "<" {
                if current == "P" { cursor += 1 }
                guard current == "<" else { throw RegularExpression.failure("invalid group name") }
                while let scalar = current, scalar != ">" { cursor += 1 }
                guard current == ">" else { throw RegularExpression.failure("unterminated group name") }
                cursor += 1
            } else {
                var enable = true
                var newFlags = flags
                while let scalar = current, scalar != ":", scalar != ")" {
                    switch scalar {
                    case "-": enable = false
                    case "i": newFlags.caseInsensitive = enable
                    case "m": newFlags.multiLine = enable
                    case "s": newFlags.dotMatchesNewline = enable
                    case "U", "x", "u": break
                    default: throw RegularExpression.failure("unknown flag '\(scalar)'")
                    }
                    cursor += 1
                }
                if current == ")" {
                    cursor += 1
                    flags = newFlags
                    return nil
                }
                guard current == ":" else { throw RegularExpression.failure("unterminated group") }
                cursor += 1
                flags = newFlags
            }
        }
        let inner = try alternation()
        guard current == ")" else { throw RegularExpression.failure("unclosed group") }
        cursor += 1
        flags = saved
        return inner
    }

    private mutating func characterClass() throws(EvaluationError) -> CharacterMatcher {
        var matcher = CharacterMatcher(ranges: [], caseInsensitive: flags.caseInsensitive)
        if current == "^" {
            matcher.negated = true
            cursor += 1
        }
        var first = true
        while true {
            guard let scalar = current else { throw RegularExpression.failure("unclosed character class") }
            if scalar == "]" && !first {
                cursor += 1
                return matcher
            }
            first = false
            cursor += 1
            if scalar == "[" && current == ":" { throw RegularExpression.failure("POSIX classes are not supported") }
            var low: UInt32
            if scalar == "\\" {
                switch try escape() {
                case .character(let escaped)
                where escaped.ranges.count == 1 && !escaped.negated
                    && escaped.ranges[0].lowerBound == escaped.ranges[0].upperBound:
                    low = escaped.ranges[0].lowerBound
                case .character(let set):
                    guard !set.negated else {
                        throw RegularExpression.failure("negated classes inside a class are not supported")
                    }
                    matcher.ranges += set.ranges
                    continue
                default:
                    throw RegularExpression.failure("invalid escape in a character class")
                }
            } else {
                low = scalar.value
            }
            if current == "-", cursor + 1 < scalars.count, scalars[cursor + 1] != "]" {
                cursor += 1
                guard var high = current?.value else { throw RegularExpression.failure("unclosed character class") }
                cursor += 1
                if high == 0x5C {
                    guard case .character(let escaped) = try escape(), escaped.ranges.count == 1,
                        escaped.ranges[0].lowerBound == escaped.ranges[0].upperBound
                    else { throw RegularExpression.failure("invalid range end") }
                    high = escaped.ranges[0].lowerBound
                }
                guard low <= high else { throw RegularExpression.failure("invalid range in a character class") }
                matcher.ranges.append(low...high)
            } else {
                matcher.ranges.append(low...low)
            }
        }
    }

    private static let digits: [ClosedRange<UInt32>] = [0x30...0x39]
    private static let word: [ClosedRange<UInt32>] = [0x30...0x39, 0x41...0x5A, 0x5F...0x5F, 0x61...0x7A]
    private static let space: [ClosedRange<UInt32>] = [0x09...0x0D, 0x20...0x20]

    private mutating func escape() throws(EvaluationError) -> RegexNode {
        guard let scalar = current else { throw RegularExpression.failure("trailing backslash") }
        cursor += 1
        switch scalar {
        case "d": return .character(CharacterMatcher(ranges: Self.digits))
        case "D": return .character(CharacterMatcher(ranges: Self.digits, negated: true))
        case "w": return .character(CharacterMatcher(ranges: Self.word))
        case "W": return .character(CharacterMatcher(ranges: Self.word, negated: true))
        case "s": return .character(CharacterMatcher(ranges: Self.space))
        case "S": return .character(CharacterMatcher(ranges: Self.space, negated: true))
        case "b": return .assert(.wordBoundary)
        case "B": return .assert(.notWordBoundary)
        case "A": return .assert(.textStart)
        case "z": return .assert(.textEnd)
        case "n": return .character(literal(0x0A))
        case "t": return .character(literal(0x09))
        case "r": return .character(literal(0x0D))
        case "f": return .character(literal(0x0C))
        case "v": return .character(literal(0x0B))
        case "x", "u", "U":
            return .character(literal(try hexEscape(fixedWidth: scalar == "x" ? 2 : (scalar == "u" ? 4 : 8))))
        case "p", "P": throw RegularExpression.failure("Unicode classes are not supported")
        default:
            guard !scalar.properties.isAlphabetic, scalar.properties.numericType == nil else {
                throw RegularExpression.failure("unknown escape '\\\(scalar)'")
            }
            return .character(literal(scalar.value))
        }
    }

    private mutating func hexEscape(fixedWidth: Int) throws(EvaluationError) -> UInt32 {
        var digits = ""
        if current == "{" {
            cursor += 1
            while let scalar = current, scalar != "}" {
                digits.unicodeScalars.append(scalar)
                cursor += 1
            }
            guard current == "}" else { throw RegularExpression.failure("unterminated hexadecimal escape") }
            cursor += 1
        } else {
            for _ in 0..<fixedWidth {
                guard let scalar = current else { break }
                digits.unicodeScalars.append(scalar)
                cursor += 1
            }
        }
        guard digits.count <= 8, let value = UInt32(digits, radix: 16), Unicode.Scalar(value) != nil else {
            throw RegularExpression.failure("invalid hexadecimal escape")
        }
        return value
    }
}
