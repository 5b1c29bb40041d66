import Rules

/// The static configuration of an app, as served by `GET /api/v1/static_config`.
///
/// Field names follow SuperwallKit's `Config`; the wire keys are snake_case (see
/// `Config+Decoding.swift`). Placements are called triggers on the wire.
public struct Config: Sendable, Equatable {
    public var buildId: String
    /// In wire order; when two share a placement name the last one wins (see `trigger(for:)`).
    public var triggers: [Trigger] {
        didSet {
            triggerPositions = Self.positions(of: triggers, by: \.placementName, keeping: .last)
            decodedText.triggers = [:]
        }
    }
    public var paywalls: [Paywall] {
        didSet {
            paywallPositions = Self.positions(of: paywalls, by: \.identifier, keeping: .first)
            decodedText.paywalls = [:]
        }
    }
    /// What the next decode may reuse of this one; forgotten when the elements are changed in code.
    var decodedText = DecodedText()
    /// Where each placement's trigger and each paywall is: every placement and every event
    /// offered to the implicit triggers looks one up, and a config has thousands.
    var triggerPositions: [String: Int] = [:]
    var paywallPositions: [String: Int] = [:]
    public var logLevel: Int
    public var appSessionTimeoutMs: Int
    public var featureFlags: FeatureFlags
    public var preloadingDisabled: PreloadingDisabled
    public var locales: [String]
    public var attribution: AttributionOptions?
    /// The app's product catalogue and each product's entitlements (`products_v3`).
    public var products: [Product]
    public var web2appConfig: Web2AppConfig?
    public var prioritizedCampaignId: String?
    public var iosAppId: String?
    public var bundleIdConfig: String?
    public var testModeUserIds: [TestModeUserId]
    /// Set by the client for each fetch (SuperwallKit sends it as `X-Request-Id`).
    public var requestId: String?
    /// Elements the decoder dropped, as SuperwallKit does, with why; not an error.
    public var droppedElements: [ConfigProblem]
    /// Members no decoder reads, each with the nearest key its object reads (see `IgnoredMembers`).
    public var ignoredMembers: [ConfigProblem] = []

    public func trigger(for placement: String) -> Trigger? {
        triggerPositions[placement].map { triggers[$0] }
    }

    public func paywall(identifier: String) -> Paywall? {
        paywallPositions[identifier].map { paywalls[$0] }
    }

    enum Duplicates { case first, last }

    /// Each element's position by `key`; of elements sharing a key, the first or the last.
    static func positions<Element>(
        of elements: [Element],
        by key: KeyPath<Element, String>,
        keeping kept: Duplicates
    ) -> [String: Int] {
        var positions: [String: Int] = [:]
        positions.reserveCapacity(elements.count)
        for (position, element) in elements.enumerated() where kept == .last || positions[element[keyPath: key]] == nil
        {
            positions[element[keyPath: key]] = position
        }
        return positions
    }
}

/// A Superwall API enum value (`SCREAMING_SNAKE`) in camelCase: `NO_ANIMATION` →
/// `noAnimation`, `APP_STORE` → `appStore`.
public func camelCase(_ wireName: String) -> String {
    let words = wireName.lowercased().split(separator: "_")
    return words.enumerated().map { $0.offset == 0 ? String($0.element) : $0.element.capitalized }.joined()
}

/// A camelCase name in snake_case, as SuperwallKit names product params: `rawPrice` →
/// `raw_price`, `trialPeriodDays` → `trial_period_days`. A run of capitals stays one word
/// (`URLScheme` → `url_scheme`), and a digit after a letter starts a word.
public func snakeCase(_ name: String) -> String {
    var output = ""
    let characters = Array(name)
    for (index, character) in characters.enumerated() {
        if index > 0 {
            let previous = characters[index - 1]
            let next = index + 1 < characters.count ? characters[index + 1] : nil
            let startsWord =
                (character.isUppercase && (previous.isLowercase || (previous.isUppercase && next?.isLowercase == true)))
                || (character.isNumber && previous.isLetter)
            if startsWord { output.append("_") }
        }
        output.append(contentsOf: character.lowercased())
    }
    return output
}

