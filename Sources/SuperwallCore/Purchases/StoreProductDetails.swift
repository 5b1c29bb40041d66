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

    public init(productIdentifier: String, price: Double? = nil, currencyCode: String? = nil, localizedPrice: String? = nil,
                period: Period? = nil, trialPeriodDays: Int? = nil, isConsumable: Bool = false) {
        self.productIdentifier = productIdentifier
        self.price = price
        self.currencyCode = currencyCode
        self.localizedPrice = localizedPrice
        self.period = period
        self.trialPeriodDays = trialPeriodDays
        self.isConsumable = isConsumable
    }
}
