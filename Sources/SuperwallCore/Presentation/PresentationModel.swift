import Executors
import Foundation

/// Which pipeline runs (SuperwallKit's `PresentationRequestType`): what it confirms, which
/// events it tracks, and how far it goes.
enum PipelineKind: Sendable {
    /// `register` and implicit triggers: as far as showing the paywall.
    case presentation
    /// `getPaywall`: the host shows the paywall itself.
    case getPaywall
    case getPresentationResult
    /// Whether an implicit trigger would present (`handleImplicitTrigger`).
    case implicitCheck
    /// Whether closing a paywall would present a `paywall_decline` paywall; confirms nothing.
    case declineCheck
    case confirmAll

    var confirmsAssignments: Bool { self != .declineCheck }

    /// Whether a no-match or holdout is tracked (`trigger_fire`) and its occurrence counted.
    /// SuperwallKit's `confirmAllAssignments` only confirms: it never reaches the steps that do.
    var firesTriggers: Bool { confirmsAssignments && self != .confirmAll }

    /// The ones whose outcomes are reported by `paywallPresentationRequest` events.
    var tracksOutcome: Bool { self == .presentation || self == .getPaywall }

    /// Whether its decisions are recorded: not those of the kinds that only check.
    var isRecorded: Bool {
        switch self {
        case .presentation, .getPaywall, .getPresentationResult: true
        case .implicitCheck, .declineCheck, .confirmAll: false
        }
    }

    /// The call a decision record names (`PresentationDecision.call`); nil for the kinds that
    /// only check, whose decisions are not kept.
    func recordedCall(sourceType: String?) -> String? {
        switch self {
        case .presentation: sourceType ?? "register"
        case .getPaywall: "getPaywall"
        case .getPresentationResult: "getPresentationResult"
        case .implicitCheck, .declineCheck, .confirmAll: nil
        }
    }

    /// `paywallPresentationRequest`'s `pipeline_type`.
    var wireName: String {
        switch self {
        case .presentation: "presentation"
        case .getPaywall: "getPaywallViewController"
        case .getPresentationResult: "getPresentationResult"
        case .implicitCheck, .declineCheck: "getImplicitPresentationResult"
        case .confirmAll: "confirmAllAssignments"
        }
    }
}

/// The placement a pipeline evaluates: a tracked event, or one only made up for a check.
struct PlacementData: Sendable {
    var name: String
    var id: UUID
    var createdAt: Date
    /// The params as audience rules see them (`$`-prefixed SDK params included).
    var params: [String: JSON]
    /// `register`, `getPaywall` or `implicit`.
    var sourceType: String?
    /// Set when an implicit trigger presents it.
    var implicitTrigger: ImplicitTrigger?
    /// `getPaywall`'s overrides.
    var overrides: PaywallOverrides?
    /// Where the caller reads the decision, when it may want it (`explain`).
    var decisionReceiver: DecisionReceiver?
    /// When the placement was asked for: its wait for a subscription status counts from here,
    /// so time spent queued behind other placements is part of the bound, not added to it.
    let requestedAt = ContinuousClock.now

    /// `audienceParameters` is the event's, when the caller has them already.
    init(
        _ event: TrackedEvent,
        audienceParameters: [String: JSON]? = nil,
        sourceType: String?,
        implicitTrigger: ImplicitTrigger? = nil
    ) {
        name = event.name
        id = event.id
        createdAt = event.createdAt
        params = audienceParameters ?? event.audienceParameters
        self.sourceType = sourceType
        self.implicitTrigger = implicitTrigger
    }
}

/// Where a pipeline stopped.
///
/// The cases that carry a paywall are boxed (`indirect`): unboxed, every end, a skip's
/// included, was as large as a paywall and its info, copied and cleared through each await.
enum PipelineEnd: Sendable {
    case skipped(PaywallSkipReason)
    case failed(PresentationError)
    /// The pipeline found the paywall; the kinds that stop short of showing it end here.
    indirect case reached(Experiment, PaywallInfo, Paywall, unsavedOccurrence: Occurrence?)
    indirect case presented(PaywallInfo)
    /// `confirmAllAssignments` stops once the assignment is confirmed.
    indirect case confirmed(Experiment)
}

/// One presentation from its start to its final dismissal: the `register` call waiting, and
/// the handler hearing about it. It outlives a paywall that another replaces
/// (`forNextPaywall`).
struct PresentationFlow: Sendable {
    let handler: (any PresentationHandler)?
    let completion = OneShot<PresentationOutcome>()
    /// The gating of the paywall the flow first showed, which a replacement keeps.
    var featureGatingOverride: Paywall.FeatureGating?

    init(handler: (any PresentationHandler)?) {
        self.handler = handler
    }

