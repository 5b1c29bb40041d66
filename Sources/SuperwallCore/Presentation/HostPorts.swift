import Executors
import Foundation

/// A paywall the host is asked to show.
public struct PaywallPresentation: Sendable, Equatable {
    /// Names the session in the host's `paywall/action`s and in the dismissal.
    public var sessionId: String
    public var info: PaywallInfo
    public var paywall: Paywall
    /// How the host loads its page.
    public var page: PageBootstrap
}

/// The host's screen: it shows the paywalls the core decides on and takes them down when
/// told (SuperwallKit's view controllers, here on the other side of a pipe).
public protocol PaywallPresenter: Sendable {
    /// Whether the host renders paywalls at all; when it does not, presentation fails with
    /// `noPresenter` (103) before anything is shown.
    var canPresent: Bool { get }
    /// Shows a paywall and returns once it is on screen; throws when the host cannot show it.
    /// The core bounds the wait and cancels the call when it expires.
    func present(_ presentation: PaywallPresentation) async throws
    /// Takes a paywall down and returns once it is gone, with what the page's
    /// `window.app.getAllState()` answered when the host renders the page (nil otherwise, and
    /// on failure, which is the host's to log).
    func dismiss(
        sessionId: String,
        info: PaywallInfo,
        result: PaywallResult,
        closeReason: PaywallCloseReason
    ) async -> [String: JSON]?
    /// Shows an alert over a paywall and returns once the host has it on screen (SuperwallKit's
    /// `presentAlert`); the host opens the alert's URL if the user takes its action.
    func showAlert(_ alert: PaywallAlert, sessionId: String) async throws
    /// Passes an event into the paywall's page: the host evaluates
    /// `window.paywall.accept64('<accept64>')` in it, in the order given.
    func passToPage(_ accept64: String, sessionId: String)
    /// Performs what the page asked of the host; answers a permission's status (nil for the
    /// other effects). Throws when the host cannot; the core bounds the wait.
    func perform(_ effect: PageEffect, sessionId: String) async throws -> PermissionStatus?
    /// Shows a survey over a paywall that is closing and returns the user's answer
    /// (SuperwallKit's survey alert). `survey.options` come in the order to show them. Throws
    /// when the host cannot show it; the core bounds the wait and cancels the call when it expires.
    func presentSurvey(_ survey: Survey, sessionId: String, info: PaywallInfo) async throws -> SurveyAnswer
    /// Whether the host warms web views for paywalls before they show.
    var canPreload: Bool { get }
    /// Asks the host to load a paywall's page into a web view it keeps for when the paywall
    /// shows (SuperwallKit's preloaded view controllers); the core bounds the wait.
    func preload(_ paywall: Paywall, page: PageBootstrap) async throws
}

extension PaywallPresenter {
    public func showAlert(_ alert: PaywallAlert, sessionId: String) async throws {}
    public func passToPage(_ accept64: String, sessionId: String) {}
    public func perform(_ effect: PageEffect, sessionId: String) async throws -> PermissionStatus? {
        throw PageEffectUnsupported()
    }
    public func presentSurvey(_ survey: Survey, sessionId: String, info: PaywallInfo) async throws -> SurveyAnswer {
        throw SurveysUnsupported()
    }
    public var canPreload: Bool { false }
    public func preload(_ paywall: Paywall, page: PageBootstrap) async throws {}
}

/// What the user did with a survey.
public enum SurveyAnswer: Sendable, Equatable {
    /// Chose an option; `customResponse` is the text of the "Other" option (`000`).
    case response(optionId: String, customResponse: String?)
    /// Took the survey's close button (offered only with `includeCloseOption`).
    case close
}

/// The host does not show surveys.
public struct SurveysUnsupported: Error, Sendable {
    public init() {}
}

/// An alert the host shows over a paywall.
public struct PaywallAlert: Sendable, Equatable {
    public var title: String
    public var message: String
    /// The button that takes the action, if any; the host opens `actionURL` when it is pressed.
    public var actionTitle: String?
    public var actionURL: String?
    public var closeActionTitle: String

    public init(
        title: String,
        message: String,
        actionTitle: String? = nil,
        actionURL: String? = nil,
        closeActionTitle: String
    ) {
        self.title = title
        self.message = message
        self.actionTitle = actionTitle
        self.actionURL = actionURL
        self.closeActionTitle = closeActionTitle
    }

    /// SuperwallKit's alert for a purchase waiting for a parent's approval.
    static let pendingApproval = PaywallAlert(
        title: "Waiting for Approval",
        message: "Thank you! This purchase is pending approval from your parent. Please try again once it is approved.",
        closeActionTitle: "Done"
    )

    /// SuperwallKit's alert for a failed purchase, with the store's message.
    static func purchaseFailed(_ message: String) -> PaywallAlert {
        PaywallAlert(title: "An error occurred", message: message, closeActionTitle: "Done")
    }

    /// SuperwallKit's default `PaywallOptions.restoreFailed`.
    public static let restoreFailed = PaywallAlert(
        title: "No Subscription Found",
        message: "We couldn't find an active subscription for your account.",
        closeActionTitle: "Okay"
    )

