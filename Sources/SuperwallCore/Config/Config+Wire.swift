import Foundation
import JSONText
import Rules

// The static-config wire format: snake_case keys, SCREAMING_SNAKE enum values. Each type
// decodes with SuperwallKit's rules, noted where they are not plain.

/// Every member of the config but its three large arrays, which `Config.decode` decodes
/// element by element.
struct ConfigHeader: Decodable {
    var buildId: String
    var logLevel: Int
    var appSessionTimeoutMs: Int
    var featureFlags: FeatureFlags
    var preloadingDisabled: PreloadingDisabled
    var locales: [String]
    var attribution: AttributionOptions?
    var web2appConfig: Web2AppConfig?
    var prioritizedCampaignId: String?
    var iosAppId: String?
    var bundleIdConfig: String?
    var testModeUserIds: [TestModeUserId]
    var requestId: String?

    enum Keys: String, ConfigObjectKeys {
        static let nameSet = MemberNameSet(names)
        /// The large arrays, read on their own (`ConfigReader`); what the Superwall API sends
        /// that neither SuperwallKit nor the bridge reads; and `$schema`, an editor's pointer to
        /// protocol/config.schema.json.
        static let unread = [
            "trigger_options", "paywall_responses", "products_v3", "paywalls", "postback", "product_identifier_groups",
            "tests", "ts", "$schema",
        ]
        case buildId = "build_id"
        case logLevel = "log_level"
        case appSessionTimeoutMs = "app_session_timeout_ms"
        case toggles
        case disablePreload = "disable_preload"
        case localization
        case attributionOptions = "attribution_options"
        case web2appConfig = "web2app_config"
        case prioritizedCampaignId = "prioritized_campaign_id"
        case iosAppId = "ios_app_id"
        case bundleIdConfig = "bundle_id_config"
        case testModeUserIds = "test_mode_user_ids"
        case requestId = "request_id"
    }

    /// Only the build id: SuperwallKit checks it before anything else.
    struct BuildId: Decodable {
        var build_id: String
    }

    private struct Toggle: Decodable {
        var key: String
        var enabled: Bool
    }

    private struct Localization: Decodable {
        struct Locale: Decodable { var locale: String }
        var locales: [Locale]
    }

    init(from decoder: any Decoder) throws {
        decoder.noteIgnoredMembers(besides: Keys.self)
        let container = try decoder.container(keyedBy: Keys.self)
        buildId = try container.decode(String.self, forKey: .buildId)
        logLevel = try container.decode(Int.self, forKey: .logLevel)
        appSessionTimeoutMs = try container.decode(Int.self, forKey: .appSessionTimeoutMs)
        let toggles = try container.decodeArray(Toggle.self, forKey: .toggles)
        featureFlags = FeatureFlags(
            toggles: Dictionary(toggles.map { ($0.key, $0.enabled) }, uniquingKeysWith: { _, last in last })
        )
        preloadingDisabled = try container.decode(PreloadingDisabled.self, forKey: .disablePreload)
        locales = try container.decode(Localization.self, forKey: .localization).locales.map(\.locale)
        attribution = try container.decodeIfPresent(AttributionOptions.self, forKey: .attributionOptions)
        web2appConfig = try container.decodeIfPresent(Web2AppConfig.self, forKey: .web2appConfig)
        prioritizedCampaignId = try container.decodeIfPresent(String.self, forKey: .prioritizedCampaignId)
        iosAppId = try container.decodeIfPresent(String.self, forKey: .iosAppId)
        bundleIdConfig = try container.decodeIfPresent(String.self, forKey: .bundleIdConfig)
        testModeUserIds = try container.decodeIfPresent([TestModeUserId].self, forKey: .testModeUserIds) ?? []
        requestId = try container.decodeIfPresent(String.self, forKey: .requestId)
    }
}

extension Trigger: Decodable {
    enum Keys: String, ConfigObjectKeys {
        static let nameSet = MemberNameSet(names)
        /// Sent by the Superwall API, read by neither SuperwallKit nor the bridge.
        static let unread = ["trigger_version"]

        case eventName = "event_name"
        case rules
    }

    public init(from decoder: any Decoder) throws {
        decoder.noteIgnoredMembers(besides: Keys.self)
        let container = try decoder.container(keyedBy: Keys.self)
        self.init(
            placementName: try container.decode(String.self, forKey: .eventName),
            audiences: try container.decodeArray(Audience.self, forKey: .rules)
        )
    }
}

extension Audience: Decodable {
    enum Keys: String, ConfigObjectKeys {
        static let nameSet = MemberNameSet(names)
        /// Sent by the Superwall API, read by neither SuperwallKit nor the bridge.
        static let unread = ["expression", "expression_js"]

        case experimentId = "experiment_id"
        case experimentGroupId = "experiment_group_id"
        case variants
        case expressionCel = "expression_cel"
        case occurrence
        case computedProperties = "computed_properties"
        case preload
    }

    /// Only `expression_cel` is read; the legacy `expression` and `expression_js` are ignored.
    public init(from decoder: any Decoder) throws {
        decoder.noteIgnoredMembers(besides: Keys.self)
        let container = try decoder.container(keyedBy: Keys.self)
        experimentId = try container.decode(String.self, forKey: .experimentId)
        unmatchedParameterKey = UnmatchedAudience.parameterKey(for: experimentId)
        experimentGroupId = try container.decode(String.self, forKey: .experimentGroupId)
        variants = try container.decodeArray(Variant.self, forKey: .variants)
        rule = try container.decodeIfPresent(String.self, forKey: .expressionCel).map { Rule($0) }
        occurrence = try container.decodeIfPresent(Occurrence.self, forKey: .occurrence)
        computedProperties = try container.decodeLossyArray(
            ComputedPropertyRequest.self,
            forKey: .computedProperties,
            log: DroppedElementLog.of(decoder)
        )
        preload = try container.decode(Preload.self, forKey: .preload)
    }
}

