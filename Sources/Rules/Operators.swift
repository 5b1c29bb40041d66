/// The operators' dynamic semantics, after cel-interpreter 0.8.1,
/// except that integer overflow is an error rather than a silent wrap.
enum Operators {
    // MARK: Equality

    /// `==`: never an error; numbers compare across kinds; different kinds are unequal.
    /// Whether two strings are the same bytes: their lengths first, then their contiguous UTF-8.
    static func sameBytes(_ left: String, _ right: String) -> Bool {
        guard left.utf8.count == right.utf8.count else { return false }
        var left = left
        var right = right
        return left.withUTF8 { leftBytes in right.withUTF8 { rightBytes in leftBytes.elementsEqual(rightBytes) } }
    }

    /// Whether `needle`'s bytes occur in `text`'s, as Rust's `str::contains` looks (Swift's
    /// would match canonically equivalent spellings, and took 16 ms for a 1 MiB string), in
    /// time linear in both: a short needle is compared at each start, a longer one by
    /// Knuth-Morris-Pratt.
    static func containsBytes(_ text: String, _ needle: String) -> Bool {
        var text = text
        var needle = needle
        return text.withUTF8 { haystack in
            needle.withUTF8 { needle in
                guard !needle.isEmpty else { return true }
                guard needle.count <= haystack.count else { return false }
                guard needle.count > 16 else {
                    let first = needle[0]
                    for start in 0...(haystack.count - needle.count) where haystack[start] == first {
                        var offset = 1
                        while offset < needle.count, haystack[start + offset] == needle[offset] { offset += 1 }
                        if offset == needle.count { return true }
                    }
                    return false
                }
                // failure[i]: the length of the longest proper prefix of needle[0...i] that is
                // also its suffix.
                var failure = [Int](repeating: 0, count: needle.count)
                var length = 0
                for index in 1..<needle.count {
                    while length > 0, needle[index] != needle[length] { length = failure[length - 1] }
                    if needle[index] == needle[length] { length += 1 }
                    failure[index] = length
                }
                var matched = 0
                for byte in haystack {
                    while matched > 0, byte != needle[matched] { matched = failure[matched - 1] }
                    if byte == needle[matched] { matched += 1 }
                    if matched == needle.count { return true }
                }
                return false
            }
        }
    }

    static func equals(_ left: Value, _ right: Value) -> Bool {
        switch (left, right) {
        case (.null, .null): return true
        case (.bool(let l), .bool(let r)): return l == r
        // By bytes, as Rust compares strings (Swift's == would also equate canonically
        // equivalent spellings, and takes a slow path for every pair that differs).
        case (.string(let l), .string(let r)): return sameBytes(l, r)
        case (.bytes(let l), .bytes(let r)): return l == r
        case (.timestamp(let l), .timestamp(let r)): return l.instant == r.instant
        case (.duration(let l), .duration(let r)): return l == r
        case (.function(let l, _), .function(let r, _)): return l == r
        case (.list(let l), .list(let r)):
            guard l.count == r.count else { return false }
            for index in l.indices where !equals(l[index], r[index]) { return false }
            return true
        case (.map(let l), .map(let r)):
            let left = l.entries
            let right = r.entries
            guard left.count == right.count else { return false }
            for (key, value) in left {
                guard let other = right[key], equals(value, other) else { return false }
            }
            return true
        default:
            if let order = numericOrder(left, right) { return order == 0 }
            return false
        }
    }

    // MARK: Ordering

    /// Three-way comparison of numbers of any kind; nil when either is not a number or NaN is involved.
    static func numericOrder(_ left: Value, _ right: Value) -> Int? {
        switch (left, right) {
        case (.int(let l), .int(let r)): return l < r ? -1 : (l == r ? 0 : 1)
        case (.uint(let l), .uint(let r)): return l < r ? -1 : (l == r ? 0 : 1)
        case (.double(let l), .double(let r)): return order(l, r)
        case (.int(let l), .uint(let r)): return l < 0 ? -1 : order(UInt64(l), r)
        case (.uint(let l), .int(let r)): return r < 0 ? 1 : order(l, UInt64(r))
        case (.int(let l), .double(let r)): return order(Double(l), r)
        case (.double(let l), .int(let r)): return order(l, Double(r))
        case (.uint(let l), .double(let r)): return order(Double(l), r)
        case (.double(let l), .uint(let r)): return order(l, Double(r))
        default: return nil
        }
    }

    private static func order<T: Comparable>(_ left: T, _ right: T) -> Int? {
        if left < right { return -1 }
        if left == right { return 0 }
        if left > right { return 1 }
        return nil
    }

    /// Three-way comparison for `< <= > >=`; an error for kinds that do not order.
    static func compare(_ left: Value, _ right: Value) throws(EvaluationError) -> Int {
        switch (left, right) {
        case (.string(let l), .string(let r)):
            if l == r { return 0 }
            return l.utf8.lexicographicallyPrecedes(r.utf8) ? -1 : 1
        case (.bool(let l), .bool(let r)):
            return l == r ? 0 : (!l ? -1 : 1)
        case (.null, .null):
            return 0
        case (.bytes(let l), .bytes(let r)):
            if l == r { return 0 }
            return l.lexicographicallyPrecedes(r) ? -1 : 1
        case (.timestamp(let l), .timestamp(let r)):
            return l.instant < r.instant ? -1 : (l.instant == r.instant ? 0 : 1)
        case (.duration(let l), .duration(let r)):
            let lhs = (l.seconds, l.nanoseconds)
            let rhs = (r.seconds, r.nanoseconds)
            return lhs < rhs ? -1 : (lhs == rhs ? 0 : 1)
        default:
            if let order = numericOrder(left, right) { return order }
            throw .notComparable(left, right)
        }
    }

