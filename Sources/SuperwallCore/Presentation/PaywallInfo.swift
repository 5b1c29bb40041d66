import Foundation

/// What the app is told about a paywall it is shown (SuperwallKit's `PaywallInfo`).
public struct PaywallInfo: Sendable, Equatable {
    /// The paywall's database id.
    public var databaseId: String
    public var identifier: String
    public var name: String
    public var url: String
    public var cacheKey: String
    public var buildId: String
    public var experiment: Experiment?
    public var products: [Product]
    /// The placement that presented it; nil when presented by `getPaywall` without one.
    public var presentedByPlacementWithName: String?
    /// The placement's event id, lowercased.
    public var presentedByPlacementWithId: String?
    public var presentedByPlacementAt: Date?
    /// `register`, `getPaywall` or `implicit`.
    public var presentationSourceType: String?
    public var isFreeTrialAvailable: Bool
    public var featureGating: Paywall.FeatureGating
    public var closeReason: PaywallCloseReason
    public var localNotifications: [LocalNotification]
    public var computedPropertyRequests: [ComputedPropertyRequest]
    public var surveys: [Survey] = []
    public var presentationStyle: PresentationStyle
    public var presentationDelayMs: Int
    public var isScrollEnabled: Bool
    /// Assigned each time the paywall's response is loaded; stable while it is cached.
    public var presentationId: String
    /// The config's `introductory_offer_eligibility`: `ALWAYS_ELIGIBLE`, `ALWAYS_INELIGIBLE`
    /// or `AUTOMATIC`.
    public var introOfferEligibility = Paywall.IntroductoryOfferEligibility.automatic
    /// The paywall.js version the page's `ping` gave; nil until then.
    public var paywalljsVersion: String?
    public var loadTimes = PaywallLoadTimes()
    /// SuperwallKit's `state`: what the page's `window.app.getAllState()` answered when the
    /// paywall was last dismissed; empty before.
    public var state: [String: JSON] = [:]

    public var productIds: [String] { products.map(\.id) }

    /// `placement` when a placement presented it, else `programmatically`.
    public var presentedBy: String { presentedByPlacementWithName == nil ? "programmatically" : "placement" }

    /// SuperwallKit's `audienceFilterParams()`: the paywall as event and audience params.
    /// Products are named by index (`primary_product_id`, ...) and by reference name.
    var audienceFilterParameters: [String: JSON] {
        var parameters: [String: JSON] = [
            "paywall_id": .string(databaseId), "paywall_name": .string(name),
            "presented_by_event_name": presentedByPlacementWithName.map(JSON.string) ?? .null,
            "paywall_product_ids": .string(productIds.joined(separator: ",")),
            "is_free_trial_available": .bool(isFreeTrialAvailable), "feature_gating": .string(featureGating.rawValue),
            "presented_by": .string(presentedBy),
        ]
        for (index, name) in ["primary", "secondary", "tertiary"].enumerated() {
            parameters["\(name)_product_id"] = .string(index < products.count ? products[index].id : "")
        }
        for product in products {
            if let reference = product.referenceName { parameters["\(reference)_product_id"] = .string(product.id) }
        }
        return parameters
    }

    /// A page's Stripe checkout events' params: the placement's, with the Stripe product.
    func stripeCheckoutParameters(productIdentifier: String) -> [String: JSON] {
        placementParameters.merging(
            ["store": "STRIPE", "product_identifier": .string(productIdentifier), "is_triggered_from_event": false],
            uniquingKeysWith: { _, new in new }
        )
    }

