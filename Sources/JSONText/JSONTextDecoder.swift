/// Decodes `Decodable` values from JSON text, as Foundation's `JSONDecoder` does with its
/// default strategies, at a fraction of its cost.
///
/// Foundation's decoder builds a dictionary of every object it opens, with a `String` for
/// each key, and keeps a coding path for every value it decodes. This one indexes the text
/// once (`JSONTape`), finds a member by comparing its bytes with the key's, makes a `String`
/// only of the values asked for, and works a coding path out only when an error needs one.
///
/// The errors are `DecodingError`s of the same cases and coding paths as Foundation's; text
/// that is not JSON is `dataCorrupted` with an empty coding path. Of a key written twice, the
/// last is read. Numbers follow Foundation: an integer type takes a number written with a
/// fraction or exponent when its value is a whole number in range. A number that does not fit
/// its type is `dataCorrupted` at the number's own path, as on Apple's platforms (Foundation
/// on Linux reports it as text that is not JSON, with no path).
public struct JSONTextDecoder {
    public var userInfo: [CodingUserInfoKey: Any] = [:]

    public init() {}

    public func decode<T: Decodable>(_ type: T.Type, from bytes: UnsafeRawBufferPointer) throws -> T {
        try JSONDocument.parsing(bytes) { try decode(type, from: $0) }
    }

    /// Decodes a document already parsed, such as a value a `JSONStream` read. The coding paths
    /// of errors start at the document's value.
    public func decode<T: Decodable>(_ type: T.Type, from document: JSONDocument) throws -> T {
        document.tape.userInfo = userInfo
        return try T(from: TapeDecoder(tape: document.tape, index: 0))
    }

    public func decode<T: Decodable>(_ type: T.Type, from bytes: [UInt8]) throws -> T {
        try bytes.withUnsafeBytes { try decode(type, from: $0) }
    }
}

/// JSON text checked and indexed once, whose values are decoded from the index: the whole
/// text (`JSONTextDecoder.decode(_:from:)`) or one value read from a `JSONStream`.
///
/// A document borrows its text rather than copying it (a config's text is megabytes), so it
/// exists only inside `parsing(_:_:)`'s closure, like the pointer it is made from.
public struct JSONDocument {
    let tape: JSONTape

    public enum Kind: Sendable {
        case object, array, string, number, bool, null
    }

    /// Parses `bytes` and calls `body` with the document, which must not be used after
    /// `body` returns. Text that is not JSON throws `DecodingError.dataCorrupted`, saying what
    /// is wrong at which byte, without calling `body`.
    public static func parsing<Result>(
        _ bytes: UnsafeRawBufferPointer,
        _ body: (JSONDocument) throws -> Result
    ) throws -> Result {
        let document = JSONDocument(tape: try JSONTape(bytes))
        return try withExtendedLifetime(document.tape) { try body(document) }
    }

    /// The kind of the document's value.
    public var kind: Kind {
        switch tape.entries[0].kind {
        case .object: .object
        case .array: .array
        case .string: .string
        case .number: .number
        case .true, .false: .bool
        case .null: .null
        }
    }
}

/// A coding key of the tape's own, for the coding paths of errors.
struct TapeKey: CodingKey {
    var stringValue: String
    var intValue: Int?

    init(stringValue: String) {
        self.stringValue = stringValue
    }

    init(intValue: Int) {
        stringValue = "Index \(intValue)"
        self.intValue = intValue
    }
}

/// Names an object may have, for `unknownMemberNames`: each kept as the tape keeps a member's
/// name (its first four bytes as a word, and its length), so most are told apart by two integer
/// comparisons.
public struct MemberNameSet: Sendable {
    struct Name: Sendable {
        let prefix: UInt32
        let bytes: [UInt8]
    }

    let names: [Name]

    public init(_ names: some Sequence<String>) {
        self.names = names.map { name in
            let bytes = Array(name.utf8)
            return Name(
                prefix: bytes.withUnsafeBufferPointer { JSONTape.prefix(of: $0, from: 0, count: $0.count) },
                bytes: bytes
            )
        }
    }
}

/// The member names of the object `decoder` decodes that `known` lacks, when `decoder` is this
/// module's (for another decoder, or a value that is not an object, none). A check of every
/// object of a large config: it compares the names where the parser left them, with no keyed
/// container (whose `allKeys` cost as much as decoding the object) and no string for a known name.
public func unknownMemberNames<Decoding: Decoder>(of decoder: Decoding, besides known: MemberNameSet) -> [String] {
    guard let decoder = decoder as? TapeDecoder else { return [] }
    return decoder.tape.memberNames(inObjectAt: decoder.index, notIn: known)
}

