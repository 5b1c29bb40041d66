import Foundation

/// What the host's store says of a product: its price, period and trial. The config knows
/// only identifiers and entitlements; a host that has asked its store tells the bridge this
/// (`configure.storeProducts`, `setStoreProducts`), and purchases are then reported as
/// SuperwallKit reports them: a product without a period is a non-recurring purchase, one
/// with trial days starts a free trial, and the `product_*` event parameters carry the price.
public struct StoreProductDetails: Sendable, Equatable {
    public struct Period: Sendable, Equatable {
        public enum Unit: String, Sendable, CaseIterable {
            case day, week, month, year

            var days: Int {
                switch self {
                case .day: 1
                case .week: 7
                case .month: 30
                case .year: 365
                }
            }
        }

        public var unit: Unit
        public var count: Int

        public init(unit: Unit, count: Int = 1) {
            self.unit = unit
            self.count = count
        }

        /// SuperwallKit's `periodDays`: months as 30 days, years as 365.
        public var days: Int { unit.days * count }

        /// SuperwallKit's `periodly`: `monthly`, `yearly`, ...; `every 3 months` otherwise.
        public var periodly: String {
            guard count == 1 else { return "every \(count) \(unit.rawValue)s" }
            return unit == .day ? "daily" : "\(unit.rawValue)ly"
        }
    }

    /// The store's identifier (`product_identifier` in the config).
    public var productIdentifier: String
    public var price: Double?
    public var currencyCode: String?
    /// The price as the store formats it for the user (`$9.99`).
    public var localizedPrice: String?
    /// How often it renews; nil for a product that does not.
    public var period: Period?
    public var trialPeriodDays: Int?
    /// For a product that does not renew: used up when bought, rather than kept.
    public var isConsumable: Bool
    /// The locale the store formats the price in (StoreKit's `priceFormatStyle.locale`, the
    /// storefront's), e.g. `de_DE`; nil is the device's.
    public var priceLocale: String?
    /// The introductory offer, free or paid; nil with `trialPeriodDays` is a free trial of
    /// that many days.
    public var introductoryOffer: IntroductoryOffer?
    /// The subscription group, for the rule that a subscriber to a group gets no intro offer.
    public var subscriptionGroupId: String?
    /// What the store says of the user's eligibility for the intro offer (StoreKit 2's
    /// `isEligibleForIntroOffer`); nil when the host did not ask it.
    public var isEligibleForIntroOffer: Bool?
    /// For a Google Play subscription (the product alone, `pro_sub`): its base plans and
    /// offers as Play Billing reports them. A config product `pro_sub:monthly:sw-auto` is then
    /// described by the offer Superwall-Android would choose (`chosen(for:_:)`).
    public var playOffers: [PlayOfferDetails] = []
    /// The offer the bridge chose from `playOffers`, for details it derived; nil otherwise.
    public var chosenPlayOffer: ChosenPlayOffer?

    public struct IntroductoryOffer: Sendable, Equatable {
        public enum PaymentMode: String, Sendable, CaseIterable {
            case freeTrial, payAsYouGo, payUpFront
        }

        /// The price of one period (0 for a free trial).
        public var price: Decimal
        /// One period of the offer.
        public var period: Period
        /// How many periods it lasts.
        public var periodCount: Int
        public var paymentMode: PaymentMode

        public init(price: Decimal, period: Period, periodCount: Int = 1, paymentMode: PaymentMode) {
            self.price = price
            self.period = period
            self.periodCount = periodCount
            self.paymentMode = paymentMode
        }
    }

    public init(
        productIdentifier: String,
        price: Double? = nil,
        currencyCode: String? = nil,
        localizedPrice: String? = nil,
        period: Period? = nil,
        trialPeriodDays: Int? = nil,
        isConsumable: Bool = false,
        priceLocale: String? = nil,
        introductoryOffer: IntroductoryOffer? = nil,
        subscriptionGroupId: String? = nil,
        isEligibleForIntroOffer: Bool? = nil,
        playOffers: [PlayOfferDetails] = []
    ) {
        self.productIdentifier = productIdentifier
        self.price = price
        self.currencyCode = currencyCode
        self.localizedPrice = localizedPrice
        self.period = period
        self.trialPeriodDays = trialPeriodDays
        self.isConsumable = isConsumable
        self.priceLocale = priceLocale
        self.introductoryOffer = introductoryOffer
        self.subscriptionGroupId = subscriptionGroupId
        self.isEligibleForIntroOffer = isEligibleForIntroOffer
        self.playOffers = playOffers
    }

    /// The intro offer, or the free trial `trialPeriodDays` describes.
    public var offer: IntroductoryOffer? {
        if let introductoryOffer { return introductoryOffer }
        guard let days = trialPeriodDays, days > 0 else { return nil }
        return IntroductoryOffer(price: 0, period: Period(unit: .day, count: days), paymentMode: .freeTrial)
    }

    /// The price as a decimal: the shortest text that reads back as the double, so 59.99 is
    /// 59.99 and not its binary neighbour.
    public var decimalPrice: Decimal? {
        price.flatMap { Decimal(string: String($0), locale: Locale(identifier: "en_US_POSIX")) }
    }
}
