import JSONText

/// The text of every number in a JSON text, in document order.
struct NumberLexemes {
    private var texts: [String] = []

    init(in bytes: UnsafeRawBufferPointer) {
        let scanner = JSONTextScanner(bytes: bytes)
        var index = 0
        while index < bytes.count {
            let byte = bytes[index]
            if byte == UInt8(ascii: "\"") {
                index = scanner.endOfString(startingAt: index)
            } else if byte == UInt8(ascii: "-") || (byte >= UInt8(ascii: "0") && byte <= UInt8(ascii: "9")) {
                let end = scanner.endOfValue(startingAt: index)
                texts.append(String(decoding: UnsafeRawBufferPointer(rebasing: bytes[index..<end]), as: UTF8.self))
                index = end
            } else {
                index += 1
            }
        }
    }

    var count: Int { texts.count }

    /// The exact value of the number text at `position`: an integer form becomes `int`, `uint`
    /// or (beyond `UInt64`) `double`; a fraction or exponent becomes `double`.
    func value(at position: Int) -> JSONValue? {
        let text = texts[position]
        if text.utf8.contains(where: { $0 == UInt8(ascii: ".") || $0 == UInt8(ascii: "e") || $0 == UInt8(ascii: "E") })
        {
            return Double(text).map(JSONValue.double)
        }
        if let signed = Int64(text) { return .int(signed) }
        if let unsigned = UInt64(text) { return .uint(unsigned) }
        return Double(text).map(JSONValue.double)
    }
}
