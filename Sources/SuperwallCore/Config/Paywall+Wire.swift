import Foundation
import JSONText

extension Paywall: Decodable {
    enum Keys: String, ConfigObjectKeys {
        static let nameSet = MemberNameSet(names)
        /// Sent by the Superwall API, read by neither SuperwallKit nor the bridge.
        static let unread = [
            "dismissal_option", "launch_option", "presentation_condition", "presentation_style",
            "presentation_style_v2", "slug", "substitutions",
        ]

        case id, identifier, name
        case cacheKey = "cache_key"
        case buildId = "build_id"
        case url
        case urlConfig = "url_config"
        case paywalljsEvent = "paywalljs_event"
        case presentationStyleV3 = "presentation_style_v3"
        case presentationDelay = "presentation_delay"
        case backgroundColorHex = "background_color_hex"
        case darkBackgroundColorHex = "dark_background_color_hex"
        case productsV2 = "products_v2"
        case featureGating = "feature_gating"
        case onDeviceCache = "on_device_cache"
        case localNotifications = "local_notifications"
        case computedProperties = "computed_properties"
        case surveys
        case isScrollEnabled = "is_scroll_enabled"
        case introductoryOfferEligibility = "introductory_offer_eligibility"
    }

    public init(from decoder: any Decoder) throws {
        decoder.noteIgnoredMembers(besides: Keys.self)
        let container = try decoder.container(keyedBy: Keys.self)
        let log = DroppedElementLog.of(decoder)
        id = try container.decode(String.self, forKey: .id)
        identifier = try container.decode(String.self, forKey: .identifier)
        name = try container.decode(String.self, forKey: .name)
        cacheKey = try container.decode(String.self, forKey: .cacheKey)
        buildId = try container.decode(String.self, forKey: .buildId)
        url = try container.decode(String.self, forKey: .url)
        urlConfig = try container.decode(URLConfig.self, forKey: .urlConfig)
        paywalljsEvent = try container.decode(String.self, forKey: .paywalljsEvent)
        presentationStyle = try container.decode(PresentationStyle.self, forKey: .presentationStyleV3)
        presentationDelayMs = try container.decode(Int.self, forKey: .presentationDelay)
        backgroundColorHex = try container.decode(String.self, forKey: .backgroundColorHex)
        darkBackgroundColorHex = try container.decodeIfPresent(String.self, forKey: .darkBackgroundColorHex)
        products = try container.decodeLossyArray(Product.self, forKey: .productsV2, log: log)
        featureGating = try container.decodeEnum(FeatureGating.self, forKey: .featureGating, unknownAs: .nonGated)
        onDeviceCacheEnabled = try container.decodeIfPresent(String.self, forKey: .onDeviceCache) == "ENABLED"
        localNotifications = try container.decodeLossyArray(
            LocalNotification.self,
            forKey: .localNotifications,
            log: log
        )
        computedProperties = try container.decodeLossyArray(
            ComputedPropertyRequest.self,
            forKey: .computedProperties,
            log: log
        )
        surveys = try container.decodeLossyArray(Survey.self, forKey: .surveys, log: log)
        isScrollEnabled = try container.decodeIfPresent(Bool.self, forKey: .isScrollEnabled) ?? true
        introductoryOfferEligibility = try container.decodeEnum(
            IntroductoryOfferEligibility.self,
            forKey: .introductoryOfferEligibility,
            unknownAs: .automatic
        )
    }
}

extension Paywall.URLConfig: Decodable {
    enum Keys: String, ConfigObjectKeys {
        static let nameSet = MemberNameSet(names)
        case endpoints
        case maxAttempts = "max_attempts"
    }

    public init(from decoder: any Decoder) throws {
        decoder.noteIgnoredMembers(besides: Keys.self)
        let container = try decoder.container(keyedBy: Keys.self)
        endpoints = try container.decodeArray(Endpoint.self, forKey: .endpoints)
        maxAttempts = try container.decode(Int.self, forKey: .maxAttempts)
    }
}

extension Paywall.URLConfig.Endpoint: Decodable {
    enum Keys: String, ConfigObjectKeys {
        static let nameSet = MemberNameSet(names)
        case url
        case timeoutMs = "timeout_ms"
        case percentage
    }

    public init(from decoder: any Decoder) throws {
        decoder.noteIgnoredMembers(besides: Keys.self)
        let container = try decoder.container(keyedBy: Keys.self)
        url = try container.decode(String.self, forKey: .url)
        timeoutMs = try container.decode(Int.self, forKey: .timeoutMs)
        percentage = try container.decode(Int.self, forKey: .percentage)
    }
}

extension PresentationStyle: Decodable {
    enum Keys: String, ConfigObjectKeys {
        static let nameSet = MemberNameSet(names)
        case type, height, width
        case cornerRadius = "corner_radius"
    }

    /// An unknown type is FULLSCREEN; a drawer needs a height and a corner radius, a popup a
    /// height, a width and a corner radius.
    public init(from decoder: any Decoder) throws {
        decoder.noteIgnoredMembers(besides: Keys.self)
        let container = try decoder.container(keyedBy: Keys.self)
        kind = try container.decodeEnum(Kind.self, forKey: .type, unknownAs: .fullscreen)
        switch kind {
        case .drawer:
            height = try container.decode(Double.self, forKey: .height)
            cornerRadius = try container.decode(Double.self, forKey: .cornerRadius)
            width = nil
        case .popup:
            height = try container.decode(Double.self, forKey: .height)
            width = try container.decode(Double.self, forKey: .width)
            cornerRadius = try container.decode(Double.self, forKey: .cornerRadius)
        default:
            height = nil
            width = nil
            cornerRadius = nil
        }
    }
}

