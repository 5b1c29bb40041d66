import Synchronization

/// The session store's work that waits for the host to be idle (`Superwall.performUpkeep`):
/// reached without the actor, from whichever thread the host is idle on. It does not keep the
/// store alive.
final class StoreUpkeep: Sendable {
    private struct Watched {
        weak var store: Store?
    }

    private let watched = Mutex(Watched())

    /// The store whose work `perform()` does from now on.
    func watch(_ store: Store?) {
        watched.withLock { $0.store = store }
    }

    func perform() {
        watched.withLock { $0.store }?.moveBacklogIfAsked()
    }
}
