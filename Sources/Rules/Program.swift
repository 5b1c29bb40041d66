import Synchronization

/// A compiled expression: parsed, rewritten by Superscript's pre-pass and lowered, once.
/// Evaluating it never parses; one program may be evaluated from many threads at once.
public struct Program: Sendable {
    public let source: String
    private let root: any Node
    private let localSlots: Int
    /// The variables' fields the program reads, when they are all it reads of the outside
    /// world: its value is then a function of their values alone (`FieldValue`).
    public let memberPaths: [MemberPath]?

    public init(_ source: String) throws(CompileError) {
        try self.init(source, optimize: true)
    }

    init(_ source: String, optimize: Bool) throws(CompileError) {
        self.source = source
        let rewritten = SuperscriptRewrite.apply(try Parser.parse(source))
        var compiler = Compiler(optimize: optimize)
        root = try compiler.lower(rewritten)
        localSlots = compiler.slotCount
        memberPaths = compiler.memberPaths.map { paths in
            paths.reduce(into: []) { unique, path in
                if !unique.contains(where: { $0 === path }) { unique.append(path) }
            }
        }
    }

    /// The value, with Superscript's post-pass applied: undeclared references, unknown
    /// functions and comparisons of a null left side give `null`, not an error.
    public func evaluate(_ activation: any Activation) -> Result<Value, EvaluationError> {
        var frame = Frame(activation: activation, localSlots: localSlots)
        do {
            return .success(try root.evaluate(&frame))
        } catch  where error.becomesNullResult {
            return .success(.null)
        } catch {
            return .failure(error)
        }
    }

    /// Whether the expression is `true` whatever it is evaluated against (the literal, after
    /// Superscript's rewrite of `"true"`).
    public var isAlwaysTrue: Bool {
        if let constant = root as? Constant, case .bool(true) = constant.value { return true }
        return false
    }

    /// Whether an audience rule matches: only an evaluation to exactly `true` does.
    public func matches(_ activation: any Activation) -> Bool {
        if case .success(.bool(true)) = evaluate(activation) { return true }
        return false
    }
}

/// Why an expression gave no value: it did not compile, or its evaluation failed.
public enum RuleError: Error, Sendable, Equatable, CustomStringConvertible {
    case compile(CompileError)
    case evaluation(EvaluationError)

    public var description: String {
        switch self {
        case .compile(let error): "Failed to compile expression: \(error)"
        case .evaluation(let error): error.message
        }
    }
}

/// Compiled programs by source text, shared by every evaluation. Compile failures are kept
/// too, so a broken rule is not re-parsed on every placement. Bounded: past `capacity`
/// entries an arbitrary one is dropped.
public final class ProgramCache: Sendable {
    public static let shared = ProgramCache()

    private let programs = Mutex<[String: Result<Program, CompileError>]>([:])
    private let capacity: Int

    public init(capacity: Int = 10_000) {
        self.capacity = capacity
    }

    public func program(for source: String) -> Result<Program, CompileError> {
        if let cached = programs.withLock({ $0[source] }) { return cached }
        let compiled = Result { () throws(CompileError) in try Program(source) }
        programs.withLock { programs in
            if programs.count >= capacity, let victim = programs.keys.first { programs[victim] = nil }
            programs[source] = compiled
        }
        return compiled
    }

    public func evaluate(_ source: String, _ activation: any Activation) -> Result<Value, RuleError> {
        switch program(for: source) {
        case .failure(let error): .failure(.compile(error))
        case .success(let program): program.evaluate(activation).mapError { .evaluation($0) }
        }
    }

    public var count: Int { programs.withLock { $0.count } }
}

/// A rule's source with its program, compiled on first use and then kept: for a rule that
/// is evaluated again and again (an audience), which so skips the shared cache's lookup by
/// source text. Two rules are equal when their sources are.
public final class Rule: Sendable, Equatable {
    public let source: String
    /// Whether the source names `matches`: the one function whose cost grows with its input.
    /// Read from the text (a string literal may say it too), so that a config of thousands of
    /// rules is sorted without compiling them.
    public let mayCallMatches: Bool
    private let compiled = Mutex<Result<Program, CompileError>?>(nil)

    public init(_ source: String) {
        self.source = source
        mayCallMatches = Self.names("matches", in: source)
    }

    private static func names(_ word: StaticString, in source: String) -> Bool {
        let needle = UnsafeRawBufferPointer(start: word.utf8Start, count: word.utf8CodeUnitCount)
        var text = source
        return text.withUTF8 { bytes in
            guard bytes.count >= needle.count else { return false }
            for start in 0...(bytes.count - needle.count) where bytes[start] == needle[0] {
                var index = 1
                while index < needle.count, bytes[start + index] == needle[index] { index += 1 }
                if index == needle.count { return true }
            }
            return false
        }
    }

    public var program: Result<Program, CompileError> {
        if let program = compiled.withLock({ $0 }) { return program }
        let program = ProgramCache.shared.program(for: source)
        compiled.withLock { $0 = program }
        return program
    }

    /// Whether the rule matches: only an evaluation to exactly `true` does; a rule that does
    /// not compile matches nothing.
    public func matches(_ activation: any Activation) -> Bool {
        guard case .success(let program) = program else { return false }
        return program.matches(activation)
    }

    public static func == (lhs: Rule, rhs: Rule) -> Bool { lhs.source == rhs.source }
}

/// What a member path reads in an activation, as `Select` reads it: the variable may be
/// missing, and the field missing from it. Compared exactly (`Value`'s structural `==`: an
/// int 1 is not a double 1).
public enum FieldValue: Equatable, Sendable {
    case noVariable
    case field(Value?)

    public init(of path: MemberPath, in activation: any Activation) {
        if let remembered = activation.rememberedMember(path) {
            self = .field(remembered)
            return
        }
        guard let container = activation.variable(named: path.variable) else {
            self = .noVariable
            return
        }
        let frame = Frame(activation: activation, localSlots: 0)
        let value = frame.member(path.field, of: container, isBuiltin: path.fieldIsBuiltin)
        activation.remember(value, for: path)
        self = .field(value)
    }
}