    // MARK: Arithmetic

    enum Arithmetic: String, Sendable {
        case add = "+"
        case subtract = "-"
        case multiply = "*"
        case divide = "/"
        case remainder = "%"
    }

    static func apply(_ operation: Arithmetic, _ left: Value, _ right: Value) throws(EvaluationError) -> Value {
        switch (left, right) {
        case (.int(let l), .int(let r)): return .int(try integer(operation, l, r))
        case (.uint(let l), .uint(let r)): return .uint(try integer(operation, l, r))
        case (.double(let l), .double(let r)): return .double(floating(operation, l, r))
        case (.int(let l), .double(let r)): return .double(floating(operation, Double(l), r))
        case (.double(let l), .int(let r)): return .double(floating(operation, l, Double(r)))
        case (.uint(let l), .double(let r)): return .double(floating(operation, Double(l), r))
        case (.double(let l), .uint(let r)): return .double(floating(operation, l, Double(r)))
        default: break
        }
        switch (operation, left, right) {
        case (.add, .string(let l), .string(let r)): return .string(l + r)
        case (.add, .bytes(let l), .bytes(let r)): return .bytes(l + r)
        case (.add, .list(let l), .list(let r)): return .list(l + r)
        case (.add, .map(let l), .map(let r)):
            return .map(ValueMap(keyed: l.entries.merging(r.entries) { _, right in right }))
        case (.add, .timestamp(let t), .duration(let d)), (.add, .duration(let d), .timestamp(let t)):
            return .timestamp(try Chronology.add(d, to: t, sign: 1))
        case (.subtract, .timestamp(let t), .duration(let d)):
            return .timestamp(try Chronology.add(d, to: t, sign: -1))
        case (.subtract, .timestamp(let l), .timestamp(let r)):
            return .duration(try Chronology.difference(l, r))
        case (.add, .duration(let l), .duration(let r)):
            return .duration(try Chronology.sum(l, r, sign: 1))
        case (.subtract, .duration(let l), .duration(let r)):
            return .duration(try Chronology.sum(l, r, sign: -1))
        default:
            throw .unsupported(operation.rawValue, left, right)
        }
    }

    private static func integer<T: FixedWidthInteger>(
        _ operation: Arithmetic,
        _ l: T,
        _ r: T
    ) throws(EvaluationError) -> T {
        let (result, overflow): (T, Bool)
        switch operation {
        case .add: (result, overflow) = l.addingReportingOverflow(r)
        case .subtract: (result, overflow) = l.subtractingReportingOverflow(r)
        case .multiply: (result, overflow) = l.multipliedReportingOverflow(by: r)
        case .divide:
            if r == 0 { throw EvaluationError(.divisionByZero, "Division by zero") }
            (result, overflow) = l.dividedReportingOverflow(by: r)
        case .remainder:
            if r == 0 { throw EvaluationError(.divisionByZero, "Modulus by zero") }
            (result, overflow) = l.remainderReportingOverflow(dividingBy: r)
        }
        if overflow { throw EvaluationError(.overflow, "Integer overflow in \(l) \(operation.rawValue) \(r)") }
        return result
    }

    private static func floating(_ operation: Arithmetic, _ l: Double, _ r: Double) -> Double {
        switch operation {
        case .add: l + r
        case .subtract: l - r
        case .multiply: l * r
        case .divide: l / r
        case .remainder: l.truncatingRemainder(dividingBy: r)
        }
    }

    static func negate(_ value: Value) throws(EvaluationError) -> Value {
        switch value {
        case .int(let v):
            let (result, overflow) = Int64(0).subtractingReportingOverflow(v)
            if overflow { throw EvaluationError(.overflow, "Integer overflow in -(\(v))") }
            return .int(result)
        case .double(let v): return .double(-v)
        case .duration(let d): return .duration(try Chronology.sum(TimeSpan(seconds: 0), d, sign: -1))
        default: throw .unsupported("-", value)
        }
    }

    // MARK: Membership and indexing

    /// `x in list`, `key in map`, and Superscript's substring test `"ab" in "xabx"`.
    static func contains(_ container: Value, _ element: Value) throws(EvaluationError) -> Bool {
        switch container {
        case .list(let elements): return elements.contains { equals($0, element) }
        case .map(let map):
            guard let key = MapKey(element) else { return false }
            return map[key] != nil
        case .string(let text):
            guard case .string(let needle) = element else { throw .unsupported("in", element, container) }
            return containsBytes(text, needle)
        default:
            throw .unsupported("in", element, container)
        }
    }

    /// `container[index]`: null past the end of a list or string, an error for a missing map key.
    static func index(_ container: Value, _ index: Value) throws(EvaluationError) -> Value {
        switch container {
        case .list(let elements):
            guard let position = integerIndex(index) else { throw .unsupported("[]", container, index) }
            return position >= 0 && position < Int64(elements.count) ? elements[Int(position)] : .null
        case .string(let text):
            guard let position = integerIndex(index) else { throw .unsupported("[]", container, index) }
            let bytes = text.utf8
            guard position >= 0, position < Int64(bytes.count) else { return .null }
            let start = bytes.index(bytes.startIndex, offsetBy: Int(position))
            return .string(String(decoding: bytes[start...start], as: UTF8.self))
        case .map(let map):
            guard let key = MapKey(index) else { throw .unsupported("[]", container, index) }
            if let value = map[key] { return value }
            throw .noSuchKey(Printing.keyDescription(key))
        default:
            throw .unsupported("[]", container, index)
        }
    }

    private static func integerIndex(_ value: Value) -> Int64? {
        switch value {
        case .int(let v): v
        case .uint(let v): v > UInt64(Int64.max) ? Int64.max : Int64(v)
        default: nil
        }
    }
}