extension LocalNotification: Decodable {
    enum Keys: String, ConfigObjectKeys {
        static let nameSet = MemberNameSet(names)
        case type = "notification_type"
        case title, subtitle, body, delay
    }

    public init(from decoder: any Decoder) throws {
        decoder.noteIgnoredMembers(besides: Keys.self)
        let container = try decoder.container(keyedBy: Keys.self)
        let type = try container.decode(String.self, forKey: .type)
        guard type == "TRIAL_STARTED" else {
            throw DecodingError.dataCorruptedError(
                forKey: .type,
                in: container,
                debugDescription: "unsupported notification type \"\(type)\""
            )
        }
        title = try container.decode(String.self, forKey: .title)
        subtitle = try container.decodeIfPresent(String.self, forKey: .subtitle)
        body = try container.decode(String.self, forKey: .body)
        delayMs = try container.decode(Int.self, forKey: .delay)
    }
}

extension Product: Decodable {
    enum Keys: String, ConfigObjectKeys {
        static let nameSet = MemberNameSet(names)
        case referenceName = "reference_name"
        case storeProduct = "store_product"
        case compositeId = "sw_composite_product_id"
        case entitlements
    }

    public init(from decoder: any Decoder) throws {
        decoder.noteIgnoredMembers(besides: Keys.self)
        let container = try decoder.container(keyedBy: Keys.self)
        referenceName = try container.decodeIfPresent(String.self, forKey: .referenceName)
        storeProduct = try container.decode(StoreProduct.self, forKey: .storeProduct)
        compositeId = try container.decodeIfPresent(String.self, forKey: .compositeId)
        entitlements = try container.decodeArray(Entitlement.self, forKey: .entitlements)
        storeDetails = nil
    }
}

extension StoreProduct: Decodable {
    enum Keys: String, ConfigObjectKeys {
        static let nameSet = MemberNameSet(names)
        /// Sent by the Superwall API, read by neither SuperwallKit nor the bridge.
        static let unread = ["environment"]

        case store
        case productIdentifier = "product_identifier"
        case billingPlanType = "billing_plan_type"
        case trialDays = "trial_days"
        case basePlanIdentifier = "base_plan_identifier"
        case offer
    }

    /// App Store, Stripe, Paddle and custom products, and Google Play products when the config is
    /// read by Superwall-Android's rules (`ReferenceSDK`); any other fails, which drops the product.
    public init(from decoder: any Decoder) throws {
        decoder.noteIgnoredMembers(besides: Keys.self)
        let container = try decoder.container(keyedBy: Keys.self)
        let store = try container.decode(String.self, forKey: .store)
        let identifier = try container.decode(String.self, forKey: .productIdentifier)
        switch store {
        case "APP_STORE":
            self = .appStore(
                productIdentifier: identifier,
                billingPlanType: try container.decodeIfPresent(String.self, forKey: .billingPlanType)
            )
        case "STRIPE":
            self = .stripe(
                productIdentifier: identifier,
                trialDays: try container.decodeIfPresent(Int.self, forKey: .trialDays)
            )
        case "PADDLE":
            self = .paddle(productIdentifier: identifier)
        case "CUSTOM":
            self = .custom(productIdentifier: identifier)
        case "PLAY_STORE":
            guard ReferenceSDK.of(decoder) == .superwallAndroid else {
                throw DecodingError.dataCorruptedError(
                    forKey: .store,
                    in: container,
                    debugDescription:
                        "a Google Play product, which SuperwallKit leaves out (a session whose device.platform is Android keeps it)"
                )
            }
            self = .playStore(
                productIdentifier: identifier,
                basePlanIdentifier: try container.decodeIfPresent(String.self, forKey: .basePlanIdentifier) ?? "",
                offer: try container.decodeIfPresent(PlayOffer.self, forKey: .offer) ?? .noOffer
            )
        default:
            throw DecodingError.dataCorruptedError(
                forKey: .store,
                in: container,
                debugDescription: "unsupported store \"\(store)\""
            )
        }
    }
}

extension PlayOffer: Decodable {
    enum Keys: String, ConfigObjectKeys {
        static let nameSet = MemberNameSet(names)

        case type
        case offerIdentifier = "offer_identifier"
    }

    /// Superwall-Android's reading: `AUTOMATIC`, `NO_OFFER`, or `SPECIFIED` with its
    /// `offer_identifier` (without one the product does not decode); any other type is no offer.
    public init(from decoder: any Decoder) throws {
        decoder.noteIgnoredMembers(besides: Keys.self)
        let container = try decoder.container(keyedBy: Keys.self)
        switch try container.decodeIfPresent(String.self, forKey: .type) {
        case "AUTOMATIC": self = .automatic
        case "SPECIFIED": self = .specified(try container.decode(String.self, forKey: .offerIdentifier))
        default: self = .noOffer
        }
    }
}
