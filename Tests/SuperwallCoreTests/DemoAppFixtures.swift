import SuperwallCore

/// The demo app's annual product, which the presentation, purchase and page tests buy.
let annual = "com.pockettrainer.pro.annual"

/// What the host's store says of the demo's annual product: 59.99 a year, a 7-day free trial.
let annualDetails = StoreProductDetails(
    productIdentifier: annual,
    price: 59.99,
    currencyCode: "USD",
    period: .init(unit: .year),
    trialPeriodDays: 7,
    priceLocale: "en_US"
)

/// A page message: `events` in paywall.js's envelope.
func envelope(_ events: JSON...) -> JSON {
    ["version": 1, "payload": ["events": .array(events)]]
}
