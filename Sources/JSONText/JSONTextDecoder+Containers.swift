// MARK: - Containers

struct KeyedContainer<Key: CodingKey>: KeyedDecodingContainerProtocol {
    let tape: JSONTape
    let index: Int

    var codingPath: [any CodingKey] { tape.codingPath(to: index) }

    var allKeys: [Key] {
        var keys: [Key] = []
        var key = index + 1
        for _ in 0..<tape.entries[index].count {
            if let codingKey = Key(stringValue: tape.string(at: key)) { keys.append(codingKey) }
            key = tape.after(key + 1)
        }
        return keys
    }

    private func valueIndex(for key: Key) -> Int? {
        var name = key.stringValue
        return name.withUTF8 { tape.member(named: $0, inObjectAt: index) }
    }

    private func requiredValue(for key: Key) throws -> Int {
        guard let value = valueIndex(for: key) else {
            throw DecodingError.keyNotFound(
                key,
                .init(
                    codingPath: codingPath,
                    debugDescription: "No value associated with key \(key) (\"\(key.stringValue)\")."
                )
            )
        }
        return value
    }

    func contains(_ key: Key) -> Bool {
        valueIndex(for: key) != nil
    }

    func decodeNil(forKey key: Key) throws -> Bool {
        tape.entries[try requiredValue(for: key)].kind == .null
    }

    private func scalar<T: TapeScalar>(forKey key: Key) throws -> T {
        try T.read(from: tape, at: try requiredValue(for: key), path: { codingPath + [key] })
    }

    private func scalarIfPresent<T: TapeScalar>(forKey key: Key) throws -> T? {
        guard let value = valueIndex(for: key), tape.entries[value].kind != .null else { return nil }
        return try T.read(from: tape, at: value, path: { codingPath + [key] })
    }

    func decode(_ type: Bool.Type, forKey key: Key) throws -> Bool { try scalar(forKey: key) }
    func decode(_ type: String.Type, forKey key: Key) throws -> String { try scalar(forKey: key) }
    func decode(_ type: Double.Type, forKey key: Key) throws -> Double { try scalar(forKey: key) }
    func decode(_ type: Float.Type, forKey key: Key) throws -> Float { try scalar(forKey: key) }
    func decode(_ type: Int.Type, forKey key: Key) throws -> Int { try scalar(forKey: key) }
    func decode(_ type: Int8.Type, forKey key: Key) throws -> Int8 { try scalar(forKey: key) }
    func decode(_ type: Int16.Type, forKey key: Key) throws -> Int16 { try scalar(forKey: key) }
    func decode(_ type: Int32.Type, forKey key: Key) throws -> Int32 { try scalar(forKey: key) }
    func decode(_ type: Int64.Type, forKey key: Key) throws -> Int64 { try scalar(forKey: key) }
    func decode(_ type: UInt.Type, forKey key: Key) throws -> UInt { try scalar(forKey: key) }
    func decode(_ type: UInt8.Type, forKey key: Key) throws -> UInt8 { try scalar(forKey: key) }
    func decode(_ type: UInt16.Type, forKey key: Key) throws -> UInt16 { try scalar(forKey: key) }
    func decode(_ type: UInt32.Type, forKey key: Key) throws -> UInt32 { try scalar(forKey: key) }
    func decode(_ type: UInt64.Type, forKey key: Key) throws -> UInt64 { try scalar(forKey: key) }

    func decode<T: Decodable>(_ type: T.Type, forKey key: Key) throws -> T {
        try T(from: TapeDecoder(tape: tape, index: try requiredValue(for: key)))
    }