struct TapeDecoder: Decoder {
    let tape: JSONTape
    let index: Int

    var codingPath: [any CodingKey] { tape.codingPath(to: index) }
    var userInfo: [CodingUserInfoKey: Any] { tape.userInfo }

    func container<Key: CodingKey>(keyedBy type: Key.Type) throws -> KeyedDecodingContainer<Key> {
        switch tape.entries[index].kind {
        case .object:
            return KeyedDecodingContainer(KeyedContainer<Key>(tape: tape, index: index))
        case .null:
            throw DecodingError.valueNotFound(
                [String: Any].self,
                .init(
                    codingPath: codingPath,
                    debugDescription: "Cannot get keyed decoding container -- found null value instead"
                )
            )
        default:
            throw tape.mismatch([String: Any].self, at: index, path: codingPath)
        }
    }

    func unkeyedContainer() throws -> any UnkeyedDecodingContainer {
        switch tape.entries[index].kind {
        case .array:
            return UnkeyedContainer(tape: tape, index: index)
        case .null:
            throw DecodingError.valueNotFound(
                [Any].self,
                .init(
                    codingPath: codingPath,
                    debugDescription: "Cannot get unkeyed decoding container -- found null value instead"
                )
            )
        default:
            throw tape.mismatch([Any].self, at: index, path: codingPath)
        }
    }

    func singleValueContainer() throws -> any SingleValueDecodingContainer {
        SingleValueContainer(tape: tape, index: index)
    }
}

// MARK: - Reading one value

/// A type the containers read straight off the tape rather than through `init(from:)`.
protocol TapeScalar {
    static func read(from tape: JSONTape, at index: Int, path: () -> [any CodingKey]) throws -> Self
}

extension String: TapeScalar {
    static func read(from tape: JSONTape, at index: Int, path: () -> [any CodingKey]) throws -> String {
        guard tape.entries[index].kind == .string else { throw tape.mismatch(String.self, at: index, path: path()) }
        return tape.string(at: index)
    }
}

extension Bool: TapeScalar {
    static func read(from tape: JSONTape, at index: Int, path: () -> [any CodingKey]) throws -> Bool {
        switch tape.entries[index].kind {
        case .true: true
        case .false: false
        default: throw tape.mismatch(Bool.self, at: index, path: path())
        }
    }
}

extension TapeScalar where Self: FixedWidthInteger {
    static func read(from tape: JSONTape, at index: Int, path: () -> [any CodingKey]) throws -> Self {
        let entry = tape.entries[index]
        guard entry.kind == .number else { throw tape.mismatch(Self.self, at: index, path: path()) }
        if !entry.isMarked {
            if let value = wholeNumber(tape.rawBytes(of: index)) { return value }
        } else if let double = Double(tape.numberText(at: index)), let value = Self(exactly: double) {
            return value
        }
        throw DecodingError.dataCorrupted(
            .init(
                codingPath: path(),
                debugDescription: "Parsed JSON number <\(tape.numberText(at: index))> does not fit in \(Self.self)."
            )
        )
    }

    /// The integer written in `digits` (an optional minus and decimal digits), or nil if it
    /// does not fit.
    private static func wholeNumber(_ digits: UnsafeBufferPointer<UInt8>) -> Self? {
        let isNegative = digits.first == UInt8(ascii: "-")
        var value: Self = 0
        for digit in digits.dropFirst(isNegative ? 1 : 0) {
            let (shifted, overflowed) = value.multipliedReportingOverflow(by: 10)
            let (added, overflowedAgain) =
                isNegative
                ? shifted.subtractingReportingOverflow(Self(digit &- UInt8(ascii: "0")))
                : shifted.addingReportingOverflow(Self(digit &- UInt8(ascii: "0")))
            guard !overflowed, !overflowedAgain else { return nil }
            value = added
        }
        return value
    }
}

extension Int: TapeScalar {}
extension Int8: TapeScalar {}
extension Int16: TapeScalar {}
extension Int32: TapeScalar {}
extension Int64: TapeScalar {}
extension UInt: TapeScalar {}
extension UInt8: TapeScalar {}
extension UInt16: TapeScalar {}
extension UInt32: TapeScalar {}
extension UInt64: TapeScalar {}