    /// SuperwallKit's `PaywallOptions.NotificationPermissionsDenied`, its defaults where a text
    /// is not given: shown when the OS refused the page's notification. Its action opens the
    /// app's settings (`app-settings:`, iOS's `openSettingsURLString`).
    public static func notificationPermissionsDenied(
        title: String? = nil,
        message: String? = nil,
        actionTitle: String? = nil,
        closeActionTitle: String? = nil
    ) -> PaywallAlert {
        PaywallAlert(
            title: title ?? "Notification Permissions Denied",
            message: message
                ?? "Please enable notification permissions from the Settings app so we can notify you when your free trial ends.",
            actionTitle: actionTitle ?? "Open Settings",
            actionURL: "app-settings:",
            closeActionTitle: closeActionTitle ?? "Not now"
        )
    }

    /// SuperwallKit's confirmation of a purchase made on the web, once its code is redeemed.
    static let webPurchaseConfirmed = PaywallAlert(
        title: "You're all set.",
        message: "Your purchase was successful.",
        closeActionTitle: "OK"
    )

    /// SuperwallKit's offer of the web restore page, after a restore from a paywall that left
    /// part of what it sells locked; `hasEntitlements`: the restore found some.
    static func webRestore(at url: String, hasEntitlements: Bool) -> PaywallAlert {
        PaywallAlert(
            title: hasEntitlements ? "Some purchases were not restored" : "No purchases found",
            message: hasEntitlements
                ? "Part of what this offer includes was not found in this store. If you bought it on the web, restore it there."
                : "Nothing to restore was found in this store. If you subscribed on the web, restore your purchase there.",
            actionTitle: "Restore on the web",
            actionURL: url,
            closeActionTitle: "Not now"
        )
    }
}

/// Who hears how one presentation goes (SuperwallKit's `PaywallPresentationHandler`): the
/// `register` call that started it.
public protocol PresentationHandler: Sendable {
    func onPresent(_ info: PaywallInfo)
    func onWillDismiss(_ info: PaywallInfo, result: PaywallResult)
    func onDismiss(_ info: PaywallInfo, result: PaywallResult)
    func onSkip(_ reason: PaywallSkipReason)
    func onError(_ error: PresentationError)
    /// Whether custom callbacks reach the app; when not, each is answered failure at once.
    var handlesCustomCallbacks: Bool { get }
    /// The app's answer to a paywall's custom callback. The core bounds the wait and cancels
    /// the call when it expires.
    func onCustomCallback(_ callback: CustomCallback) async -> CustomCallbackResult
}

extension PresentationHandler {
    public func onPresent(_ info: PaywallInfo) {}
    public func onWillDismiss(_ info: PaywallInfo, result: PaywallResult) {}
    public func onDismiss(_ info: PaywallInfo, result: PaywallResult) {}
    public func onSkip(_ reason: PaywallSkipReason) {}
    public func onError(_ error: PresentationError) {}
    public var handlesCustomCallbacks: Bool { false }
    public func onCustomCallback(_ callback: CustomCallback) async -> CustomCallbackResult {
        .failure("no custom callback handler")
    }
}

/// Waiters parked in an actor until its state changes, each resumed exactly once: by
/// `resumeAll`, or singly (a deadline) by `resume(_:with:)`. A class owned by the actor, so
/// that one bounded wait (`Superwall.wait(on:within:)`) serves every set of waiters.
final class ParkedContinuations<Value: Sendable> {
    private var parked: [UInt64: @Sendable (Value) -> Void] = [:]
    private var nextTicket: UInt64 = 0

    /// How many wait now.
    var count: Int { parked.count }

    func ticket() -> UInt64 {
        nextTicket += 1
        return nextTicket
    }

    private func park(_ continuation: CheckedContinuation<Value, Never>, ticket: UInt64) {
        parked[ticket] = { continuation.resume(returning: $0) }
    }

    /// Parks a value that something else (a deadline) may resolve first.
    func park(_ answer: OneShot<Value>, ticket: UInt64) {
        parked[ticket] = { answer.resolve($0) }
    }

    func resume(_ ticket: UInt64, with value: Value) {
        parked.removeValue(forKey: ticket)?(value)
    }

    func resumeAll(_ value: Value) {
        let waiting = parked.values
        parked.removeAll()
        for resume in waiting { resume(value) }
    }
}

extension ParkedContinuations where Value == Void {
    /// Parks the caller until `resumeAll`, unless `pending` no longer holds.
    ///
    /// `pending` is read in the turn that parks. Read by the caller before its `await`, what it
    /// waits for could happen while the call itself was suspended, and the wake-up would be
    /// lost: entering even the same actor suspends a task whose job runs on another task
    /// executor than the one it prefers (a task started on the offload executor, whose job on
    /// the actor's lane runs with none), and the lane runs the jobs queued before it first.
    func wait(isolation: isolated (any Actor)? = #isolation, while pending: () -> Bool) async {
        await withCheckedContinuation(isolation: isolation) { continuation in
            guard pending() else { return continuation.resume() }
            park(continuation, ticket: ticket())
        }
    }
}

/// The host's ports, as `Superwall.init` was given them.
struct HostPorts: Sendable {
    let delegate: (any SuperwallDelegate)?
    let presenter: (any PaywallPresenter)?
    /// Used when the host declared it performs purchases (`usingPurchaseController`).
    let purchaseController: (any PurchaseController)?
    let testModeChooser: (any TestModeChooser)?
}