    /// SuperwallKit's `placementParams()`: what paywall events carry, beyond the audience
    /// params. A time not (yet) known is an empty string, as SuperwallKit reports one; the
    /// shimmer and the products have none here (the host shows no shimmer, and the store
    /// details come with `configure`).
    var placementParameters: [String: JSON] {
        var parameters = audienceFilterParameters
        var extra: [String: JSON] = [
            "paywalljs_version": .string(paywalljsVersion ?? ""), "paywall_identifier": .string(identifier),
            "paywall_url": .string(url),
            "presented_by_event_id": presentedByPlacementWithId.map(JSON.string) ?? .null,
            "presented_by_event_timestamp": presentedByPlacementAt.map { .string(ISO8601.string(from: $0)) } ?? .null,
            "presentation_source_type": presentationSourceType.map(JSON.string) ?? .null,
            "experiment_id": experiment.map { .string($0.id) } ?? .null,
            "variant_id": experiment.map { .string($0.variant.id) } ?? .null,
            "cache_key": .string(cacheKey), "build_id": .string(buildId), "close_reason": .string(closeReason.rawValue),
            "is_scroll_enabled": .bool(isScrollEnabled), "presentation_id": .string(presentationId),
            "intro_offer_eligibility": .string(introOfferEligibility.rawValue), "app_transaction_id": "",
        ]
        extra.merge(loadTimes.parameters, uniquingKeysWith: { _, time in time })
        parameters.merge(extra, uniquingKeysWith: { _, new in new })
        return parameters
    }
}

/// When a paywall's parts loaded (SuperwallKit's `PaywallInfo` load times): its response, from
/// the config or the API, and its page, from the host's `paywallWebviewLoad_start` to the
/// page's `ping`.
public struct PaywallLoadTimes: Sendable, Equatable {
    public var responseStart: Date?
    public var responseComplete: Date?
    public var webViewStart: Date?
    public var webViewComplete: Date?

    public init() {}

    var parameters: [String: JSON] {
        func time(_ date: Date?) -> JSON { date.map { .string(ISO8601.string(from: $0)) } ?? "" }
        func duration(_ start: Date?, _ end: Date?) -> JSON {
            guard let start, let end else { return "" }
            return .double(end.timeIntervalSince(start))
        }
        return [
            "paywall_response_load_start_time": time(responseStart),
            "paywall_response_load_complete_time": time(responseComplete),
            "paywall_response_load_duration": duration(responseStart, responseComplete),
            "paywall_webview_load_start_time": time(webViewStart),
            "paywall_webview_load_complete_time": time(webViewComplete),
            "paywall_webview_load_duration": duration(webViewStart, webViewComplete),
            "paywall_products_load_start_time": "", "paywall_products_load_complete_time": "",
            "paywall_products_load_fail_time": "",
            "paywall_products_load_duration": "", "shimmerView_load_start_time": "",
            "shimmerView_load_complete_time": "",
        ]
    }
}

extension PaywallInfo {
    /// What a paywall loaded for `experiment`, presented by `placement`, is, for a user whose
    /// customer info is `customerInfo` (which says whether a free trial is available).
    init(presenting loaded: LoadedPaywall, experiment: Experiment, placement: PlacementData, customerInfo: CustomerInfo)
    {
        let paywall = loaded.paywall
        self.init(
            databaseId: paywall.id,
            identifier: paywall.identifier,
            name: paywall.name,
            url: paywall.url,
            cacheKey: paywall.cacheKey,
            buildId: paywall.buildId,
            experiment: experiment,
            products: paywall.products,
            presentedByPlacementWithName: placement.name,
            presentedByPlacementWithId: placement.id.uuidString.lowercased(),
            presentedByPlacementAt: placement.createdAt,
            presentationSourceType: placement.sourceType,
            isFreeTrialAvailable: FreeTrialEligibility(
                customerInfo: customerInfo
            ).isAvailable(
                on: paywall
            ),
            featureGating: paywall.featureGating,
            closeReason: .none,
            localNotifications: paywall.localNotifications,
            computedPropertyRequests: paywall.computedProperties,
            surveys: paywall.surveys,
            presentationStyle: paywall.presentationStyle,
            presentationDelayMs: paywall.presentationDelayMs,
            isScrollEnabled: paywall.isScrollEnabled,
            presentationId: loaded.presentationId
        )
        introOfferEligibility = paywall.introductoryOfferEligibility
        loadTimes.responseStart = loaded.loadStarted
        loadTimes.responseComplete = loaded.loadCompleted
    }
}
