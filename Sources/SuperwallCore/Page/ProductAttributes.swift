import Foundation

/// A product's template variables (SuperwallKit's `StoreProduct.attributes`, StoreKit 2's
/// rules): the 33 strings a paywall page reads as `{{ primary.price }}`, computed from what the
/// host's store said of the product.
///
/// Prices and periods are the store's; the period and trial-end strings are in the device's
/// locale, prices in the store's price locale, as on a phone.
public struct ProductAttributes: Sendable {
    public var details: StoreProductDetails
    /// The locale of the period and date strings.
    public var deviceLocale: String
    public var now: Date
    public var timeZone: TimeZone

    public init(details: StoreProductDetails, deviceLocale: String, now: Date, timeZone: TimeZone = .current) {
        self.details = details
        self.deviceLocale = deviceLocale
        self.now = now
        self.timeZone = timeZone
    }

    typealias Period = StoreProductDetails.Period

    var price: Decimal { details.decimalPrice ?? 0 }
    var priceLocale: String { details.priceLocale ?? deviceLocale }
    var currencyCode: String {
        details.currencyCode ?? Locale(identifier: priceLocale).currency?.identifier ?? "USD"
    }

    public var strings: [String: String] {
        let offer = details.offer
        let period = details.period
        return [
            "rawPrice": "\(price)",
            "price": formatted(price),
            "periodAlt": localizedPeriod,
            "localizedPeriod": localizedPeriod,
            "period": period.map(Self.periodName) ?? "",
            "periodly": period.map(Self.periodly) ?? "",
            "dailyPrice": pricePer(.day),
            "weeklyPrice": pricePer(.week),
            "monthlyPrice": pricePer(.month),
            "yearlyPrice": pricePer(.year),
            "rawTrialPeriodPrice": "\(offer?.price ?? 0)",
            "trialPeriodPrice": formatted(offer?.price ?? 0),
            "trialPeriodDailyPrice": trialPricePer(.day),
            "trialPeriodWeeklyPrice": trialPricePer(.week),
            "trialPeriodMonthlyPrice": trialPricePer(.month),
            "trialPeriodYearlyPrice": trialPricePer(.year),
            "trialPeriodDays": "\(offer.map { Self.count(of: $0.period, in: .day) } ?? 0)",
            "trialPeriodWeeks": "\(offer.map { Self.count(of: $0.period, in: .week) } ?? 0)",
            "trialPeriodMonths": "\(offer.map { Self.count(of: $0.period, in: .month) } ?? 0)",
            "trialPeriodYears": "\(offer.map { Self.count(of: $0.period, in: .year) } ?? 0)",
            "trialPeriodText": offer.map { "\(Self.count(of: $0.period, in: .day))-day" } ?? "",
            "trialPeriodEndDate": trialEndDate.map {
                LocaleFormatting.mediumDate($0, locale: deviceLocale, timeZone: timeZone)
            } ?? "",
            "periodDays": "\(period.map { Self.count(of: $0, in: .day) } ?? 0)",
            "periodWeeks": "\(period.map { Self.count(of: $0, in: .week) } ?? 0)",
            "periodMonths": "\(period.map { Self.count(of: $0, in: .month) } ?? 0)",
            "periodYears": "\(period.map { Self.count(of: $0, in: .year) } ?? 0)",
            "locale": priceLocale,
            "languageCode": Locale(identifier: priceLocale).language.languageCode?.identifier ?? "n/a",
            "currencyCode": currencyCode,
            "currencySymbol": LocaleFormatting.currencySymbol(currencyCode, locale: priceLocale),
            "identifier": details.productIdentifier,
            // A billing plan needs a pricing term from the device's store (iOS 26.4); hosts
            // report none.
            "billingPlanType": "",
            "isBillingPlanAvailable": "false",
        ]
    }

    /// The end of the intro offer's first period from now, in the calendar; nil without one.
    public var trialEndDate: Date? {
        guard let period = details.offer?.period else { return nil }
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = timeZone
        var components = DateComponents()
        switch period.unit {
        case .day: components.day = period.count
        case .week: components.day = 7 * period.count
        case .month: components.month = period.count
        case .year: components.year = period.count
        }
        return calendar.date(byAdding: components, to: now)
    }

    private var localizedPeriod: String {
        guard let period = details.period else { return "" }
        return LocaleFormatting.shortDuration(period.count, period.unit, locale: deviceLocale)
    }

    private func formatted(_ amount: Decimal) -> String {
        LocaleFormatting.currency(amount, code: currencyCode, locale: priceLocale)
    }