/// A placement and its audiences (`trigger_options[]`).
public struct Trigger: Sendable, Equatable {
    public var placementName: String
    /// Audiences in order: the first that matches wins.
    public var audiences: [Audience] {
        didSet { rulesMayBeSlow = Self.rulesMayBeSlow(audiences) }
    }
    /// Whether a rule calls `matches()` (`rulesMayBeSlow(_:)`): a placement's decision reads
    /// it every time, so it is kept rather than found again.
    private(set) var rulesMayBeSlow: Bool
    /// The audience rules' last answers (not part of the trigger's value).
    let memo = AudienceMemo()

    public init(placementName: String, audiences: [Audience]) {
        self.placementName = placementName
        self.audiences = audiences
        rulesMayBeSlow = Self.rulesMayBeSlow(audiences)
    }

    public static func == (lhs: Trigger, rhs: Trigger) -> Bool {
        lhs.placementName == rhs.placementName && lhs.audiences == rhs.audiences
    }
}

/// One audience of a placement (a "rule" on the wire).
public struct Audience: Sendable, Equatable {
    public var experimentId: String {
        didSet { unmatchedParameterKey = UnmatchedAudience.parameterKey(for: experimentId) }
    }
    /// `trigger_fire`'s key for this audience when it does not match.
    var unmatchedParameterKey: String
    /// The campaign this audience belongs to.
    public var experimentGroupId: String
    /// Superscript CEL; nil matches everyone (occurrence limits still apply).
    public var expression: String? { rule?.source }
    let rule: Rule?
    public var occurrence: Occurrence?
    public var computedProperties: [ComputedPropertyRequest]
    public var preload: Preload
    public var variants: [Variant]

    public init(
        experimentId: String,
        experimentGroupId: String,
        expression: String?,
        occurrence: Occurrence?,
        computedProperties: [ComputedPropertyRequest],
        preload: Preload,
        variants: [Variant]
    ) {
        self.experimentId = experimentId
        unmatchedParameterKey = UnmatchedAudience.parameterKey(for: experimentId)
        self.experimentGroupId = experimentGroupId
        rule = expression.map { Rule($0) }
        self.occurrence = occurrence
        self.computedProperties = computedProperties
        self.preload = preload
        self.variants = variants
    }
}

public struct Occurrence: Sendable, Equatable {
    public enum Interval: Sendable, Equatable {
        case minutes(Int)
        case infinity
    }

    public var key: String
    public var maxCount: Int
    public var interval: Interval

    public init(key: String, maxCount: Int, interval: Interval) {
        self.key = key
        self.maxCount = maxCount
        self.interval = interval
    }
}

public struct ComputedPropertyRequest: Sendable, Equatable {
    public enum Kind: String, Sendable, CaseIterable {
        case minutesSince = "MINUTES_SINCE"
        case hoursSince = "HOURS_SINCE"
        case daysSince = "DAYS_SINCE"
        case monthsSince = "MONTHS_SINCE"
        case yearsSince = "YEARS_SINCE"
        case placementsInHour = "PLACEMENTS_IN_HOUR"
        case placementsInDay = "PLACEMENTS_IN_DAY"
        case placementsInWeek = "PLACEMENTS_IN_WEEK"
        case placementsInMonth = "PLACEMENTS_IN_MONTH"
        case placementsSinceInstall = "PLACEMENTS_SINCE_INSTALL"

        /// The name of the matching host function and device key prefix: the wire name in
        /// camelCase (`DAYS_SINCE` → `daysSince`).
        public var functionName: String { camelCase(rawValue) }
    }

    public var kind: Kind
    public var placementName: String

    public init(kind: Kind, placementName: String) {
        self.kind = kind
        self.placementName = placementName
    }
}

public struct Preload: Sendable, Equatable {
    public enum Behavior: String, Sendable {
        case ifTrue = "IF_TRUE"
        case always = "ALWAYS"
        case never = "NEVER"
    }

