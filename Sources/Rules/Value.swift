/// A value of the rules language: what variables hold, what expressions produce.
///
/// The kinds are cel-interpreter's, which Superscript embeds. A `function` value is what a
/// declared host function looks like when it is read as a member (`device.daysSince` without
/// a call); it is falsy and can only be compared.
public enum Value: Sendable {
    case null
    case bool(Bool)
    case int(Int64)
    case uint(UInt64)
    case double(Double)
    case string(String)
    case bytes([UInt8])
    case list([Value])
    case map(ValueMap)
    case timestamp(Timestamp)
    case duration(TimeSpan)
    /// A host function read without being called (`device.daysSince`), with the argument
    /// Superscript keeps beside its name: a value's own, or a declared function's list of
    /// declared arguments.
    indirect case function(String, argument: Value? = nil)
}

extension Value {
    /// The kind's name as errors print it, after cel-interpreter's `Debug` output.
    public var kindName: String {
        switch self {
        case .null: "Null"
        case .bool: "Bool"
        case .int: "Int"
        case .uint: "UInt"
        case .double: "Float"
        case .string: "String"
        case .bytes: "Bytes"
        case .list: "List"
        case .map: "Map"
        case .timestamp: "Timestamp"
        case .duration: "Duration"
        case .function: "Function"
        }
    }

    /// How the value reads in an error message: `Int(1)`, `Null`, `String("a")`.
    var debugDescription: String {
        switch self {
        case .null: "Null"
        case .bool(let value): "Bool(\(value))"
        case .int(let value): "Int(\(value))"
        case .uint(let value): "UInt(\(value))"
        case .double(let value): "Float(\(NumberFormatting.rustDisplay(value)))"
        case .string(let value): "String(\"\(value)\")"
        case .function(let name, _): "Function(\(name))"
        default: kindName
        }
    }

    /// Superscript's truthiness, used by `!`, `&&`, `||`, `?:` and the macros.
    public var isTruthy: Bool {
        switch self {
        case .null, .function: false
        case .bool(let value): value
        case .int(let value): value != 0
        case .uint(let value): value != 0
        case .double(let value): value != 0
        case .string(let value): !value.isEmpty
        case .bytes(let value): !value.isEmpty
        case .list(let value): !value.isEmpty
        case .map(let value): !value.isEmpty
        case .timestamp(let value): value.seconds > 0 || (value.seconds == 0 && value.nanoseconds > 0)
        case .duration(let value): !value.isZero
        }
    }

    /// Superscript's normalisation of inputs: the strings `"true"` and `"false"` become
    /// booleans, at any depth. Numeric strings stay strings (Superscript 1.0.13).
    public var normalized: Value {
        switch self {
        case .string(let text) where text.utf8.count == 4 && text == "true": .bool(true)
        case .string(let text) where text.utf8.count == 5 && text == "false": .bool(false)
        case .list(let elements): .list(elements.map(\.normalized))
        case .map(let map): .map(map.normalized)
        default: self
        }
    }
}

/// A map key. CEL maps take int, uint, bool and string keys; Superscript's inputs only strings.
public enum MapKey: Hashable, Sendable {
    case int(Int64)
    case uint(UInt64)
    case bool(Bool)
    case string(String)

    init?(_ value: Value) {
        switch value {
        case .int(let value): self = .int(value)
        case .uint(let value): self = .uint(value)
        case .bool(let value): self = .bool(value)
        case .string(let value): self = .string(value)
        default: return nil
        }
    }

    /// The order of `ValueMap.keysInOrder`.
    static func precedes(_ left: MapKey, _ right: MapKey) -> Bool {
        switch (left, right) {
        case (.bool(let a), .bool(let b)): return !a && b
        case (.int(let a), .int(let b)): return a < b
        case (.uint(let a), .uint(let b)): return a < b
        case (.string(let a), .string(let b)): return a.unicodeScalars.lexicographicallyPrecedes(b.unicodeScalars)
        default: return left.rank < right.rank
        }
    }

    private var rank: Int {
        switch self {
        case .bool: 0
        case .int: 1
        case .uint: 2
        case .string: 3
        }
    }

    var value: Value {
        switch self {
        case .int(let value): .int(value)
        case .uint(let value): .uint(value)
        case .bool(let value): .bool(value)
        case .string(let value): .string(value)
        }
    }
}