    /// Reports the ending to the handler (a dismissal was reported as it happened) and
    /// answers whoever waits, with the feature decided.
    func finish(_ ending: PresentationOutcome.Ending) {
        switch ending {
        case .skipped(let reason): handler?.onSkip(reason)
        case .failed(let error): handler?.onError(error)
        case .dismissed: break
        }
        completion.resolve(PresentationOutcome(ending: ending, featureGranted: FeatureGate.isGranted(ending)))
    }
}

/// The paywall on screen.
struct PresentedPaywall: Sendable {
    let id: String
    var info: PaywallInfo
    let paywall: Paywall
    var flow: PresentationFlow
    /// The presenting placement's params as audience rules see them: the page's `params`.
    let placementParams: [String: JSON]
    /// The implicit trigger that showed it, for loop protection.
    let presentedBy: ImplicitTrigger?
    /// Set once the host has shown it.
    var isShown = false
    var isClosing = false
    var page = PageState()
    /// How its survey went, once one was assessed.
    var survey: SurveyPresentation?
}

/// Where a paywall's page is in its protocol.
struct PageState: Sendable {
    /// The paywall.js version its `ping` gave; nil until the first `ping`.
    var paywalljsVersion: String?
    /// `paywall_open` and `paywall_close`, held until the page is ready for them.
    var held: [String] = []
    var loader: PageLoader?
    /// The loading state the host was last asked to show.
    var loadingState = PageLoadingState.loadingURL
}

/// A paywall as loaded for presentation: the presentation id is assigned per load, so it
/// is stable while the paywall stays cached (SuperwallKit's quirk, kept).
struct LoadedPaywall: Sendable {
    var paywall: Paywall
    let presentationId: String
    /// The locale it was fetched in; nil for the config's own.
    var locale: String? = nil
    /// The placements it was loaded for, `""` standing for a preload. SuperwallKit caches a
    /// paywall per request (identifier and placement), so a placement's first load of a
    /// paywall that a preload or another placement loaded still tracks its load events.
    var requestedFor: Set<String> = []
    /// When its response began and finished loading.
    var loadStarted: Date? = nil
    var loadCompleted: Date? = nil
}

/// SuperwallKit's events that may present a paywall without a `register`
/// (`SuperwallEvent.canImplicitlyTriggerPaywall`).
enum ImplicitTrigger: String, Sendable, CaseIterable {
    case appInstall = "app_install"
    case appLaunch = "app_launch"
    case sessionStart = "session_start"
    case deepLinkOpen = "deepLink_open"
    case paywallDecline = "paywall_decline"
    case transactionAbandon = "transaction_abandon"
    case transactionFail = "transaction_fail"
    case surveyResponse = "survey_response"
    case touchesBegan = "touches_began"
    /// A paywall's custom placement, tracked under its own name.
    case customPlacement = "custom_placement"

    /// The trigger of a tracked event by its name. Custom placements carry their own names
    /// and are offered by the action that tracks them.
    init?(eventName: String) {
        guard let trigger = Self.byEventName[eventName] else { return nil }
        self = trigger
    }

    /// Every event is looked up here: one hash, where `init(rawValue:)` compares the names one by one.
    private static let byEventName = Dictionary(
        uniqueKeysWithValues: allCases.filter { $0 != .customPlacement }.map { ($0.rawValue, $0) }
    )

    /// These replace the paywall on screen when they would present one (closing it for the
    /// next paywall), rather than give way to it.
    var replacesOpenPaywall: Bool {
        switch self {
        case .transactionAbandon, .transactionFail, .paywallDecline, .customPlacement, .surveyResponse: true
        default: false
        }
    }

    /// A paywall these presented is never replaced by another implicit trigger, so a decline
    /// paywall cannot chain into itself. Closing such a paywall closes it; closing any other
    /// lets a `paywall_decline` paywall replace it. SuperwallKit decides both by the name of
    /// the placement that presented the paywall: a custom placement's is its own name, so a
    /// paywall it presented is not protected.
    var isLoopProtected: Bool {
        switch self {
        case .transactionAbandon, .transactionFail, .paywallDecline: true
        default: false
        }
    }
}

