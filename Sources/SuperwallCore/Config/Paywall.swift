/// A paywall as configured on the dashboard (`paywall_responses[]`).
public struct Paywall: Sendable, Equatable {
    /// The database id.
    public var id: String
    public var identifier: String
    public var name: String
    /// Changes whenever the paywall's content changes; how refreshes tell edits apart.
    public var cacheKey: String
    public var buildId: String
    public var url: String
    public var urlConfig: URLConfig
    /// Base64 substitutions handed verbatim to the paywall's page.
    public var paywalljsEvent: String
    public var presentationStyle: PresentationStyle
    public var presentationDelayMs: Int
    public var backgroundColorHex: String
    public var darkBackgroundColorHex: String?
    /// In order: index 0, 1, 2 are reported as primary, secondary, tertiary.
    public var products: [Product]
    public var featureGating: FeatureGating
    public var onDeviceCacheEnabled: Bool
    public var localNotifications: [LocalNotification]
    public var computedProperties: [ComputedPropertyRequest]
    /// Asked as the paywall closes; the first whose condition the close meets is the one.
    public var surveys: [Survey] = []
    public var isScrollEnabled: Bool
    public var introductoryOfferEligibility: IntroductoryOfferEligibility

    public struct URLConfig: Sendable, Equatable {
        public struct Endpoint: Sendable, Equatable {
            public var url: String
            public var timeoutMs: Int
            public var percentage: Int
        }

        public var endpoints: [Endpoint]
        public var maxAttempts: Int
    }

    public enum FeatureGating: String, Sendable {
        case gated = "GATED"
        case nonGated = "NON_GATED"
    }

    public enum IntroductoryOfferEligibility: String, Sendable {
        case alwaysEligible = "ALWAYS_ELIGIBLE"
        case alwaysIneligible = "ALWAYS_INELIGIBLE"
        case automatic = "AUTOMATIC"
    }
}

public struct PresentationStyle: Sendable, Equatable {
    public enum Kind: String, Sendable, CaseIterable {
        case modal = "MODAL"
        case fullscreen = "FULLSCREEN"
        case noAnimation = "NO_ANIMATION"
        case push = "PUSH"
        case drawer = "DRAWER"
        case popup = "POPUP"
        case none = "NONE"
    }

    public var kind: Kind
    public var height: Double?
    public var width: Double?
    public var cornerRadius: Double?

    public init(kind: Kind, height: Double?, width: Double?, cornerRadius: Double?) {
        self.kind = kind
        self.height = height
        self.width = width
        self.cornerRadius = cornerRadius
    }
}

public struct LocalNotification: Sendable, Equatable {
    /// Only trial-started notifications exist; other types are dropped.
    public var title: String
    public var subtitle: String?
    public var body: String
    public var delayMs: Int

    public init(title: String, subtitle: String?, body: String, delayMs: Int) {
        self.title = title
        self.subtitle = subtitle
        self.body = body
        self.delayMs = delayMs
    }
}

/// A product and the entitlements it grants.
public struct Product: Sendable, Equatable {
    /// The paywall's name for it (`primary`, ...); only paywall products have one.
    public var referenceName: String?
    public var storeProduct: StoreProduct
    public var compositeId: String?
    public var entitlements: [Entitlement]
    /// What the host's store says of it, when the host has said.
    public var storeDetails: StoreProductDetails? {
        get { boxedDetails?.details }
        set { boxedDetails = newValue.map(DetailsBox.init) }
    }
    /// Boxed: most products never get details, and a config holds tens of thousands of
    /// products, each otherwise 88 bytes larger.
    private var boxedDetails: DetailsBox?

    private final class DetailsBox: Sendable, Equatable {
        let details: StoreProductDetails
        init(_ details: StoreProductDetails) { self.details = details }
        static func == (left: DetailsBox, right: DetailsBox) -> Bool { left.details == right.details }
    }

    /// `sw_composite_product_id` when present, else the store's product identifier.
    public var id: String { compositeId ?? storeProduct.productIdentifier }

    public init(
        referenceName: String?,
        storeProduct: StoreProduct,
        compositeId: String?,
        entitlements: [Entitlement],
        storeDetails: StoreProductDetails? = nil
    ) {
        self.referenceName = referenceName
        self.storeProduct = storeProduct
        self.compositeId = compositeId
        self.entitlements = entitlements
        boxedDetails = storeDetails.map(DetailsBox.init)
    }

    /// Whether `identifier` names it: by its id or its store's identifier.
    public func isNamed(_ identifier: String) -> Bool {
        id == identifier || storeProduct.productIdentifier == identifier
    }
}

public enum StoreProduct: Sendable, Equatable {
    case appStore(productIdentifier: String, billingPlanType: String?)
    case stripe(productIdentifier: String, trialDays: Int?)
    case paddle(productIdentifier: String)
    case custom(productIdentifier: String)
    /// A Google Play product (Superwall-Android's `PlayStoreProduct`): the product, its base
    /// plan (empty for a one-time product of the old kind) and which offer to buy it with.
    case playStore(productIdentifier: String, basePlanIdentifier: String, offer: PlayOffer)

    /// The identifier the store knows the product by; for a Play product, Superwall-Android's
    /// full identifier `product:basePlan:offer` (the offer `sw-auto` for `AUTOMATIC`, `sw-none`
    /// for `NO_OFFER`), or the product alone without a base plan: what products are looked up,
    /// described and bought by.
    public var productIdentifier: String {
        switch self {
        case .appStore(let identifier, _), .stripe(let identifier, _), .paddle(let identifier), .custom(let identifier):
            return identifier
        case .playStore(let product, let basePlan, let offer):
            guard !basePlan.isEmpty else { return product }
            return "\(product):\(basePlan):\(offer.identifierComponent)"
        }
    }

    /// The wire name of the store: `APP_STORE`, `STRIPE`, `PADDLE`, `CUSTOM`, `PLAY_STORE`.
    public var store: String {
        switch self {
        case .appStore: return "APP_STORE"
        case .stripe: return "STRIPE"
        case .paddle: return "PADDLE"
        case .custom: return "CUSTOM"
        case .playStore: return "PLAY_STORE"
        }
    }
}

/// Which offer a Google Play product is bought with (Superwall-Android's `Offer`).
public enum PlayOffer: Sendable, Equatable {
    /// `AUTOMATIC`: the store's best offer of the base plan (Superwall-Android takes the
    /// longest free trial, else the cheapest first phase, else the base plan).
    case automatic
    /// `NO_OFFER`: the base plan alone.
    case noOffer
    /// `SPECIFIED`: this offer of the base plan.
    case specified(String)

    /// The offer's part of the full identifier: `sw-auto`, `sw-none` or the offer's id.
    var identifierComponent: String {
        switch self {
        case .automatic: "sw-auto"
        case .noOffer: "sw-none"
        case .specified(let id): id
        }
    }

    /// The offer id a purchase names: the specified one; nil for the others (for `AUTOMATIC`,
    /// the client's store chooses among the base plan's offers).
    public var offerId: String? {
        if case .specified(let id) = self { return id }
        return nil
    }
}