/// A read-only view of a string-keyed map whose values are converted when they are read.
///
/// A host keeps attributes in its own form; a view lets a rule read the two it needs without
/// converting the other fifty first. Views must hand out normalised values. Views are
/// classes, so that a value holding one stays two words wide.
public protocol MapView: AnyObject, Sendable {
    func value(forKey key: String) -> Value?
    /// Every entry, for iteration, equality, `size` and output.
    func materialize() -> [MapKey: Value]
}

/// A map value: entries held directly, or a view converting on access.
public struct ValueMap: Sendable {
    enum Storage: Sendable {
        case entries([MapKey: Value])
        case view(any MapView)
    }

    let storage: Storage

    public init(keyed entries: [MapKey: Value]) {
        storage = .entries(entries)
    }

    public init(_ entries: [String: Value]) {
        var keyed: [MapKey: Value] = [:]
        keyed.reserveCapacity(entries.count)
        for (key, value) in entries { keyed[.string(key)] = value }
        storage = .entries(keyed)
    }

    public init(view: any MapView) {
        storage = .view(view)
    }

    public subscript(key: MapKey) -> Value? {
        switch storage {
        case .entries(let entries): return entries[key]
        case .view(let view):
            guard case .string(let name) = key else { return nil }
            return view.value(forKey: name)
        }
    }

    public subscript(name: String) -> Value? {
        switch storage {
        case .entries(let entries): entries[.string(name)]
        case .view(let view): view.value(forKey: name)
        }
    }

    /// The keys in one order whatever the process's hashing: booleans, then ints, uints and
    /// strings, each in ascending order (strings by their Unicode scalars). What a rule reads
    /// from iterating a map is so the same in every run.
    public var keysInOrder: [MapKey] {
        entries.keys.sorted(by: MapKey.precedes)
    }

    public var entries: [MapKey: Value] {
        switch storage {
        case .entries(let entries): entries
        case .view(let view): view.materialize()
        }
    }

    public var count: Int { entries.count }
    public var isEmpty: Bool { entries.isEmpty }

    var normalized: ValueMap {
        switch storage {
        case .entries(let entries): ValueMap(keyed: entries.mapValues(\.normalized))
        case .view: self
        }
    }
}

/// An instant with the UTC offset it was written with (cel-interpreter keeps chrono's
/// `DateTime<FixedOffset>`; the offset only shows in `string()`).
public struct Timestamp: Sendable, Hashable {
    public var seconds: Int64
    public var nanoseconds: Int32
    public var offsetSeconds: Int32

    public init(seconds: Int64, nanoseconds: Int32 = 0, offsetSeconds: Int32 = 0) {
        self.seconds = seconds
        self.nanoseconds = nanoseconds
        self.offsetSeconds = offsetSeconds
    }

    /// Ordering and equality are by instant, not by offset.
    var instant: (Int64, Int32) { (seconds, nanoseconds) }
}

/// A signed length of time in whole seconds plus nanoseconds of the same sign.
public struct TimeSpan: Sendable, Hashable {
    public var seconds: Int64
    public var nanoseconds: Int32

    public init(seconds: Int64, nanoseconds: Int32 = 0) {
        self.seconds = seconds
        self.nanoseconds = nanoseconds
    }

    public var isZero: Bool { seconds == 0 && nanoseconds == 0 }

    /// Total nanoseconds, or nil past Int64 (about 292 years).
    var totalNanoseconds: Int64? {
        let (scaled, overflow) = seconds.multipliedReportingOverflow(by: 1_000_000_000)
        if overflow { return nil }
        let (sum, overflowed) = scaled.addingReportingOverflow(Int64(nanoseconds))
        return overflowed ? nil : sum
    }

    init(totalNanoseconds: Int64) {
        seconds = totalNanoseconds / 1_000_000_000
        nanoseconds = Int32(totalNanoseconds % 1_000_000_000)
    }
}

extension Value {
    /// What an operation that reads or makes this value costs, for `Frame.charge`: a string's
    /// or bytes' length, a list's or a made map's count, 1 for anything else (a host's view
    /// of its attributes is looked up, never read whole).
    var workSize: Int {
        switch self {
        case .string(let text): text.utf8.count
        case .bytes(let bytes): bytes.count
        case .list(let elements): elements.count
        case .map(let map):
            if case .entries(let entries) = map.storage { entries.count } else { 1 }
        default: 1
        }
    }
}