/// The names of SuperwallKit's own events, which an app may not register as placements
/// (`TrackingLogic.checkNotSuperwallEvent`).
enum SuperwallEventNames {
    static let all: Set<String> = [
        "first_seen", "app_open", "app_launch", "app_close", "app_install", "session_start", "identity_alias", "reset",
        "touches_began", "survey_close", "survey_response", "confirm_all_assignments", "testModeModal_open",
        "testModeModal_close",
        "user_attributes", "device_attributes", "config_attributes", "config_refresh", "config_fail",
        "subscriptionStatus_didChange", "customerInfo_didChange", "trigger_fire", "paywallPresentationRequest",
        "paywall_open", "paywall_close", "paywall_decline", "paywall_page_view",
        "transaction_start", "transaction_abandon", "transaction_timeout", "transaction_complete", "transaction_fail",
        "transaction_restore", "subscription_start", "freeTrial_start", "nonRecurringProduct_purchase",
        "restore_start", "restore_complete", "restore_fail", "custom_placement", "deepLink_open",
        "paywallResponseLoad_start", "paywallResponseLoad_notFound", "paywallResponseLoad_fail",
        "paywallResponseLoad_complete",
        "paywallProductsLoad_start", "paywallProductsLoad_fail", "paywallProductsLoad_complete",
        "paywallProductsLoad_retry",
        "paywallProductsLoad_missingProducts",
        "paywallWebviewLoad_start", "paywallWebviewLoad_fail", "paywallWebviewLoad_complete",
        "paywallWebviewLoad_timeout",
        "paywallWebviewLoad_fallback", "paywallWebviewLoad_processTerminated", "paywallPreload_start",
        "paywallPreload_complete",
        "redemption_start", "redemption_complete", "redemption_fail", "enrichment_start", "enrichment_complete",
        "enrichment_fail",
        "permission_requested", "permission_granted", "permission_denied",
        "stripeCheckout_start", "stripeCheckout_submit", "stripeCheckout_complete", "stripeCheckout_fail",
        "review_requested", "networkDecoding_fail", "shimmerView_start", "shimmerView_complete",
        "adServicesTokenRequest_start", "adServicesTokenRequest_fail", "adServicesTokenRequest_complete",
        "integration_attributes", "attribution_match",
    ]

    /// SuperwallKit's case names (`SuperwallEvent.paywallOpen`), which the wrappers' events carry
    /// (`paywallOpen`, `deepLink`, `subscriptionStatusDidChange`), by raw name: the raw name in
    /// camel case, but for the two SuperwallKit names otherwise.
    static let caseNames: [String: String] = Dictionary(
        uniqueKeysWithValues: all.map { name in
            switch name {
            case "deepLink_open": (name, "deepLink")
            case "paywallWebviewLoad_processTerminated": (name, "paywallWebviewProcessTerminated")
            default: (name, camelCased(name))
            }
        }
    )

    /// `paywallResponseLoad_start` → `paywallResponseLoadStart`, `first_seen` → `firstSeen`.
    private static func camelCased(_ name: String) -> String {
        let words = name.split(separator: "_")
        return words.enumerated().map { index, word in
            index == 0 ? String(word) : word.prefix(1).uppercased() + word.dropFirst()
        }.joined()
    }
}

extension PaywallSkipReason {
    /// `paywallPresentationRequest`'s `status_reason`.
    var statusReason: String {
        switch self {
        case .holdout: "holdout"
        case .noAudienceMatch: "no_rule_match"
        case .placementNotFound: "event_not_found"
        }
    }
}

/// An event as last tracked, to be tracked again as it is (its params shared, not rebuilt;
/// their audience JSON text reused) when what decided its params, `key`, and the app session are the
/// same: a placement registered again with the same params, and, when it is skipped again for
/// the same reasons, the same `trigger_fire` (twenty-three keys for twenty unmatched
/// audiences) and `paywallPresentationRequest`.
struct RepeatedEvent<Key: Equatable & Sendable>: Sendable {
    let key: Key
    /// With `app_session_id`.
    let parameters: [String: JSON]
    /// `parameters`' `app_session_id`, read once: each repeat compares it.
    let appSessionId: String
    let audienceJSON: [UInt8]
    /// What the events that repeat this one share.
    let shared = SharedParameters()
    /// The params as audience rules read them, once the caller has needed them.
    var audienceParameters: [String: JSON]?

    init(key: Key, parameters: [String: JSON], audienceJSON: [UInt8]) {
        self.key = key
        self.parameters = parameters
        appSessionId = parameters["app_session_id"]?.stringValue ?? ""
        self.audienceJSON = audienceJSON
    }

    func matches(_ key: Key, appSessionId: String) -> Bool {
        self.key == key && self.appSessionId == appSessionId
    }
}

/// What decides a skip's `trigger_fire` params.
struct UnmatchedPlacement: Equatable, Sendable {
    let placement: String
    let unmatched: [UnmatchedAudience]

    /// Compared on every skipped call, audience by audience in place, field by field (the
    /// fields `UnmatchedAudience`'s `==` compares): `Array`'s `==`, or the audiences' own
    /// called per element, copies each audience out first, 4.2k instructions a call, not 0.4k.
    static func == (lhs: Self, rhs: Self) -> Bool {
        guard lhs.placement == rhs.placement, lhs.unmatched.count == rhs.unmatched.count else { return false }
        return lhs.unmatched.withUnsafeBufferPointer { left in
            rhs.unmatched.withUnsafeBufferPointer { right in
                left.indices.allSatisfy {
                    left[$0].source == right[$0].source && left[$0].experimentId == right[$0].experimentId
                }
            }
        }
    }
}

/// What decides a registered placement's params.
struct RegisteredPlacement: Equatable, Sendable {
    let name: String
    let params: [String: JSON]
    let hasFeature: Bool
}
