import Foundation

/// Why a placement showed no paywall, though nothing went wrong (SuperwallKit's
/// `PaywallSkippedReason`). A skip always grants the feature.
public enum PaywallSkipReason: Sendable, Equatable {
    /// The user is in the experiment's holdout group.
    case holdout(Experiment)
    /// No audience of the placement matched.
    case noAudienceMatch
    /// The config has no campaign for the placement.
    case placementNotFound
}

/// How a paywall session ended for the user (SuperwallKit's `PaywallResult`).
public enum PaywallResult: Sendable, Equatable {
    case purchased(productId: String)
    case declined
    case restored
}

/// Why a paywall closed (SuperwallKit's `PaywallCloseReason`).
public enum PaywallCloseReason: String, Sendable {
    /// The SDK closed it: after a purchase or restore, a deep link, or `dismiss`.
    case systemLogic
    /// Another paywall replaces it; the presentation's outcome is the next paywall's.
    case forNextPaywall
    case webViewFailedToLoad
    /// The user closed it.
    case manualClose
    case none

    /// The app's `dismiss`: `systemLogic`, or `forNextPaywall` for Android's `dismissForNextPaywall()`.
    static func appDismissal(_ forNextPaywall: Bool) -> PaywallCloseReason {
        forNextPaywall ? .forNextPaywall : .systemLogic
    }
}

/// What `getPresentationResult` answers (SuperwallKit's `PresentationResult`).
public enum PresentationResult: Sendable, Equatable {
    case placementNotFound
    case noAudienceMatch
    case paywall(Experiment)
    case holdout(Experiment)
    /// The paywall could not be had: an error of the pipeline, mapped.
    case paywallNotAvailable
}

/// An audience that did not match, and what stopped it (`trigger_fire`'s
/// `unmatched_audience_<experimentId>`).
public struct UnmatchedAudience: Sendable, Equatable {
    public enum Source: String, Sendable {
        /// The rule was not exactly `true`, or could not be evaluated.
        case expression = "EXPRESSION"
        /// The rule matched but the occurrence limit was reached.
        case occurrence = "OCCURRENCE"
    }

    public var source: Source
    public var experimentId: String {
        didSet { parameterKey = Self.parameterKey(for: experimentId) }
    }
    /// `trigger_fire`'s key for it, `unmatched_audience_<experimentId>`: written once per
    /// audience when the config is read, not on every placement.
    private(set) var parameterKey: String

    public init(source: Source, experimentId: String) {
        self.source = source
        self.experimentId = experimentId
        parameterKey = Self.parameterKey(for: experimentId)
    }

    /// With the key the audience already holds.
    init(source: Source, experimentId: String, parameterKey: String) {
        self.source = source
        self.experimentId = experimentId
        self.parameterKey = parameterKey
    }

    static func parameterKey(for experimentId: String) -> String { "unmatched_audience_" + experimentId }

    /// The key follows from the experiment, so it is not compared: `trigger_fire` compares
    /// every audience of a skipped placement with the last skip's, on every call.
    public static func == (lhs: Self, rhs: Self) -> Bool {
        lhs.source == rhs.source && lhs.experimentId == rhs.experimentId
    }
}

/// A placement evaluated against its audiences and the user's assignments (SuperwallKit's
/// `TriggerResult`).
public enum TriggerResult: Sendable, Equatable {
    case placementNotFound
    case noAudienceMatch([UnmatchedAudience])
    case paywall(Experiment)
    case holdout(Experiment)
    /// An audience matched but the user has no assignment for its experiment.
    case noAssignment(experimentId: String)
}

/// A presentation that failed, with SuperwallKit's error numbers (`SWKPresentationError`,
/// `SWKPaywallNotFound`). Errors never grant the feature.
public struct PresentationError: Error, Sendable, Equatable, CustomStringConvertible {
    public enum Code: Int, Sendable {
        case debuggerPresented = 101
        case paywallAlreadyPresented = 102
        case noPresenter = 103
        case noConfig = 104
        case subscriptionStatusTimeout = 105
        case webviewFailed = 106
        case paywallFailedToLoad = 107
        case paywallNotFound = 404

        /// The stable `data.kind` of the protocol's error.
        public var kind: String {
            switch self {
            case .debuggerPresented: "debuggerPresented"
            case .paywallAlreadyPresented: "paywallAlreadyPresented"
            case .noPresenter: "noPresenter"
            case .noConfig: "noConfig"
            case .subscriptionStatusTimeout: "subscriptionStatusTimeout"
            case .webviewFailed: "webviewFailed"
            case .paywallFailedToLoad: "paywallFailedToLoad"
            case .paywallNotFound: "paywallNotFound"
            }
        }

        /// `paywallPresentationRequest`'s `status_reason` for this error.
        var statusReason: String {
            switch self {
            case .debuggerPresented: "debugger_presented"
            case .paywallAlreadyPresented: "paywall_already_presented"
            case .noPresenter: "no_presenter"
            case .noConfig: "no_config"
            case .subscriptionStatusTimeout: "subscriptionStatus_timeout"
            case .webviewFailed, .paywallFailedToLoad, .paywallNotFound: "no_paywall_view_controller"
            }
        }
    }

