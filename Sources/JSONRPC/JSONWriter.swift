import JSONText

/// Serialises `JSONValue` to compact UTF-8 JSON.
///
/// Decoding goes through jansson; encoding is done here because jansson cannot write an
/// integer above `Int64.max`, and because the envelope of every reply must splice in the
/// request id exactly as the client wrote it. Output is compact (never a raw newline, so it is
/// safe for newline-delimited framing), keeps key order, leaves `/` and non-ASCII text as they
/// are, and writes non-finite doubles, which JSON cannot express, as `null`.
public struct JSONWriter {
    public private(set) var bytes: [UInt8]

    public init(reservingCapacity capacity: Int = 256) {
        bytes = []
        bytes.reserveCapacity(capacity)
    }

    public static func encode(_ value: JSONValue) -> [UInt8] {
        var writer = JSONWriter()
        writer.write(value)
        return writer.bytes
    }

    public mutating func write(_ value: JSONValue) {
        switch value {
        case .null:
            appendASCII("null")
        case .bool(let flag):
            appendASCII(flag ? "true" : "false")
        case .int(let number):
            appendASCII(String(number))
        case .uint(let number):
            appendASCII(String(number))
        case .double(let number):
            writeDouble(number)
        case .string(let text):
            writeString(text)
        case .array(let elements):
            bytes.append(UInt8(ascii: "["))
            for (index, element) in elements.enumerated() {
                if index > 0 { bytes.append(UInt8(ascii: ",")) }
                write(element)
            }
            bytes.append(UInt8(ascii: "]"))
        case .object(let members):
            bytes.append(UInt8(ascii: "{"))
            var first = true
            for (key, member) in members {
                if !first { bytes.append(UInt8(ascii: ",")) }
                first = false
                writeString(key)
                bytes.append(UInt8(ascii: ":"))
                write(member)
            }
            bytes.append(UInt8(ascii: "}"))
        case .encoded(let text):
            bytes.append(contentsOf: text.bytes)
        }
    }

    // MARK: Objects written member by member

    /// Starts an object whose members follow one at a time, each a value or JSON text written
    /// before: the one way text is spliced into a message (a request id as the client wrote it,
    /// an event's params kept from the event it repeats), and a way to write an object without
    /// building its dictionary first.
    public mutating func beginObject() {
        bytes.append(UInt8(ascii: "{"))
    }

    /// A member of the object begun last. `key` is a literal written as it is: it must need
    /// no escaping.
    public mutating func member(_ key: StaticString, _ value: JSONValue) {
        writeKey(key)
        write(value)
    }

    /// A member whose value is JSON text already written (one whole value).
    public mutating func member(_ key: StaticString, text: [UInt8]) {
        writeKey(key)
        bytes.append(contentsOf: text)
    }

    /// A member whose value is a string literal that needs no escaping (`"2.0"`).
    public mutating func member(_ key: StaticString, literal: StaticString) {
        writeKey(key)
        bytes.append(UInt8(ascii: "\""))
        literal.withUTF8Buffer { bytes.append(contentsOf: $0) }
        bytes.append(UInt8(ascii: "\""))
    }

    public mutating func endObject() {
        bytes.append(UInt8(ascii: "}"))
    }

    /// A value never ends in `{`, so the object's first member is the one that follows it.
    private mutating func writeKey(_ key: StaticString) {
        if bytes.last != UInt8(ascii: "{") { bytes.append(UInt8(ascii: ",")) }
        bytes.append(UInt8(ascii: "\""))
        key.withUTF8Buffer { bytes.append(contentsOf: $0) }
        bytes.append(UInt8(ascii: "\""))
        bytes.append(UInt8(ascii: ":"))
    }

    public mutating func appendASCII(_ text: StaticString) {
        text.withUTF8Buffer { bytes.append(contentsOf: $0) }
    }

    private mutating func appendASCII(_ text: String) {
        bytes.append(contentsOf: text.utf8)
    }

    private mutating func writeDouble(_ number: Double) {
        guard number.isFinite else {
            appendASCII("null")
            return
        }
        // Swift's description is the shortest text that reads back as the same double, and
        // its forms ("1.5", "1e-05", "1e+16", "-0.0") are all valid JSON numbers.
        appendASCII(number.description)
    }

    public mutating func writeString(_ text: String) {
        JSONStringWriting.appendQuoted(text, to: &bytes)
    }
}
