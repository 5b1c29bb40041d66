import Foundation
import _FoundationICU

/// The locale-dependent strings of a paywall's product variables, from the CLDR data of the
/// ICU that Foundation itself uses: currency amounts, short durations (`1 yr`, `1 J`) and
/// medium dates, as Apple's formatters give them from the same data.
enum LocaleFormatting {
    /// `amount` in `currency`, formatted for `locale`, as a currency `NumberFormatter` does.
    static func currency(_ amount: Decimal, code currency: String, locale: String) -> String {
        let formatter = NumberFormatter()
        formatter.numberStyle = .currency
        formatter.locale = Locale(identifier: locale)
        formatter.currencyCode = currency
        return formatter.string(from: amount as NSDecimalNumber) ?? "n/a"
    }

    /// The currency symbol `locale` writes for `currency` (`$`, `€`).
    static func currencySymbol(_ currency: String, locale: String) -> String {
        let formatter = NumberFormatter()
        formatter.numberStyle = .currency
        formatter.locale = Locale(identifier: locale)
        formatter.currencyCode = currency
        return formatter.currencySymbol
    }

    /// `count` of `unit` in the short unit width (`DateComponentsFormatter`'s `.short`): `1 yr`,
    /// `3 mths`. Foundation on Linux has no `DateComponentsFormatter`, so ICU formats it.
    static func shortDuration(_ count: Int, _ unit: StoreProductDetails.Period.Unit, locale: String) -> String {
        let skeleton = Array("measure-unit/duration-\(unit.rawValue) unit-width-short".utf16)
        var status = U_ZERO_ERROR
        guard let formatter = swift_unumf_openForSkeletonAndLocale(skeleton, Int32(skeleton.count), locale, &status),
            status.rawValue <= U_ZERO_ERROR.rawValue
        else { return "" }
        defer { swift_unumf_close(formatter) }
        guard let result = swift_unumf_openResult(&status) else { return "" }
        defer { swift_unumf_closeResult(result) }
        swift_unumf_formatInt(formatter, Int64(count), result, &status)
        var buffer = [UChar](repeating: 0, count: 64)
        let length = swift_unumf_resultToString(result, &buffer, Int32(buffer.count), &status)
        guard status.rawValue <= U_ZERO_ERROR.rawValue, length >= 0, Int(length) <= buffer.count else { return "" }
        return String(decoding: buffer[..<Int(length)], as: UTF16.self)
    }

    /// A medium date with no time (`Aug 26, 2026`, `26.08.2026`).
    static func mediumDate(_ date: Date, locale: String, timeZone: TimeZone) -> String {
        let formatter = DateFormatter()
        formatter.dateStyle = .medium
        formatter.timeStyle = .none
        formatter.locale = Locale(identifier: locale)
        formatter.timeZone = timeZone
        return formatter.string(from: date)
    }
}
