/// Text forms of values, as cel-interpreter's `string()` and Rust's `Display` print them.
enum NumberFormatting {
    /// Rust's `Display` for `f64`: the shortest digits that round-trip, never in exponent
    /// notation, and no `.0` on whole numbers (`1.0` prints `1`, `1e21` prints 22 digits).
    static func rustDisplay(_ value: Double) -> String {
        if value.isNaN { return "NaN" }
        if value.isInfinite { return value < 0 ? "-inf" : "inf" }
        if value == 0 { return value.sign == .minus ? "-0" : "0" }
        let shortest = value.magnitude.description
        var mantissa = Substring(shortest)
        var exponent = 0
        if let marker = shortest.firstIndex(where: { $0 == "e" || $0 == "E" }) {
            mantissa = shortest[..<marker]
            exponent = Int(shortest[shortest.index(after: marker)...]) ?? 0
        }
        var digits = mantissa.filter { $0 != "." }
        let pointIndex =
            mantissa.firstIndex(of: ".").map { mantissa.distance(from: mantissa.startIndex, to: $0) }
            ?? mantissa.count
        var decimalPoint = pointIndex + exponent
        while digits.count > 1, digits.first == "0" {
            digits.removeFirst()
            decimalPoint -= 1
        }
        while digits.count > max(decimalPoint, 1), digits.last == "0" { digits.removeLast() }
        var text: String
        if decimalPoint <= 0 {
            text = "0." + String(repeating: "0", count: -decimalPoint) + digits
        } else if decimalPoint >= digits.count {
            text = digits + String(repeating: "0", count: decimalPoint - digits.count)
        } else {
            let split = digits.index(digits.startIndex, offsetBy: decimalPoint)
            text = digits[..<split] + "." + digits[split...]
        }
        return value < 0 ? "-" + text : text
    }
}

enum Printing {
    static func keyDescription(_ key: MapKey) -> String {
        switch key {
        case .string(let value): value
        case .int(let value): String(value)
        case .uint(let value): String(value)
        case .bool(let value): String(value)
        }
    }

    /// `string(x)`: numbers, strings, bytes (as UTF-8), booleans, timestamps and durations.
    static func string(_ value: Value) throws(EvaluationError) -> String {
        switch value {
        case .string(let text): return text
        case .int(let number): return String(number)
        case .uint(let number): return String(number)
        case .double(let number): return NumberFormatting.rustDisplay(number)
        case .bool(let flag): return String(flag)
        case .bytes(let bytes): return String(decoding: bytes, as: UTF8.self)
        case .timestamp(let timestamp): return Chronology.format(timestamp)
        case .duration(let span): return Chronology.format(span)
        default: throw .invalidArgument("string", "cannot convert \(value.kindName) to a string")
        }
    }
}
