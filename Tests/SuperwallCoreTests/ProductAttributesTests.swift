import Foundation
import Testing

@testable import SuperwallCore

/// A worked example of the product variables SuperwallKit computes: `com.example.annual`, 59.99 a year
/// with a free 7-day intro, shown on 2026-08-19.
func annual(currency: String, priceLocale: String) -> StoreProductDetails {
    StoreProductDetails(
        productIdentifier: "com.example.annual",
        price: 59.99,
        currencyCode: currency,
        period: .init(unit: .year),
        priceLocale: priceLocale,
        introductoryOffer: .init(price: 0, period: .init(unit: .day, count: 7), paymentMode: .freeTrial)
    )
}

let shownOn = ISO8601DateFormatter().date(from: "2026-08-19T12:00:00Z")!
let utc = TimeZone(identifier: "UTC")!

private func attributes(_ details: StoreProductDetails, deviceLocale: String = "en_US") -> [String: String] {
    ProductAttributes(details: details, deviceLocale: deviceLocale, now: shownOn, timeZone: utc).strings
}

/// The worked example in en_US, field by field, as SuperwallKit computes it.
let workedExampleEnUS: [String: String] = [
    "rawPrice": "59.99", "price": "$59.99", "periodAlt": "1 yr", "localizedPeriod": "1 yr",
    "period": "year", "periodly": "yearly",
    "dailyPrice": "$0.16", "weeklyPrice": "$1.15", "monthlyPrice": "$4.99", "yearlyPrice": "$59.99",
    "rawTrialPeriodPrice": "0", "trialPeriodPrice": "$0.00", "trialPeriodDailyPrice": "$0.00",
    "trialPeriodWeeklyPrice": "$0.00", "trialPeriodMonthlyPrice": "$0.00", "trialPeriodYearlyPrice": "$0.00",
    "trialPeriodDays": "7", "trialPeriodWeeks": "1", "trialPeriodMonths": "0", "trialPeriodYears": "0",
    "trialPeriodText": "7-day", "trialPeriodEndDate": "Aug 26, 2026",
    "periodDays": "365", "periodWeeks": "52", "periodMonths": "12", "periodYears": "1",
    "locale": "en_US", "languageCode": "en", "currencyCode": "USD", "currencySymbol": "$",
    "identifier": "com.example.annual", "billingPlanType": "", "isBillingPlanAvailable": "false",
]

/// The same in de_DE (the space before € is U+00A0).
let workedExampleDeDE: [String: String] = [
    // SuperwallKit's `1 J.` is Apple's CLDR; the toolchain's ICU (CLDR 46) writes `1 J`.
    "rawPrice": "59.99", "price": "59,99\u{00A0}€", "periodAlt": "1 J", "localizedPeriod": "1 J",
    "period": "year", "periodly": "yearly",
    "dailyPrice": "0,16\u{00A0}€", "weeklyPrice": "1,15\u{00A0}€", "monthlyPrice": "4,99\u{00A0}€",
    "yearlyPrice": "59,99\u{00A0}€",
    "rawTrialPeriodPrice": "0", "trialPeriodPrice": "0,00\u{00A0}€", "trialPeriodDailyPrice": "0,00\u{00A0}€",
    "trialPeriodWeeklyPrice": "0,00\u{00A0}€", "trialPeriodMonthlyPrice": "0,00\u{00A0}€",
    "trialPeriodYearlyPrice": "0,00\u{00A0}€",
    "trialPeriodDays": "7", "trialPeriodWeeks": "1", "trialPeriodMonths": "0", "trialPeriodYears": "0",
    "trialPeriodText": "7-day", "trialPeriodEndDate": "26.08.2026",
    "periodDays": "365", "periodWeeks": "52", "periodMonths": "12", "periodYears": "1",
    "locale": "de_DE", "languageCode": "de", "currencyCode": "EUR", "currencySymbol": "€",
    "identifier": "com.example.annual", "billingPlanType": "", "isBillingPlanAvailable": "false",
]

