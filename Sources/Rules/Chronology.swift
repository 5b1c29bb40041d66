/// `timestamp()` and `duration()`: parsing, printing and arithmetic, without Foundation so
/// that results do not depend on the machine's calendar or time zone.
public enum Chronology {
    static let nanosPerSecond: Int64 = 1_000_000_000
    /// CEL's range: 0001-01-01T00:00:00Z ... 9999-12-31T23:59:59.999999999Z.
    static let minimumSeconds: Int64 = -62_135_596_800
    static let maximumSeconds: Int64 = 253_402_300_799

    // MARK: Timestamps

    /// RFC 3339: `2023-05-28T00:00:00Z`, `2023-05-28T00:00:00.5+02:00` (also `t`/`z`, and a space).
    static func parseTimestamp(_ text: String) throws(EvaluationError) -> Timestamp {
        let bytes = Array(text.utf8)
        var cursor = 0
        func fail() -> EvaluationError {
            EvaluationError.invalidArgument("timestamp", "'\(text)' is not an RFC 3339 timestamp")
        }
        func digits(_ count: Int) throws(EvaluationError) -> Int64 {
            guard cursor + count <= bytes.count else { throw fail() }
            var value: Int64 = 0
            for _ in 0..<count {
                let byte = bytes[cursor]
                guard byte >= 0x30, byte <= 0x39 else { throw fail() }
                value = value * 10 + Int64(byte - 0x30)
                cursor += 1
            }
            return value
        }
        func expect(_ allowed: [UInt8]) throws(EvaluationError) {
            guard cursor < bytes.count, allowed.contains(bytes[cursor]) else { throw fail() }
            cursor += 1
        }
        let year = try digits(4)
        try expect([0x2D])
        let month = try digits(2)
        try expect([0x2D])
        let day = try digits(2)
        try expect([0x54, 0x74, 0x20])
        let hour = try digits(2)
        try expect([0x3A])
        let minute = try digits(2)
        try expect([0x3A])
        let second = try digits(2)
        var nanos: Int64 = 0
        if cursor < bytes.count, bytes[cursor] == 0x2E {
            cursor += 1
            var scale: Int64 = 100_000_000
            var sawDigit = false
            while cursor < bytes.count, bytes[cursor] >= 0x30, bytes[cursor] <= 0x39 {
                nanos += Int64(bytes[cursor] - 0x30) * scale
                scale /= 10
                sawDigit = true
                cursor += 1
            }
            guard sawDigit else { throw fail() }
        }
        var offset: Int64 = 0
        guard cursor < bytes.count else { throw fail() }
        switch bytes[cursor] {
        case 0x5A, 0x7A:
            cursor += 1
        case 0x2B, 0x2D:
            let sign: Int64 = bytes[cursor] == 0x2D ? -1 : 1
            cursor += 1
            let offsetHours = try digits(2)
            try expect([0x3A])
            let offsetMinutes = try digits(2)
            guard offsetHours < 24, offsetMinutes < 60 else { throw fail() }
            offset = sign * (offsetHours * 3600 + offsetMinutes * 60)
        default:
            throw fail()
        }
        guard cursor == bytes.count, (1...12).contains(month), hour < 24, minute < 60, second < 60,
            day >= 1, day <= daysInMonth(year: year, month: month)
        else { throw fail() }
        let days = daysFromCivil(year: year, month: month, day: day)
        let seconds = days * 86_400 + hour * 3600 + minute * 60 + second - offset
        guard seconds >= minimumSeconds, seconds <= maximumSeconds else {
            throw EvaluationError.invalidArgument("timestamp", "'\(text)' is out of range")
        }
        return Timestamp(seconds: seconds, nanoseconds: Int32(nanos), offsetSeconds: Int32(offset))
    }

