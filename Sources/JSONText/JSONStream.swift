/// Reads JSON text a value at a time: the members of an object and the elements of an array
/// one by one, each value indexed on its own (a `JSONDocument` of it) and let go once used.
///
/// The text is checked as it is read, as strictly as `JSONDocument.parsing` checks it, but
/// only one value's index exists at a time: a config of megabytes is read at the memory of
/// its largest paywall. Like `JSONDocument`, a stream borrows its text: it and the documents
/// it gives are used only while that pointer is valid.
public struct JSONStream {
    private var parser: Parser
    /// For each container opened and not yet closed: whether it is an object, and whether a
    /// value has been read in it (so that a comma comes next).
    private var open: [(isObject: Bool, hasValues: Bool)] = []
    /// Where the name `nextMember()` last read is in the text, quotes included, as written.
    public private(set) var memberNameText: Range<Int> = 0..<0

    public init(_ bytes: UnsafeRawBufferPointer) throws {
        guard bytes.count < Int(UInt32.max) else { throw SyntaxFault(what: "text of 4 GiB or more", offset: 0).error }
        parser = Parser(text: bytes.assumingMemoryBound(to: UInt8.self))
        parser.skipWhitespace()
    }

    /// The kind of the value that starts here, without reading it; nil where no value can
    /// start.
    public var nextKind: JSONDocument.Kind? {
        guard parser.index < parser.text.count else { return nil }
        switch parser.text[parser.index] {
        case UInt8(ascii: "{"): return .object
        case UInt8(ascii: "["): return .array
        case UInt8(ascii: "\""): return .string
        case UInt8(ascii: "t"), UInt8(ascii: "f"): return .bool
        case UInt8(ascii: "n"): return .null
        case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"): return .number
        default: return nil
        }
    }

    /// Opens the object or array that starts here, whose members or elements
    /// `nextMember()` or `nextElement()` then read.
    public mutating func open(_ kind: JSONDocument.Kind) throws {
        precondition(kind == .object || kind == .array, "only an object or an array is opened")
        guard nextKind == kind else {
            throw parser.fault(kind == .object ? "expected an object" : "expected an array").error
        }
        guard open.count < JSONTape.maximumDepth else { throw parser.fault("too many nested arrays or objects").error }
        parser.index += 1
        parser.skipWhitespace()
        open.append((kind == .object, false))
    }

    /// The name of the open object's next member, with the stream at its value; nil, with the
    /// object closed, after its last.
    public mutating func nextMember() throws -> String? {
        guard let level = open.last, level.isObject else { preconditionFailure("no object is open") }
        guard try continues(closingWith: UInt8(ascii: "}")) else { return nil }
        guard parser.index < parser.text.count, parser.text[parser.index] == UInt8(ascii: "\"") else {
            throw parser.fault("expected a member name").error
        }
        let nameStart = parser.index
        var entries: [JSONTape.Entry] = []
        do { try parser.parseString(into: &entries) } catch { throw error.error }
        memberNameText = nameStart..<parser.index
        let name = JSONTape(text: parser.text, entries: entries).string(at: 0)
        parser.skipWhitespace()
        guard parser.index < parser.text.count, parser.text[parser.index] == UInt8(ascii: ":") else {
            throw parser.fault("expected \":\" after a member name").error
        }
        parser.index += 1
        parser.skipWhitespace()
        return name
    }

    /// Whether the open array has another element, with the stream at it; false, with the
    /// array closed, after its last.
    public mutating func nextElement() throws -> Bool {
        guard let level = open.last, !level.isObject else { preconditionFailure("no array is open") }
        return try continues(closingWith: UInt8(ascii: "]"))
    }

    /// Reads the value that starts here, with everything in it, and calls `body` with it as a
    /// document of its own and where it is in the text. The document's coding paths start at
    /// this value.
    public mutating func readValue<Result>(_ body: (JSONDocument, Range<Int>) throws -> Result) throws -> Result {
        let start = parser.index
        var entries: [JSONTape.Entry] = []
        do { try parser.parseValue(into: &entries, depth: open.count) } catch { throw error.error }
        let end = parser.index
        parser.skipWhitespace()
        markValueRead()
        let document = JSONDocument(tape: JSONTape(text: parser.text, entries: entries))
        return try withExtendedLifetime(document.tape) { try body(document, start..<end) }
    }

    /// Reads past the value that starts here, checking it.
    public mutating func skipValue() throws {
        try readValue { _, _ in }
    }

    /// Checks that nothing but whitespace follows the text's value.
    public func finish() throws {
        guard open.isEmpty, parser.index == parser.text.count else {
            throw parser.fault("unexpected text after the value").error
        }
    }

    /// Reads the comma before another member or element, or the closing bracket; true if
    /// another follows.
    private mutating func continues(closingWith closing: UInt8) throws -> Bool {
        guard parser.index < parser.text.count else { throw parser.fault("unexpected end of text").error }
        if parser.text[parser.index] == closing {
            parser.index += 1
            parser.skipWhitespace()
            open.removeLast()
            markValueRead()
            return false
        }
        if open[open.count - 1].hasValues {
            guard parser.text[parser.index] == UInt8(ascii: ",") else {
                throw parser.fault(
                    closing == UInt8(ascii: "}")
                        ? "expected \",\" or \"}\" in an object" : "expected \",\" or \"]\" in an array"
                ).error
            }
            parser.index += 1
            parser.skipWhitespace()
        }
        return true
    }

    private mutating func markValueRead() {
        if !open.isEmpty { open[open.count - 1].hasValues = true }
    }
}