    public var code: Code
    public var message: String

    public init(_ code: Code, _ message: String) {
        self.code = code
        self.message = message
    }

    public var description: String { message }

    static let alreadyPresented = PresentationError(
        .paywallAlreadyPresented,
        "Paywall Already Presented: a paywall is already being shown; one is shown at a time."
    )
    static let noPresenter = PresentationError(
        .noPresenter,
        "No Presenter: the client did not declare the paywallPresenter capability, so no paywall can be shown."
    )
    static func noConfig(_ reason: String) -> PresentationError {
        PresentationError(.noConfig, "No Config: the config could not be loaded (\(reason)).")
    }
    static func subscriptionStatusTimeout(after limit: Duration) -> PresentationError {
        PresentationError(
            .subscriptionStatusTimeout,
            "Timeout: the subscription status was not set within \(limit); set it with setSubscriptionStatus before registering placements."
        )
    }
    static func paywallNotFound(_ what: String) -> PresentationError {
        PresentationError(.paywallNotFound, "There isn't a paywall configured to show in this context (\(what)).")
    }
}

/// How a presentation ended, as `register` answers it.
public struct PresentationOutcome: Sendable, Equatable {
    /// `dismissed` is boxed: unboxed, every outcome, a skip's included, was as large as a
    /// paywall's info, copied whole wherever it was passed or awaited.
    public enum Ending: Sendable, Equatable {
        case skipped(PaywallSkipReason)
        indirect case dismissed(PaywallInfo, PaywallResult)
        case failed(PresentationError)
    }

    public var ending: Ending
    /// Whether the gated feature may run, decided by SuperwallKit's rules (`FeatureGate`).
    public var featureGranted: Bool
}

/// SuperwallKit's feature-gating decision (`PublicPresentation.swift`).
public enum FeatureGate {
    /// Skips grant; purchases and restores grant; a decline grants only a non-gated paywall
    /// that was not closed for the next one; errors never grant.
    public static func isGranted(_ ending: PresentationOutcome.Ending) -> Bool {
        switch ending {
        case .skipped: true
        case .failed: false
        case .dismissed(_, .purchased), .dismissed(_, .restored): true
        case .dismissed(let info, .declined): info.featureGating == .nonGated && info.closeReason != .forNextPaywall
        }
    }
}

/// A custom callback a paywall asked for (`request_callback`), and the app's answer.
public struct CustomCallback: Sendable, Equatable {
    public var name: String
    public var variables: [String: JSON]
    public var isBlocking: Bool

    public init(name: String, variables: [String: JSON], isBlocking: Bool) {
        self.name = name
        self.variables = variables
        self.isBlocking = isBlocking
    }
}

public struct CustomCallbackResult: Sendable, Equatable {
    public enum Status: String, Sendable {
        case success, failure
    }

    public var status: Status
    public var data: [String: JSON]?

    public init(status: Status, data: [String: JSON]? = nil) {
        self.status = status
        self.data = data
    }

    public static func failure(_ reason: String) -> CustomCallbackResult {
        CustomCallbackResult(status: .failure, data: ["error": .string(reason)])
    }

    /// `handler`'s answer to `callback`, within `limit`. No handler, a handler that takes no
    /// callbacks, and a deadline passed all answer failure.
    static func asking(
        _ handler: (any PresentationHandler)?,
        _ callback: CustomCallback,
        within limit: Duration
    ) async -> CustomCallbackResult {
        guard let handler, handler.handlesCustomCallbacks else {
            return .failure(
                "No handler takes custom callbacks for this paywall (the client did not declare customCallbacks)."
            )
        }
        return await withDeadline(
            limit,
            fallback: .failure("The custom callback \"\(callback.name)\" was not answered within \(limit).")
        ) {
            await handler.onCustomCallback(callback)
        }
    }
}

extension TriggerResult {
    /// `trigger_fire`'s parameters for a decision of `placement` with this result.
    func fireParameters(for placement: PlacementData) -> [String: JSON] {
        var parameters: [String: JSON] = ["trigger_name": .string(placement.name)]
        switch self {
        case .paywall(let experiment):
            parameters["result"] = "present"
            parameters["variant_id"] = .string(experiment.variant.id)
            parameters["experiment_id"] = .string(experiment.id)
            parameters["paywall_identifier"] = experiment.variant.paywallIdentifier.map(JSON.string) ?? .null
        case .holdout(let experiment):
            parameters["result"] = "holdout"
            parameters["variant_id"] = .string(experiment.variant.id)
            parameters["experiment_id"] = .string(experiment.id)
        case .noAudienceMatch(let unmatched):
            parameters["result"] = "no_rule_match"
            parameters.reserveCapacity(parameters.count + unmatched.count + 2)
            for audience in unmatched { parameters[audience.parameterKey] = .string(audience.source.rawValue) }
        case .placementNotFound:
            parameters["result"] = "eventNotFound"
        case .noAssignment:
            parameters["result"] = "error"
        }
        return parameters
    }
}
