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

    /// `TrackedEvent.delegateParameters` as text, without merging its dictionaries first.
    static func write(_ event: TrackedEvent) -> [UInt8] {
        let custom = event.customParameters
        let superwall = event.superwallParameters
        var members: [(key: String, value: JSON)] = []
        members.reserveCapacity(custom.count + superwall.count + 1)
        for (key, value) in custom where superwall[key] == nil && !isNamed(key, "is_superwall") {
            members.append((key, value))
        }
        for (key, value) in superwall where !isNamed(key, "is_superwall") {
            members.append((key, value))
        }
        members.append(("is_superwall", .bool(true)))
        return JSON.sortedObjectText(members)
    }

    /// `key == name`, with the lengths compared first: a comparison of two different strings
    /// otherwise takes Swift's slow path (Unicode-aware), and most keys differ.
    private static func isNamed(_ key: String, _ name: String) -> Bool {
        key.utf8.count == name.utf8.count && key == name
    }
}
