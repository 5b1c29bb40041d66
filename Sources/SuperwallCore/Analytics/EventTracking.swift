import Foundation

/// What tracking events remembers between them: the app session, how much to track, where
/// the events go, and the last events of the kinds tracked again as they were
/// (`RepeatedEvent`).
///
/// Owned by the `Superwall` actor, which is the only one to touch it.
final class EventTracking {
    /// SuperwallKit's app session: every event carries its id (`$app_session_id`); a new one
    /// starts at `configure` and when the app comes back after `app_session_timeout_ms`.
    private(set) var appSessionId = ""
    /// When the host last said the app went to the background; nil while it is active.
    private var lastAppClose: Date?
    var behavior = EventTrackingBehavior.all
    /// `disable_verbose_events` in a build that is not a sandbox one.
    var suppressesVerboseEvents = false
    /// Sends the tracked events out.
    var queue: EventQueue?
    /// The last skip's `trigger_fire`, the last `paywallPresentationRequest` and the last
    /// registered placement, to be tracked again as they are.
    var lastUnmatchedTriggerFire: RepeatedEvent<UnmatchedPlacement>?
    var lastPresentationRequest: RepeatedEvent<[String]>?
    var lastRegisteredPlacement: RepeatedEvent<RegisteredPlacement>?

    /// SuperwallKit's verbose events, kept off the network when the config says
    /// `disable_verbose_events` (`TrackingLogic.isNotDisabledVerbosePlacement`).
    static let verboseEventNames: Set<String> = [
        "paywallPresentationRequest", "paywallResponseLoad_start", "paywallResponseLoad_complete", "shimmerView_start",
        "shimmerView_complete", "paywallProductsLoad_start", "paywallProductsLoad_complete", "paywallWebviewLoad_start",
        "paywallWebviewLoad_complete",
    ]

    func startAppSession(_ id: String) {
        appSessionId = id
    }

    func appWentToBackground(at time: Date) {
        lastAppClose = time
    }

    /// Whether the app, active again at `time`, was away for longer than `timeout` (seconds):
    /// SuperwallKit then starts a new app session. An activation without a background before
    /// it starts none.
    func appCameBack(at time: Date, startsAnAppSessionAfter timeout: Double) -> Bool {
        guard let closedAt = lastAppClose else { return false }
        lastAppClose = nil
        return time.timeIntervalSince(closedAt) > timeout
    }

    /// Whether an event goes out, by the tracking behaviour and verbose suppression; every
    /// event still reaches the placement log and the delegate.
    func sends(_ event: TrackedEvent) -> Bool {
        switch behavior {
        case .none: return false
        case .superwallOnly
        where !event.isSuperwallEvent || event.name == "trigger_fire" || event.name == "user_attributes": return false
        default: break
        }
        return !(suppressesVerboseEvents && Self.verboseEventNames.contains(event.name))
    }

    /// The event repeated when `remembered` was tracked for the same `key` in this app session.
    func repeats<Key>(_ remembered: RepeatedEvent<Key>?, for key: Key) -> RepeatedEvent<Key>? {
        guard let remembered, remembered.matches(key, appSessionId: appSessionId) else { return nil }
        return remembered
    }
}
