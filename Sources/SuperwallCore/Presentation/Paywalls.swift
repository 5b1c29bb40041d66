import Foundation

/// The paywalls: the one on screen, those loaded and preloading, the presentations waiting
/// their turn, and the work around them (page effects, assignment confirmations).
///
/// Owned by the `Superwall` actor, which is the only one to touch it.
final class Paywalls {
    /// The paywall on screen; one at a time.
    var open: PresentedPaywall?
    /// The info of the last paywall dismissed, as it was when it began to close.
    var lastDismissedInfo: PaywallInfo?
    /// Presentations, one at a time in the order they were asked for.
    let presentationQueue = TurnQueue()
    /// Paywalls loaded so far, with the presentation id each load was given.
    var loaded: [String: LoadedPaywall] = [:]
    /// The last preload started: each waits for the one before (Superwall+Preloading.swift).
    var preloading: Task<[String], Never>?
    /// The last page effect asked of the host: each waits for the one before, so that the
    /// host sees them in order without the page's messages waiting on them.
    var pageEffects: Task<Void, Never>?
    /// Confirmations of assignments being posted, by experiment id.
    var confirmationsInFlight: [String: Task<Void, Never>] = [:]
    /// Actions on a paywall the host has shown but the SDK has not yet marked shown (its
    /// `paywall_open` not yet tracked): they wait, as a user cannot tap what has not appeared.
    let shownWaiters = ParkedContinuations<Bool>()
}

extension Superwall {
    /// The paywall on screen, as it stands.
    var openPaywall: PresentedPaywall? { paywalls.open }
}
