/// What a paywall page asks for that only the host can do: open a link,
/// prompt for a review or a permission, schedule a notification, give haptic feedback, show
/// a loading state. The core decides when, as SuperwallKit does; the host performs it.
public enum PageEffect: Sendable, Equatable {
    public enum URLMode: String, Sendable {
        /// SuperwallKit's in-app browser (SFSafariViewController).
        case inApp
        /// The system browser.
        case external
        /// A checkout page in a sheet (`browser_type: payment_sheet`).
        case paymentSheet
        /// The app's own deep link, opened after the paywall closed.
        case deepLink
    }

    case openURL(String, mode: URLMode)
    /// `url` is the store's write-a-review page for an external review, when the config has
    /// the app's id.
    case requestReview(external: Bool, url: String?)
    case requestPermission(String)
    case scheduleNotification(PageNotification)
    /// `light`, `medium`, `heavy`, `success`, `warning`, `error` or `selection`.
    case haptic(String)
    case loadingState(PageLoadingState)
}

/// A local notification a page schedules (`schedule_notification`, trial reminders).
public struct PageNotification: Sendable, Equatable {
    /// `com.superwall.ios-<paywall identifier>-TRIAL_STARTED`: a second one replaces nothing.
    public var id: String
    public var title: String
    public var subtitle: String?
    public var body: String
    public var delayMs: Double
}

extension PageNotification {
    /// `schedule_notification`'s trial reminder, one per paywall; in the sandbox a day passes
    /// in a minute, as SuperwallKit has it.
    init(
        trialReminderOf paywallIdentifier: String,
        title: String,
        subtitle: String?,
        body: String,
        delayMs: Double,
        isSandbox: Bool
    ) {
        self.init(
            id: "com.superwall.ios-\(paywallIdentifier)-TRIAL_STARTED",
            title: title,
            subtitle: subtitle,
            body: body,
            delayMs: isSandbox ? delayMs / 1440 : delayMs
        )
    }
}

/// SuperwallKit's `PaywallLoadingState`: what the host shows over the page.
public enum PageLoadingState: String, Sendable {
    case unknown, loadingURL, ready, loadingPurchase, manualLoading
}

/// The host's answer to a permission request.
public enum PermissionStatus: String, Sendable, CaseIterable {
    case granted, denied, unsupported
}

/// A host that cannot perform an effect.
public struct PageEffectUnsupported: Error, Sendable {
    public init() {}
}
