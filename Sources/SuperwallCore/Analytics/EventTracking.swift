import Foundation

/// What tracking events remembers between them: the app session, how much to track, where
/// the events go, and the last events of the kinds tracked again as they were
/// (`RepeatedEvent`).
///
/// Owned by the `Superwall` actor, which is the only one to touch it.
final class EventTracking {
    /// SuperwallKit's app session: every event carries its id (`$app_session_id`); a new one
    /// starts at `configure` and when the app comes back after `app_session_timeout_ms`.
    var appSessionId = ""
    /// When the host last said the app went to the background; nil while it is active.
    var lastAppClose: Date?
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
}