extension TapeScalar where Self: BinaryFloatingPoint & LosslessStringConvertible {
    static func read(from tape: JSONTape, at index: Int, path: () -> [any CodingKey]) throws -> Self {
        guard tape.entries[index].kind == .number else { throw tape.mismatch(Self.self, at: index, path: path()) }
        guard let value = Self(String(tape.numberText(at: index))), value.isFinite else {
            throw DecodingError.dataCorrupted(
                .init(
                    codingPath: path(),
                    debugDescription: "Parsed JSON number <\(tape.numberText(at: index))> does not fit in \(Self.self)."
                )
            )
        }
        return value
    }
}

extension Double: TapeScalar {}
extension Float: TapeScalar {}

extension JSONTape {
    /// What Foundation throws for a value of the wrong kind: `valueNotFound` for null,
    /// `typeMismatch` for anything else.
    func mismatch(_ type: Any.Type, at index: Int, path: [any CodingKey]) -> DecodingError {
        let kind = entries[index].kind
        guard kind != .null else {
            return .valueNotFound(
                type,
                .init(
                    codingPath: path,
                    debugDescription: "Cannot get value of type \(type) -- found null value instead"
                )
            )
        }
        return .typeMismatch(
            type,
            .init(codingPath: path, debugDescription: "Expected to decode \(type) but found \(kind.described) instead.")
        )
    }

    /// The index of the value of the last member named `name` of the object at `object`: of a
    /// key written twice the last is read, as `JSON.parse`, Python and jansson (the JSON-RPC
    /// side) read it.
    func member(named name: UnsafeBufferPointer<UInt8>, inObjectAt object: Int) -> Int? {
        let prefix = JSONTape.prefix(of: name, from: 0, count: name.count)
        var key = object + 1
        var found: Int?
        for _ in 0..<entries[object].count {
            let entry = entries[key]
            if entry.isMarked {
                if string(at: key).utf8.elementsEqual(name) { found = key + 1 }
            } else if entry.prefix == prefix, Int(entry.end &- entry.start) == name.count,
                tailsMatch(from: Int(entry.start), name)
            {
                found = key + 1
            }
            key &+= entry.distanceToNextKey
        }
        return found
    }

    /// The names of the members of the object at `object` that `known` lacks (none for a value
    /// that is not an object).
    func memberNames(inObjectAt object: Int, notIn known: MemberNameSet) -> [String] {
        guard entries[object].kind == .object else { return [] }
        var unknown: [String] = []
        var key = object + 1
        for _ in 0..<entries[object].count {
            let entry = entries[key]
            let isKnown: Bool
            if entry.isMarked {
                let name = string(at: key)
                isKnown = known.names.contains { $0.bytes.elementsEqual(name.utf8) }
            } else {
                let length = Int(entry.end &- entry.start)
                isKnown = known.names.contains { name in
                    name.prefix == entry.prefix && name.bytes.count == length
                        && name.bytes.withUnsafeBufferPointer { tailsMatch(from: Int(entry.start), $0) }
                }
            }
            if !isKnown { unknown.append(string(at: key)) }
            key &+= entry.distanceToNextKey
        }
        return unknown
    }

    /// Whether the bytes after the first four, which `prefix` compared, match `name`'s.
    @inline(__always)
    private func tailsMatch(from start: Int, _ name: UnsafeBufferPointer<UInt8>) -> Bool {
        var offset = 4
        while offset < name.count {
            guard text[start &+ offset] == name[offset] else { return false }
            offset &+= 1
        }
        return true
    }

    /// The coding path of the value at `target`, worked out by walking down from the root.
    func codingPath(to target: Int) -> [any CodingKey] {
        var path: [any CodingKey] = []
        var container = 0
        descent: while container != target {
            let entry = entries[container]
            guard entry.kind == .object || entry.kind == .array else { break }
            var child = container + 1
            for position in 0..<entry.count {
                let value = entry.kind == .object ? child + 1 : child
                let end = after(value)
                if target >= value, target < end {
                    path.append(
                        entry.kind == .object ? TapeKey(stringValue: string(at: child)) : TapeKey(intValue: position)
                    )
                    container = value
                    continue descent
                }
                child = end
            }
            break
        }
        return path
    }
}

extension JSONTape.Kind {
    var described: String {
        switch self {
        case .object: "a dictionary"
        case .array: "an array"
        case .string: "a string"
        case .number: "number"
        case .true, .false: "bool"
        case .null: "null"
        }
    }
}