    /// chrono's `to_rfc3339`: `2023-05-28T00:00:00+00:00`, fractions in 3, 6 or 9 digits.
    static func format(_ timestamp: Timestamp) -> String {
        let local = timestamp.seconds + Int64(timestamp.offsetSeconds)
        let days = local >= 0 ? local / 86_400 : (local - 86_399) / 86_400
        let secondOfDay = local - days * 86_400
        let (year, month, day) = civilFromDays(days)
        var text = pad(year, 4) + "-" + pad(month, 2) + "-" + pad(day, 2) + "T"
        text += pad(secondOfDay / 3600, 2) + ":" + pad(secondOfDay / 60 % 60, 2) + ":" + pad(secondOfDay % 60, 2)
        text += fraction(Int64(timestamp.nanoseconds))
        let offset = Int64(timestamp.offsetSeconds)
        text += (offset < 0 ? "-" : "+") + pad(abs(offset) / 3600, 2) + ":" + pad(abs(offset) / 60 % 60, 2)
        return text
    }

    private static func fraction(_ nanos: Int64) -> String {
        if nanos == 0 { return "" }
        if nanos % 1_000_000 == 0 { return "." + pad(nanos / 1_000_000, 3) }
        if nanos % 1000 == 0 { return "." + pad(nanos / 1000, 6) }
        return "." + pad(nanos, 9)
    }

    private static func pad(_ value: Int64, _ width: Int) -> String {
        let digits = String(value)
        return digits.count >= width ? digits : String(repeating: "0", count: width - digits.count) + digits
    }

    static func add(_ span: TimeSpan, to timestamp: Timestamp, sign: Int64) throws(EvaluationError) -> Timestamp {
        var seconds = timestamp.seconds + sign * span.seconds
        var nanos = Int64(timestamp.nanoseconds) + sign * Int64(span.nanoseconds)
        if nanos < 0 {
            nanos += nanosPerSecond
            seconds -= 1
        }
        if nanos >= nanosPerSecond {
            nanos -= nanosPerSecond
            seconds += 1
        }
        guard seconds >= minimumSeconds, seconds <= maximumSeconds else {
            throw EvaluationError(.overflow, "Timestamp out of range")
        }
        return Timestamp(seconds: seconds, nanoseconds: Int32(nanos), offsetSeconds: timestamp.offsetSeconds)
    }

    static func difference(_ left: Timestamp, _ right: Timestamp) throws(EvaluationError) -> TimeSpan {
        let seconds = left.seconds - right.seconds
        let nanos = Int64(left.nanoseconds) - Int64(right.nanoseconds)
        return normalize(seconds: seconds, nanos: nanos)
    }

    static func sum(_ left: TimeSpan, _ right: TimeSpan, sign: Int64) throws(EvaluationError) -> TimeSpan {
        let (seconds, overflow) = left.seconds.addingReportingOverflow(sign * right.seconds)
        if overflow { throw EvaluationError(.overflow, "Duration out of range") }
        return normalize(seconds: seconds, nanos: Int64(left.nanoseconds) + sign * Int64(right.nanoseconds))
    }

    private static func normalize(seconds: Int64, nanos: Int64) -> TimeSpan {
        var seconds = seconds + nanos / nanosPerSecond
        var nanos = nanos % nanosPerSecond
        if seconds > 0 && nanos < 0 {
            seconds -= 1
            nanos += nanosPerSecond
        }
        if seconds < 0 && nanos > 0 {
            seconds += 1
            nanos -= nanosPerSecond
        }
        return TimeSpan(seconds: seconds, nanoseconds: Int32(nanos))
    }

    // MARK: Durations

    /// Go's duration syntax, as cel-interpreter takes it: `1h30m`, `60s`, `-1.5h`, `100ms`, `2us`.
    static func parseDuration(_ text: String) throws(EvaluationError) -> TimeSpan {
        func fail() -> EvaluationError {
            EvaluationError.invalidArgument("duration", "'\(text)' is not a duration")
        }
        var scalars = Substring(text)
        var negative = false
        if let first = scalars.first, first == "-" || first == "+" {
            negative = first == "-"
            scalars = scalars.dropFirst()
        }
        if scalars == "0" { return TimeSpan(seconds: 0) }
        guard !scalars.isEmpty else { throw fail() }
        var total: Double = 0
        while !scalars.isEmpty {
            let number = scalars.prefix { $0.isASCII && ($0.isNumber || $0 == ".") }
            guard !number.isEmpty, let amount = Double(number) else { throw fail() }
            scalars = scalars.dropFirst(number.count)
            let unit = scalars.prefix { $0.isLetter || $0 == "µ" }
            scalars = scalars.dropFirst(unit.count)
            let nanosPerUnit: Double
            switch unit {
            case "h": nanosPerUnit = 3_600_000_000_000
            case "m": nanosPerUnit = 60_000_000_000
            case "s": nanosPerUnit = 1_000_000_000
            case "ms": nanosPerUnit = 1_000_000
            case "us", "µs": nanosPerUnit = 1000
            case "ns": nanosPerUnit = 1
            default: throw fail()
            }
            total += amount * nanosPerUnit
        }
        guard total < 9.2e18 else { throw EvaluationError(.overflow, "Duration '\(text)' is out of range") }
        let nanos = Int64(total.rounded())
        return TimeSpan(totalNanoseconds: negative ? -nanos : nanos)
    }