    func decodeIfPresent(_ type: Bool.Type, forKey key: Key) throws -> Bool? { try scalarIfPresent(forKey: key) }
    func decodeIfPresent(_ type: String.Type, forKey key: Key) throws -> String? { try scalarIfPresent(forKey: key) }
    func decodeIfPresent(_ type: Double.Type, forKey key: Key) throws -> Double? { try scalarIfPresent(forKey: key) }
    func decodeIfPresent(_ type: Float.Type, forKey key: Key) throws -> Float? { try scalarIfPresent(forKey: key) }
    func decodeIfPresent(_ type: Int.Type, forKey key: Key) throws -> Int? { try scalarIfPresent(forKey: key) }
    func decodeIfPresent(_ type: Int8.Type, forKey key: Key) throws -> Int8? { try scalarIfPresent(forKey: key) }
    func decodeIfPresent(_ type: Int16.Type, forKey key: Key) throws -> Int16? { try scalarIfPresent(forKey: key) }
    func decodeIfPresent(_ type: Int32.Type, forKey key: Key) throws -> Int32? { try scalarIfPresent(forKey: key) }
    func decodeIfPresent(_ type: Int64.Type, forKey key: Key) throws -> Int64? { try scalarIfPresent(forKey: key) }
    func decodeIfPresent(_ type: UInt.Type, forKey key: Key) throws -> UInt? { try scalarIfPresent(forKey: key) }
    func decodeIfPresent(_ type: UInt8.Type, forKey key: Key) throws -> UInt8? { try scalarIfPresent(forKey: key) }
    func decodeIfPresent(_ type: UInt16.Type, forKey key: Key) throws -> UInt16? { try scalarIfPresent(forKey: key) }
    func decodeIfPresent(_ type: UInt32.Type, forKey key: Key) throws -> UInt32? { try scalarIfPresent(forKey: key) }
    func decodeIfPresent(_ type: UInt64.Type, forKey key: Key) throws -> UInt64? { try scalarIfPresent(forKey: key) }

    func decodeIfPresent<T: Decodable>(_ type: T.Type, forKey key: Key) throws -> T? {
        guard let value = valueIndex(for: key), tape.entries[value].kind != .null else { return nil }
        return try T(from: TapeDecoder(tape: tape, index: value))
    }

    func nestedContainer<NestedKey: CodingKey>(
        keyedBy type: NestedKey.Type,
        forKey key: Key
    ) throws -> KeyedDecodingContainer<NestedKey> {
        try TapeDecoder(tape: tape, index: try requiredValue(for: key)).container(keyedBy: type)
    }

    func nestedUnkeyedContainer(forKey key: Key) throws -> any UnkeyedDecodingContainer {
        try TapeDecoder(tape: tape, index: try requiredValue(for: key)).unkeyedContainer()
    }

    func superDecoder() throws -> any Decoder {
        try superDecoder(forKey: Key(stringValue: "super")!)
    }

    func superDecoder(forKey key: Key) throws -> any Decoder {
        TapeDecoder(tape: tape, index: try requiredValue(for: key))
    }
}

struct UnkeyedContainer: UnkeyedDecodingContainer {
    let tape: JSONTape
    let index: Int
    /// The entry of the element at `currentIndex`.
    private var element: Int
    private(set) var currentIndex = 0
    let count: Int?

    init(tape: JSONTape, index: Int) {
        self.tape = tape
        self.index = index
        element = index + 1
        count = tape.entries[index].count
    }

    var codingPath: [any CodingKey] { tape.codingPath(to: index) }
    var isAtEnd: Bool { currentIndex >= count! }

    private var elementPath: [any CodingKey] { codingPath + [TapeKey(intValue: currentIndex)] }

    /// The current element's entry; a failed decode leaves the container where it was, as
    /// Foundation's does.
    private func current(_ type: Any.Type) throws -> Int {
        guard !isAtEnd else {
            throw DecodingError.valueNotFound(
                type,
                .init(codingPath: elementPath, debugDescription: "Unkeyed container is at end.")
            )
        }
        return element
    }

    private mutating func advance() {
        element = tape.after(element)
        currentIndex += 1
    }

    mutating func decodeNil() throws -> Bool {
        guard tape.entries[try current(Never?.self)].kind == .null else { return false }
        advance()
        return true
    }