extension Occurrence: Decodable {
    enum Keys: String, ConfigObjectKeys {
        static let nameSet = MemberNameSet(names)
        case key
        case maxCount = "max_count"
        case interval
    }

    enum IntervalKeys: String, ConfigObjectKeys {
        static let nameSet = MemberNameSet(names)
        case type, minutes
    }

    /// An unknown interval type, or `MINUTES` without `minutes`, is `INFINITY`.
    public init(from decoder: any Decoder) throws {
        decoder.noteIgnoredMembers(besides: Keys.self)
        let container = try decoder.container(keyedBy: Keys.self)
        key = try container.decode(String.self, forKey: .key)
        maxCount = try container.decode(Int.self, forKey: .maxCount)
        try container.superDecoder(forKey: .interval).noteIgnoredMembers(besides: IntervalKeys.self)
        let interval = try container.nestedContainer(keyedBy: IntervalKeys.self, forKey: .interval)
        let type = try interval.decode(String.self, forKey: .type)
        if type == "MINUTES", let minutes = try interval.decodeIfPresent(Int.self, forKey: .minutes) {
            self.interval = .minutes(minutes)
        } else {
            self.interval = .infinity
        }
    }
}

extension ComputedPropertyRequest: Decodable {
    enum Keys: String, ConfigObjectKeys {
        static let nameSet = MemberNameSet(names)
        case type
        case eventName = "event_name"
    }

    public init(from decoder: any Decoder) throws {
        decoder.noteIgnoredMembers(besides: Keys.self)
        let container = try decoder.container(keyedBy: Keys.self)
        kind = try container.decodeEnum(Kind.self, forKey: .type)
        placementName = try container.decode(String.self, forKey: .eventName)
    }
}

extension Preload: Decodable {
    enum Keys: String, ConfigObjectKeys {
        static let nameSet = MemberNameSet(names)
        case behavior
        case requiresReEvaluation = "requires_re_evaluation"
    }

    public init(from decoder: any Decoder) throws {
        decoder.noteIgnoredMembers(besides: Keys.self)
        let container = try decoder.container(keyedBy: Keys.self)
        let declared = try container.decodeEnum(Behavior.self, forKey: .behavior)
        let reEvaluate = try container.decodeIfPresent(Bool.self, forKey: .requiresReEvaluation) ?? false
        behavior = reEvaluate ? .always : declared
    }
}

extension Variant: Decodable {
    enum Keys: String, ConfigObjectKeys {
        static let nameSet = MemberNameSet(names)
        case variantId = "variant_id"
        case variantType = "variant_type"
        case percentage
        case paywallIdentifier = "paywall_identifier"
    }

    public init(from decoder: any Decoder) throws {
        decoder.noteIgnoredMembers(besides: Keys.self)
        let container = try decoder.container(keyedBy: Keys.self)
        id = try container.decode(String.self, forKey: .variantId)
        kind = try container.decodeEnum(Kind.self, forKey: .variantType, unknownAs: .treatment)
        percentage = try container.decode(Int.self, forKey: .percentage)
        paywallIdentifier = try container.decodeIfPresent(String.self, forKey: .paywallIdentifier)
    }
}

extension PreloadingDisabled: Decodable {
    enum Keys: String, ConfigObjectKeys {
        static let nameSet = MemberNameSet(names)
        case all, triggers
    }

    public init(from decoder: any Decoder) throws {
        decoder.noteIgnoredMembers(besides: Keys.self)
        let container = try decoder.container(keyedBy: Keys.self)
        all = try container.decode(Bool.self, forKey: .all)
        placements = try container.decodeArray(String.self, forKey: .triggers)
    }
}

extension AttributionOptions: Decodable {
    enum Keys: String, ConfigObjectKeys {
        static let nameSet = MemberNameSet(names)
        case appleSearchAds = "apple_search_ads"
    }

    private struct Toggle: Decodable { var enabled: Bool }

    public init(from decoder: any Decoder) throws {
        decoder.noteIgnoredMembers(besides: Keys.self)
        let container = try decoder.container(keyedBy: Keys.self)
        appleSearchAdsEnabled = try container.decodeIfPresent(Toggle.self, forKey: .appleSearchAds)?.enabled ?? false
    }
}

extension Web2AppConfig: Decodable {
    enum Keys: String, ConfigObjectKeys {
        static let nameSet = MemberNameSet(names)
        case entitlementsMaxAgeMs = "entitlements_max_age_ms"
        case restoreAccessURL = "restore_access_url"
    }

    public init(from decoder: any Decoder) throws {
        decoder.noteIgnoredMembers(besides: Keys.self)
        let container = try decoder.container(keyedBy: Keys.self)
        entitlementsMaxAgeMs = try container.decode(Int.self, forKey: .entitlementsMaxAgeMs)
        restoreAccessURL = try container.decode(String.self, forKey: .restoreAccessURL)
    }
}

extension TestModeUserId: Decodable {
    enum Keys: String, ConfigObjectKeys {
        static let nameSet = MemberNameSet(names)
        case type, value
    }

    public init(from decoder: any Decoder) throws {
        decoder.noteIgnoredMembers(besides: Keys.self)
        let container = try decoder.container(keyedBy: Keys.self)
        kind = try container.decodeEnum(Kind.self, forKey: .type)
        value = try container.decode(String.self, forKey: .value)
    }
}
