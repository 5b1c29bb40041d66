import CJansson

/// Why a byte string is not a JSON text.
public struct JSONSyntaxError: Error, Sendable, Equatable, CustomStringConvertible {
    public let message: String
    /// One-based line and column of the fault, as jansson reports them.
    public let line: Int
    public let column: Int

    public var description: String { "\(message) (line \(line), column \(column))" }

    /// The message without the text jansson quotes from the input (`invalid token near
    /// 'SECRET'`): what a tool prints about a file that may hold secrets names the position
    /// only.
    public var reason: String {
        let marker = Array(" near '".utf8)
        let text = Array(message.utf8)
        guard let start = text.indices.first(where: { text[$0...].starts(with: marker) }) else { return message }
        return String(decoding: text[..<start], as: UTF8.self)
    }

    /// `description` without the quoted text (see `reason`).
    public var positionedReason: String { "\(reason) (line \(line), column \(column))" }
}

/// Parses JSON text with jansson into `JSONValue`.
///
/// Any JSON text is accepted at the top level (so a bare `1` is valid JSON, and the JSON-RPC
/// layer can answer it as an invalid request rather than a parse error), and `\u0000` inside
/// strings is kept. Integers too large for `Int64` are valid JSON that jansson refuses; for
/// those the text is parsed again with every number as a double, and each integer is then
/// restored exactly from its digits (`uint` up to `UInt64.max`, `double` beyond).
public enum JSONDecoding {
    public static func decode(_ bytes: UnsafeRawBufferPointer) throws(JSONSyntaxError) -> JSONValue {
        try parse(bytes).value()
    }

    /// jansson's tree of `bytes`, which holds nothing of them: the bytes may go before the
    /// tree is converted (`value()`), so a large message is not held three times over.
    public static func parse(_ bytes: UnsafeRawBufferPointer) throws(JSONSyntaxError) -> ParsedJSON {
        var error = json_error_t()
        let text = bytes.baseAddress?.assumingMemoryBound(to: CChar.self)
        let flags = Int(JSON_DECODE_ANY | JSON_ALLOW_NUL)
        if let root = json_loadb(text, bytes.count, flags, &error) {
            return ParsedJSON(root: root, lexemes: nil)
        }
        guard json_error_code(&error) == json_error_numeric_overflow else {
            throw JSONSyntaxError(error)
        }
        let realFlags = flags | Int(JSON_DECODE_INT_AS_REAL)
        guard let root = json_loadb(text, bytes.count, realFlags, &error) else {
            throw JSONSyntaxError(error)
        }
        return ParsedJSON(root: root, lexemes: NumberLexemes(in: bytes))
    }

    /// Where the first object that names a key twice names it again, in JSON text (nil when
    /// none does, or when the text is not JSON): a decoder reads the last, which a config's
    /// author may not have meant.
    public static func firstDuplicateKey(in bytes: [UInt8]) -> JSONSyntaxError? {
        var error = json_error_t()
        let flags = Int(JSON_DECODE_ANY | JSON_ALLOW_NUL | JSON_REJECT_DUPLICATES | JSON_DECODE_INT_AS_REAL)
        let root = bytes.withUnsafeBytes { buffer in
            json_loadb(buffer.baseAddress?.assumingMemoryBound(to: CChar.self), buffer.count, flags, &error)
        }
        if let root {
            json_decref(root)
            return nil
        }
        return json_error_code(&error) == json_error_duplicate_key ? JSONSyntaxError(error) : nil
    }

    public static func decode(_ bytes: [UInt8]) throws(JSONSyntaxError) -> JSONValue {
        do {
            return try bytes.withUnsafeBytes { buffer in try decode(buffer) }
        } catch let error as JSONSyntaxError {
            throw error
        } catch {
            preconditionFailure("decode(_:) only throws JSONSyntaxError")
        }
    }

    public static func decode(_ text: String) throws(JSONSyntaxError) -> JSONValue {
        try decode(Array(text.utf8))
    }
}

/// A JSON text as jansson parsed it, owned until it is converted or dropped.
public final class ParsedJSON {
    private let root: UnsafeMutablePointer<json_t>
    /// The number texts, when jansson had to read every number as a double.
    private let lexemes: NumberLexemes?

    fileprivate init(root: UnsafeMutablePointer<json_t>, lexemes: NumberLexemes?) {
        self.root = root
        self.lexemes = lexemes
    }

    deinit { json_decref(root) }

    public func value() -> JSONValue {
        var conversion = Conversion(lexemes: lexemes)
        return conversion.convert(root)
    }
}

extension JSONSyntaxError {
    init(_ error: json_error_t) {
        var error = error
        let message = withUnsafeBytes(of: &error.text) { raw in
            String(decoding: raw.prefix { $0 != 0 }, as: UTF8.self)
        }
        self.init(message: message, line: Int(error.line), column: Int(error.column))
    }
}

/// Walks a jansson tree into `JSONValue`.
private struct Conversion {
    /// Number texts in document order, present only when jansson had to read every number as
    /// a double; consulted to restore exact integers.
    var lexemes: NumberLexemes?
    var nextLexeme = 0

    mutating func convert(_ node: UnsafeMutablePointer<json_t>) -> JSONValue {
        switch node.pointee.type {
        case JSON_OBJECT:
            var members = JSONObject(minimumCapacity: json_object_size(node))
            var iterator = json_object_iter(node)
            while let current = iterator {
                let keyLength = json_object_iter_key_len(current)
                let key = json_object_iter_key(current).withMemoryRebound(to: UInt8.self, capacity: keyLength) {
                    String(decoding: UnsafeBufferPointer(start: $0, count: keyLength), as: UTF8.self)
                }
                members[key] = convert(json_object_iter_value(current))
                iterator = json_object_iter_next(node, current)
            }
            return .object(members)
        case JSON_ARRAY:
            let count = json_array_size(node)
            var elements: [JSONValue] = []
            elements.reserveCapacity(count)
            for index in 0..<count {
                elements.append(convert(json_array_get(node, index)))
            }
            return .array(elements)
        case JSON_STRING:
            let length = json_string_length(node)
            guard length > 0, let start = json_string_value(node) else { return .string("") }
            return start.withMemoryRebound(to: UInt8.self, capacity: length) {
                .string(String(decoding: UnsafeBufferPointer(start: $0, count: length), as: UTF8.self))
            }
        case JSON_INTEGER:
            return .int(Int64(json_integer_value(node)))
        case JSON_REAL:
            return exactNumber(json_real_value(node))
        case JSON_TRUE:
            return .bool(true)
        case JSON_FALSE:
            return .bool(false)
        default:
            return .null
        }
    }

    /// The exact value of the next number, when its text reads as the double jansson gave.
    /// The check keeps the walk honest if duplicate keys made the tree skip a number.
    private mutating func exactNumber(_ approximation: Double) -> JSONValue {
        guard let lexemes, nextLexeme < lexemes.count else { return .double(approximation) }
        let exact = lexemes.value(at: nextLexeme)
        nextLexeme += 1
        guard let exact, exact.doubleValue == approximation else {
            self.lexemes = nil
            return .double(approximation)
        }
        return exact
    }
}
