/// Why an evaluation produced no value. The messages follow cel-interpreter's where one
/// exists, because Superscript's post-pass recognises three of them by their text.
public struct EvaluationError: Error, Sendable, Equatable, CustomStringConvertible {
    public enum Kind: String, Sendable {
        /// An identifier no variable answers (`Undeclared reference to 'x'`).
        case undeclaredReference
        /// A call to a function nobody declared.
        case unknownFunction
        /// `.key` or `[key]` on a map without it, or a member of a non-map.
        case noSuchKey
        /// An ordering between kinds that do not order (`Int(1) can not be compared to Null`).
        case notComparable
        /// An operator or function applied to kinds it does not take.
        case unsupportedOperation
        /// A function given arguments it cannot use.
        case invalidArgument
        case divisionByZero
        case overflow
        /// The evaluation ran past its step or size budget.
        case budgetExceeded
        /// A host function whose arguments could not be resolved.
        case hostFunction
    }

    public let kind: Kind
    public let message: String
    /// For `notComparable`: the left operand was null, which Superscript turns into a null result.
    let leftOperandIsNull: Bool

    init(_ kind: Kind, _ message: String, leftOperandIsNull: Bool = false) {
        self.kind = kind
        self.message = message
        self.leftOperandIsNull = leftOperandIsNull
    }

    public var description: String { message }

    static func undeclared(_ name: String) -> EvaluationError {
        EvaluationError(.undeclaredReference, "Undeclared reference to '\(name)'")
    }

    static func unknownFunction(_ name: String) -> EvaluationError {
        EvaluationError(.unknownFunction, "Unknown function '\(name)'")
    }

    static func noSuchKey(_ key: String) -> EvaluationError {
        EvaluationError(.noSuchKey, "No such key: \(key)")
    }

    static func notComparable(_ left: Value, _ right: Value) -> EvaluationError {
        var isNull = false
        if case .null = left { isNull = true }
        return EvaluationError(
            .notComparable,
            "\(left.debugDescription) can not be compared to \(right.debugDescription)",
            leftOperandIsNull: isNull
        )
    }

    static func unsupported(_ operation: String, _ left: Value, _ right: Value? = nil) -> EvaluationError {
        if let right {
            return EvaluationError(
                .unsupportedOperation,
                "Unsupported binary operator '\(operation)': \(left.kindName), \(right.kindName)"
            )
        }
        return EvaluationError(.unsupportedOperation, "Unsupported unary operator '\(operation)': \(left.kindName)")
    }

    static func invalidArgument(_ function: String, _ message: String) -> EvaluationError {
        EvaluationError(.invalidArgument, "\(function): \(message)")
    }

    /// cel-interpreter's words, which Superscript passes on.
    static func argumentCount(_ function: String, expected: Int, got: Int) -> EvaluationError {
        EvaluationError(.invalidArgument, "\(function): Invalid argument count: expected \(expected), got \(got)")
    }

    /// Superscript turns undeclared references, unknown functions and comparisons whose left
    /// side is null into a null result rather than an error.
    var becomesNullResult: Bool {
        switch kind {
        case .undeclaredReference, .unknownFunction: true
        case .notComparable: leftOperandIsNull
        default: false
        }
    }
}