    /// Go's `Duration.String`: `1h30m0s`, `1m0s`, `1.5s`, `100ms`, `0s`.
    static func format(_ span: TimeSpan) -> String {
        guard let total = span.totalNanoseconds else { return "\(span.seconds)s" }
        if total == 0 { return "0s" }
        let sign = total < 0 ? "-" : ""
        let magnitude = total.magnitude
        if magnitude < 1_000_000_000 {
            let (unit, scale): (String, UInt64) =
                magnitude < 1000 ? ("ns", 1) : magnitude < 1_000_000 ? ("µs", 1000) : ("ms", 1_000_000)
            return sign + decimal(magnitude, scale: scale) + unit
        }
        let hours = magnitude / 3_600_000_000_000
        let minutes = magnitude / 60_000_000_000 % 60
        let seconds = decimal(magnitude % 60_000_000_000, scale: 1_000_000_000)
        var text = sign
        if hours > 0 { text += "\(hours)h" }
        if hours > 0 || minutes > 0 { text += "\(minutes)m" }
        return text + seconds + "s"
    }

    private static func decimal(_ value: UInt64, scale: UInt64) -> String {
        let whole = value / scale
        var fraction = value % scale
        guard fraction > 0 else { return "\(whole)" }
        var digits = ""
        var divisor = scale / 10
        while fraction > 0, divisor > 0 {
            digits.append(Character(Unicode.Scalar(UInt8(48 + fraction / divisor))))
            fraction %= divisor
            divisor /= 10
        }
        return "\(whole).\(digits)"
    }

    // MARK: Civil calendar (Howard Hinnant's algorithms)

    static func daysFromCivil(year: Int64, month: Int64, day: Int64) -> Int64 {
        let y = month <= 2 ? year - 1 : year
        let era = (y >= 0 ? y : y - 399) / 400
        let yearOfEra = y - era * 400
        let dayOfYear = (153 * (month + (month > 2 ? -3 : 9)) + 2) / 5 + day - 1
        let dayOfEra = yearOfEra * 365 + yearOfEra / 4 - yearOfEra / 100 + dayOfYear
        return era * 146_097 + dayOfEra - 719_468
    }

    /// The proleptic Gregorian year, month and day of a day counted from 1970-01-01 (day 0),
    /// by Howard Hinnant's `civil_from_days`.
    public static func civilFromDays(_ days: Int64) -> (Int64, Int64, Int64) {
        let z = days + 719_468
        let era = (z >= 0 ? z : z - 146_096) / 146_097
        let dayOfEra = z - era * 146_097
        let yearOfEra = (dayOfEra - dayOfEra / 1460 + dayOfEra / 36524 - dayOfEra / 146_096) / 365
        let dayOfYear = dayOfEra - (365 * yearOfEra + yearOfEra / 4 - yearOfEra / 100)
        let mp = (5 * dayOfYear + 2) / 153
        let day = dayOfYear - (153 * mp + 2) / 5 + 1
        let month = mp < 10 ? mp + 3 : mp - 9
        return (yearOfEra + era * 400 + (month <= 2 ? 1 : 0), month, day)
    }

    private static func daysInMonth(year: Int64, month: Int64) -> Int64 {
        switch month {
        case 2: (year % 4 == 0 && year % 100 != 0) || year % 400 == 0 ? 29 : 28
        case 4, 6, 9, 11: 30
        default: 31
        }
    }
}
