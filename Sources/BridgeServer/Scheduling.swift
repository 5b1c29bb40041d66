import Executors
import Synchronization

// The one place that knows the connection runs requests on the thread that reads the input
// (`ReaderExecutor`): what must leave that thread, and the order that leaving would break.

/// Runs a call that adopts a config on the `OffloadExecutor`. A request runs on the thread that
/// reads the input, and so does the SDK's actor for it; adopting a config of thousands of
/// campaigns (drawing and storing their assignments) there would hold every later request,
/// `$/ping` included, until it ended. Not the cooperative pool: what such a call waits for
/// (configure's time limit) must end on time while the pool is busy. (The SDK moves its own
/// slow work, rules that may be slow, off its actor: the bridge does not steer it.)
func offTheReader<Result: Sendable, Failure: Error>(
    _ call: () async throws(Failure) -> Result
) async throws(Failure) -> Result {
    try await withTaskExecutorPreference(OffloadExecutor.shared, operation: call)
}

/// Keeps the client's requests entering the SDK in the order they were sent.
///
/// The connection starts each request's handler in arrival order, and a handler that calls
/// the SDK without suspending first enters it in that order too: the SDK's actor takes calls
/// first come, first served, and a call that decides a placement takes what its decision reads
/// on its turn. One kind leaves the reader before it reaches the SDK: `configure` (a large
/// config must not hold the reader). It announces itself as it arrives and opens its gate once
/// it has opened its session; every request that arrives after it waits for that gate, so a
/// later call (an override, an identify) never overtakes it on its way in. A call that waits
/// inside the SDK (for the config, the subscription status, the client) lets later ones run
/// meanwhile, as SuperwallKit's async calls do.
///
/// A request on the reader that waits for a gate is no longer in arrival order once it opens:
/// it goes on when the reader gets to it, and a request read meanwhile that found the gates
/// open could leave the reader and reach the SDK first. So it announces a gate too, which it
/// opens as it goes on, before it reaches the SDK on the same turn of the reader.
final class EntryOrder: Sendable {
    /// How a request reaches the SDK.
    enum Route: Equatable {
        /// On the reader thread, in arrival order: nothing to announce unless it must wait.
        case direct
        /// Off the reader: later requests wait until it is in.
        case configure
    }

    private struct Announced {
        let gate: OneShot<Void>
        let route: Route
    }

    /// The announced gates not yet opened, oldest first.
    private let announced = Mutex<[Announced]>([])

    /// Called in arrival order, before the request first suspends: the gates of earlier
    /// requests still on their way in, and, for one that hops or must wait for those, a gate
    /// of its own that later requests wait for. Nearly always there are none: a lock, and no
    /// suspension.
    func arrive(_ route: Route) -> (earlier: [OneShot<Void>], own: OneShot<Void>?) {
        announced.withLock { gates in
            let earlier = gates.map(\.gate)
            guard route != .direct || !earlier.isEmpty else { return (earlier, nil) }
            let own = OneShot<Void>()
            gates.append(Announced(gate: own, route: route))
            return (earlier, own)
        }
    }

    /// The request holding `gate` is in (or has ended): the requests behind it go on.
    func entered(_ gate: OneShot<Void>) {
        gate.resolve(())
        announced.withLock { $0.removeAll { $0.gate === gate } }
    }

    /// What opens the gate of the request of `route` now running, to be called once it is in.
    /// Requests of one route are in by the time the next of it runs (it waited for them), so
    /// the oldest gate of that route is the caller's own. Nil when it announced none.
    func opener(for route: Route) -> (@Sendable () -> Void)? {
        guard let gate = announced.withLock({ $0.first { $0.route == route }?.gate }) else { return nil }
        return { self.entered(gate) }
    }
}
