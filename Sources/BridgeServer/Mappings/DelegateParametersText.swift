import SuperwallCore
import Synchronization

/// Events' params as the delegate hears them (`delegate/handleSuperwallEvent`'s `params`):
/// un-prefixed, `is_superwall: true`, keys in order at every level.
///
/// Written once for the events that share their params (`TrackedEvent.sharedParameters`): a
/// placement registered again with the same params, or skipped again for the same reasons,
/// repeats three events whose params (`trigger_fire` carries a key per unmatched audience) are
/// otherwise rewritten every call a bound delegate hears.
final class DelegateParametersText: Sendable {
    /// One text per kind of repeated event a `register` tracks (its placement, the presentation
    /// request and the trigger fire), and one to spare; the most recent first.
    static let capacity = 4
    private let remembered = Mutex<[(shared: SharedParameters, text: [UInt8])]>([])

    func text(of event: TrackedEvent) -> [UInt8] {
        guard let shared = event.sharedParameters else { return Self.write(event) }
        if let text = remembered.withLock({ $0.first { $0.shared === shared }?.text }) { return text }
        let text = Self.write(event)
        remembered.withLock { remembered in
            remembered.insert((shared, text), at: 0)
            if remembered.count > Self.capacity { remembered.removeLast() }
        }
        return text
    }

    /// `TrackedEvent.delegateParameters` as text, keys in order at every level.
    static func write(_ event: TrackedEvent) -> [UInt8] {
        guard let written = event.customParametersText?.texts else {
            return JSON.sortedObjectText(event.delegateMembers)
        }
        return written.sortedObjectText(
            eventParametersOnly: true,
            leavingOut: { event.superwallParameters[$0] != nil || $0 == "is_superwall" },
            mergedWith: event.sdkDelegateMembers
        )
    }
}
