/// Text from a file a stranger wrote (a recording), made safe to print to a terminal: a
/// control character or an escape sequence in a method name could set the window's title,
/// erase the line and print a fake verdict. Every control character (C0, DEL, C1), the
/// line and paragraph separators and the bidirectional controls are written as `\u{…}`.
enum TerminalText {
    static func escaped(_ text: String) -> String {
        guard text.unicodeScalars.contains(where: isUnsafe) else { return text }
        var result = ""
        result.reserveCapacity(text.utf8.count + 8)
        for scalar in text.unicodeScalars {
            if isUnsafe(scalar) {
                result += "\\u{\(String(scalar.value, radix: 16))}"
            } else {
                result.unicodeScalars.append(scalar)
            }
        }
        return result
    }

    /// A report of several lines, each escaped: the newlines are the report's own.
    static func escapedLines(_ report: String) -> String {
        report.split(separator: "\n", omittingEmptySubsequences: false).map { escaped(String($0)) }.joined(
            separator: "\n"
        )
    }

    private static func isUnsafe(_ scalar: Unicode.Scalar) -> Bool {
        switch scalar.value {
        case 0x00...0x1F, 0x7F...0x9F: true
        case 0x2028, 0x2029, 0x200E, 0x200F, 0x202A...0x202E, 0x2066...0x2069, 0x061C: true
        default: false
        }
    }
}