    private mutating func scalar<T: TapeScalar>() throws -> T {
        let value = try T.read(from: tape, at: try current(T.self), path: { elementPath })
        advance()
        return value
    }

    mutating func decode(_ type: Bool.Type) throws -> Bool { try scalar() }
    mutating func decode(_ type: String.Type) throws -> String { try scalar() }
    mutating func decode(_ type: Double.Type) throws -> Double { try scalar() }
    mutating func decode(_ type: Float.Type) throws -> Float { try scalar() }
    mutating func decode(_ type: Int.Type) throws -> Int { try scalar() }
    mutating func decode(_ type: Int8.Type) throws -> Int8 { try scalar() }
    mutating func decode(_ type: Int16.Type) throws -> Int16 { try scalar() }
    mutating func decode(_ type: Int32.Type) throws -> Int32 { try scalar() }
    mutating func decode(_ type: Int64.Type) throws -> Int64 { try scalar() }
    mutating func decode(_ type: UInt.Type) throws -> UInt { try scalar() }
    mutating func decode(_ type: UInt8.Type) throws -> UInt8 { try scalar() }
    mutating func decode(_ type: UInt16.Type) throws -> UInt16 { try scalar() }
    mutating func decode(_ type: UInt32.Type) throws -> UInt32 { try scalar() }
    mutating func decode(_ type: UInt64.Type) throws -> UInt64 { try scalar() }

    mutating func decode<T: Decodable>(_ type: T.Type) throws -> T {
        let value = try T(from: TapeDecoder(tape: tape, index: try current(T.self)))
        advance()
        return value
    }

    mutating func nestedContainer<NestedKey: CodingKey>(
        keyedBy type: NestedKey.Type
    ) throws -> KeyedDecodingContainer<NestedKey> {
        let container = try TapeDecoder(tape: tape, index: try current(KeyedDecodingContainer<NestedKey>.self))
            .container(keyedBy: type)
        advance()
        return container
    }

    mutating func nestedUnkeyedContainer() throws -> any UnkeyedDecodingContainer {
        let container = try TapeDecoder(tape: tape, index: try current((any UnkeyedDecodingContainer).self))
            .unkeyedContainer()
        advance()
        return container
    }

    mutating func superDecoder() throws -> any Decoder {
        let decoder = TapeDecoder(tape: tape, index: try current((any Decoder).self))
        advance()
        return decoder
    }
}

struct SingleValueContainer: SingleValueDecodingContainer {
    let tape: JSONTape
    let index: Int

    var codingPath: [any CodingKey] { tape.codingPath(to: index) }

    func decodeNil() -> Bool {
        tape.entries[index].kind == .null
    }

    private func scalar<T: TapeScalar>() throws -> T {
        try T.read(from: tape, at: index, path: { codingPath })
    }

    func decode(_ type: Bool.Type) throws -> Bool { try scalar() }
    func decode(_ type: String.Type) throws -> String { try scalar() }
    func decode(_ type: Double.Type) throws -> Double { try scalar() }
    func decode(_ type: Float.Type) throws -> Float { try scalar() }
    func decode(_ type: Int.Type) throws -> Int { try scalar() }
    func decode(_ type: Int8.Type) throws -> Int8 { try scalar() }
    func decode(_ type: Int16.Type) throws -> Int16 { try scalar() }
    func decode(_ type: Int32.Type) throws -> Int32 { try scalar() }
    func decode(_ type: Int64.Type) throws -> Int64 { try scalar() }
    func decode(_ type: UInt.Type) throws -> UInt { try scalar() }
    func decode(_ type: UInt8.Type) throws -> UInt8 { try scalar() }
    func decode(_ type: UInt16.Type) throws -> UInt16 { try scalar() }
    func decode(_ type: UInt32.Type) throws -> UInt32 { try scalar() }
    func decode(_ type: UInt64.Type) throws -> UInt64 { try scalar() }

    func decode<T: Decodable>(_ type: T.Type) throws -> T {
        try T(from: TapeDecoder(tape: tape, index: index))
    }
}