    /// `ALWAYS` whenever the wire says `requires_re_evaluation`, as SuperwallKit decodes it.
    public var behavior: Behavior

    public init(behavior: Behavior) {
        self.behavior = behavior
    }
}

public struct Variant: Sendable, Equatable {
    public enum Kind: String, Sendable {
        case treatment = "TREATMENT"
        case holdout = "HOLDOUT"
    }

    public var id: String
    /// Unknown kinds decode as treatment, as in SuperwallKit.
    public var kind: Kind
    /// 0–100; weights, which need not sum to 100.
    public var percentage: Int
    /// Absent for holdouts.
    public var paywallIdentifier: String?

    public init(id: String, kind: Kind, percentage: Int, paywallIdentifier: String?) {
        self.id = id
        self.kind = kind
        self.percentage = percentage
        self.paywallIdentifier = paywallIdentifier
    }
}

public struct FeatureFlags: Sendable, Equatable {
    /// Every toggle as sent, known or not.
    public var toggles: [String: Bool]

    public init(toggles: [String: Bool] = [:]) {
        self.toggles = toggles
    }

    public func isEnabled(_ key: String) -> Bool { toggles[key] ?? false }

    public var enableExpressionParams: Bool { isEnabled("enable_expression_params") }
    public var enableUserIdSeed: Bool { isEnabled("enable_userid_seed") }
    public var disableVerboseEvents: Bool { isEnabled("disable_verbose_events") }
    public var enableConfigRefreshV2: Bool { isEnabled("enable_config_refresh_v2") }
}

public struct PreloadingDisabled: Sendable, Equatable {
    public var all: Bool
    public var placements: [String]

    public init(all: Bool, placements: [String]) {
        self.all = all
        self.placements = placements
    }
}

public struct AttributionOptions: Sendable, Equatable {
    public var appleSearchAdsEnabled: Bool

    public init(appleSearchAdsEnabled: Bool) {
        self.appleSearchAdsEnabled = appleSearchAdsEnabled
    }
}

public struct Web2AppConfig: Sendable, Equatable {
    public var entitlementsMaxAgeMs: Int
    public var restoreAccessURL: String

    public init(entitlementsMaxAgeMs: Int, restoreAccessURL: String) {
        self.entitlementsMaxAgeMs = entitlementsMaxAgeMs
        self.restoreAccessURL = restoreAccessURL
    }
}

public struct TestModeUserId: Sendable, Equatable {
    public enum Kind: String, Sendable {
        case userId
        case aliasId
    }

    public var kind: Kind
    public var value: String

    public init(kind: Kind, value: String) {
        self.kind = kind
        self.value = value
    }
}

extension Config {
    /// The products' entitlements by product id and store identifier alike
    /// (`ConfigLogic.extractEntitlements`), duplicates not yet merged.
    var entitlementsByProductId: [String: [Entitlement]] {
        var map: [String: [Entitlement]] = [:]
        for product in products {
            map[product.id, default: []] += product.entitlements
            if product.storeProduct.productIdentifier != product.id {
                map[product.storeProduct.productIdentifier, default: []] += product.entitlements
            }
        }
        return map
    }

    /// Every entitlement the config's products grant, in the order first met.
    var entitlementIds: [String] {
        var seen = Set<String>()
        return products.flatMap(\.entitlements).map(\.id).filter { seen.insert($0).inserted }
    }

    /// SuperwallKit's `ConfigLogic.getStaticPaywall` turned around: the locale to fetch a
    /// paywall in, or nil to take the config's. The device locale when the config lists it;
    /// else its language, when the config lists that and it is not English. The device's
    /// locale is read only when the config lists any.
    func paywallLocale(forDevice deviceLocale: () -> String?) -> String? {
        guard !locales.isEmpty, let deviceLocale = deviceLocale() else { return nil }
        if locales.contains(deviceLocale) { return deviceLocale }
        let language = String(deviceLocale.prefix { $0 != "_" && $0 != "-" })
        return language != "en" && locales.contains(language) ? language : nil
    }
}