    /// The price per `target` unit, from the normalised period, truncated to cents.
    private func pricePer(_ target: Period.Unit) -> String {
        guard let period = details.period.map(Self.normalized) else { return "n/a" }
        return formatted(Self.truncated(price / (Self.unitsPerPeriod(target, of: period.unit) * Decimal(period.count))))
    }

    /// The intro offer's price per `target` unit (`StoreProductDiscount.pricePerUnit`): 0 for
    /// none or a free one; the whole intro cost when the intro is shorter than one unit.
    private func trialPricePer(_ target: Period.Unit) -> String {
        guard let offer = details.offer, offer.price != 0, offer.paymentMode != .freeTrial else { return formatted(0) }
        let cost = offer.price * Decimal(offer.periodCount)
        let units =
            Self.discountUnitsPerPeriod(target, of: offer.period.unit) * Decimal(offer.periodCount)
            * Decimal(offer.period.count)
        return formatted(units < 1 ? cost : Self.truncated(cost / units))
    }

    // MARK: SuperwallKit's tables

    /// `period`: `week` for seven days, `quarter` for three months, never localised.
    static func periodName(_ period: Period) -> String {
        switch (period.unit, period.count) {
        case (.day, 7), (.week, _): "week"
        case (.day, _): "day"
        case (.month, 2): "2 months"
        case (.month, 3): "quarter"
        case (.month, 6): "6 months"
        case (.month, _): "month"
        case (.year, _): "year"
        }
    }

    /// `periodly`: `every 2 months`, `every 6 months`, else the period and `ly` (`dayly`
    /// included, as SuperwallKit writes it).
    static func periodly(_ period: Period) -> String {
        switch (period.unit, period.count) {
        case (.month, 2), (.month, 6): "every \(periodName(period))"
        default: "\(periodName(period))ly"
        }
    }

    /// Whole `target` units in `period`, with SuperwallKit's 30-day months and 4-week months.
    static func count(of period: Period, in target: Period.Unit) -> Int {
        let n = period.count
        switch (period.unit, target) {
        case (.day, .day): return n
        case (.day, .week): return n / 7
        case (.day, .month): return n / 30
        case (.day, .year): return n / 365
        case (.week, .day): return 7 * n
        case (.week, .week): return n
        case (.week, .month): return n / 4
        case (.week, .year): return n / 52
        case (.month, .day): return 30 * n
        case (.month, .week): return 4 * n
        case (.month, .month): return n
        case (.month, .year): return n / 12
        case (.year, .day): return 365 * n
        case (.year, .week): return 52 * n
        case (.year, .month): return 12 * n
        case (.year, .year): return n
        }
    }

    /// Seven days are a week and twelve months a year: what per-period prices are computed on.
    static func normalized(_ period: Period) -> Period {
        switch period.unit {
        case .day where period.count.isMultiple(of: 7): Period(unit: .week, count: period.count / 7)
        case .month where period.count.isMultiple(of: 12): Period(unit: .year, count: period.count / 12)
        default: period
        }
    }

    /// How many `target` units one `unit` holds, for a product's per-period prices.
    static func unitsPerPeriod(_ target: Period.Unit, of unit: Period.Unit) -> Decimal {
        switch (target, unit) {
        case (.day, .day), (.week, .week), (.month, .month), (.year, .year): 1
        case (.day, .week): 7
        case (.day, .month): Decimal(365) / 12
        case (.day, .year): 365
        case (.week, .day): Decimal(1) / 7
        case (.week, .month): Decimal(52) / 12
        case (.week, .year): 52
        case (.month, .day): Decimal(12) / 365
        case (.month, .week): Decimal(12) / 52
        case (.month, .year): 12
        case (.year, .day): Decimal(1) / 365
        case (.year, .week): Decimal(1) / 52
        case (.year, .month): Decimal(1) / 12
        }
    }

    /// The same for an intro offer, where SuperwallKit still counts a week as 365/52 days.
    static func discountUnitsPerPeriod(_ target: Period.Unit, of unit: Period.Unit) -> Decimal {
        switch (target, unit) {
        case (.day, .week): Decimal(365) / 52
        case (.week, .day): Decimal(52) / 365
        default: unitsPerPeriod(target, of: unit)
        }
    }

    /// Rounded down to cents, as SuperwallKit's `roundingBehavior` does.
    static func truncated(_ value: Decimal) -> Decimal {
        var value = value
        var result = Decimal()
        NSDecimalRound(&result, &value, 2, .down)
        return result
    }
}