@Suite struct ProductAttributesTests {
    @Test func theWorkedExampleInEnUSMatchesTheReferenceFieldByField() {
        let expected = workedExampleEnUS
        let computed = attributes(annual(currency: "USD", priceLocale: "en_US"))
        #expect(computed.count == 33)
        for (key, value) in expected { #expect(computed[key] == value, "\(key)") }
        #expect(Set(computed.keys) == Set(expected.keys))
    }

    @Test func theWorkedExampleInDeDEMatchesTheReferenceFieldByField() {
        let expected = workedExampleDeDE
        let computed = attributes(annual(currency: "EUR", priceLocale: "de_DE"), deviceLocale: "de_DE")
        for (key, value) in expected { #expect(computed[key] == value, "\(key)") }
        #expect(Set(computed.keys) == Set(expected.keys))
    }

    @Test(arguments: [
        (StoreProductDetails.Period(unit: .year), 99.99, "dailyPrice", "$0.27"),
        (StoreProductDetails.Period(unit: .year), 99.99, "weeklyPrice", "$1.92"),
        (StoreProductDetails.Period(unit: .year), 89.99, "weeklyPrice", "$1.73"),
        (StoreProductDetails.Period(unit: .year), 89.99, "monthlyPrice", "$7.49"),
        (StoreProductDetails.Period(unit: .month), 9.99, "dailyPrice", "$0.32"),
        (StoreProductDetails.Period(unit: .month), 9.99, "weeklyPrice", "$2.30"),
        (StoreProductDetails.Period(unit: .week), 4.99, "dailyPrice", "$0.71"),
        (StoreProductDetails.Period(unit: .week), 7.00, "dailyPrice", "$1.00"),
        (StoreProductDetails.Period(unit: .day, count: 7), 7.00, "dailyPrice", "$1.00"),
        (StoreProductDetails.Period(unit: .month, count: 12), 120.00, "monthlyPrice", "$10.00"),
    ])
    func perPeriodPricesAreTruncatedToCentsAsSuperwallKitsAnchorsSay(
        period: StoreProductDetails.Period,
        price: Double,
        key: String,
        expected: String
    ) {
        let details = StoreProductDetails(
            productIdentifier: "p",
            price: price,
            currencyCode: "USD",
            period: period,
            priceLocale: "en_US"
        )
        #expect(attributes(details)[key] == expected)
    }

    @Test func periodNamesFollowTheRawPeriodAndNeverSayAnnually() {
        let names = [
            (StoreProductDetails.Period(unit: .day, count: 7), "week", "weekly"),
            (.init(unit: .day, count: 3), "day", "dayly"),
            (.init(unit: .month, count: 2), "2 months", "every 2 months"),
            (.init(unit: .month, count: 3), "quarter", "quarterly"),
            (.init(unit: .month, count: 6), "6 months", "every 6 months"),
            (.init(unit: .month, count: 12), "month", "monthly"),
            (.init(unit: .year, count: 2), "year", "yearly"),
        ]
        for (period, name, periodly) in names {
            let strings = attributes(
                StoreProductDetails(productIdentifier: "p", price: 1, currencyCode: "USD", period: period)
            )
            #expect(strings["period"] == name)
            #expect(strings["periodly"] == periodly)
        }
    }

    @Test func aOneTimePurchaseHasNoPeriodStringsAndNoPerPeriodPrices() {
        let strings = attributes(
            StoreProductDetails(productIdentifier: "lifetime", price: 149, currencyCode: "USD", priceLocale: "en_US")
        )
        #expect(
            strings["period"] == "" && strings["periodly"] == "" && strings["localizedPeriod"] == ""
                && strings["trialPeriodText"] == ""
        )
        #expect(strings["periodDays"] == "0" && strings["dailyPrice"] == "n/a" && strings["yearlyPrice"] == "n/a")
        #expect(strings["trialPeriodPrice"] == "$0.00")
        #expect(strings["rawPrice"] == "149" && strings["price"] == "$149.00")
    }

    @Test func aPaidIntroOfferIsPricedPerUnitAndAShortOneCostsItsWhole() {
        // Three months at 1.99 each: 5.97 over three months; per week 5.97 / (3 × 52/12).
        let details = StoreProductDetails(
            productIdentifier: "p",
            price: 59.99,
            currencyCode: "USD",
            period: .init(unit: .year),
            priceLocale: "en_US",
            introductoryOffer: .init(price: 1.99, period: .init(unit: .month), periodCount: 3, paymentMode: .payAsYouGo)
        )
        let strings = attributes(details)
        #expect(strings["rawTrialPeriodPrice"] == "1.99")
        #expect(strings["trialPeriodPrice"] == "$1.99")
        #expect(strings["trialPeriodMonthlyPrice"] == "$1.99")
        #expect(strings["trialPeriodWeeklyPrice"] == "$0.45")
        // A year is more than the three months: the whole intro cost.
        #expect(strings["trialPeriodYearlyPrice"] == "$5.97")
        #expect(strings["trialPeriodDays"] == "30" && strings["trialPeriodText"] == "30-day")
        #expect(strings["trialPeriodEndDate"] == "Sep 19, 2026")
    }

    @Test func trialDaysAloneDescribeAFreeTrial() {
        let details = StoreProductDetails(
            productIdentifier: "p",
            price: 9.99,
            currencyCode: "USD",
            period: .init(unit: .month),
            trialPeriodDays: 14
        )
        let strings = attributes(details)
        #expect(
            strings["trialPeriodDays"] == "14" && strings["trialPeriodWeeks"] == "2"
                && strings["trialPeriodText"] == "14-day"
        )
        #expect(strings["trialPeriodEndDate"] == "Sep 2, 2026")
    }
}
