import CForkGuard
import Synchronization

/// What a host holds for a bridge: never freed, so that a handle used after `close`, from any
/// thread and as often as the host likes, reads "closed" instead of freed memory. The bridge
/// itself is freed at close (or, when a send still holds it, when that send returns); what
/// stays behind is this object, 48 bytes of the heap.
final class BridgeHandle: Sendable {
    private let bridge: Mutex<EmbeddedBridge?>
    /// The `fork()` generation the bridge was opened in: its threads live only there.
    private let generation: UInt64

    init(_ bridge: EmbeddedBridge) {
        self.bridge = Mutex(bridge)
        generation = fork_guard_generation()
    }

    /// The bridge while it is open in this process; nil once closed, or in a forked child.
    var open: EmbeddedBridge? {
        guard fork_guard_generation() == generation else { return nil }
        return bridge.withLock { $0 }
    }

    /// The bridge, taken from the handle by the one `close` that gets it.
    func take() -> EmbeddedBridge? {
        guard fork_guard_generation() == generation else { return nil }
        return bridge.withLock { bridge in
            defer { bridge = nil }
            return bridge
        }
    }
}
