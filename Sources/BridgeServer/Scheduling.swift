import Deadlines
import Synchronization

// The one place that knows the connection runs requests on the thread that reads the input
// (`ReaderExecutor`): what must leave that thread, and the order that leaving would break.

/// Runs a call that adopts a config (or evaluates rules known to be slow) on the
/// `OffloadExecutor`. A request runs on the thread that reads the input, and so does the
/// SDK's actor for it; adopting a config of thousands of campaigns (drawing and storing their
/// assignments) there would hold every later request, `$/ping` included, until it ended.
/// Not the cooperative pool: what such a call waits for (configure's time limit) must end on
/// time while the pool is busy.
func offTheReader<Result: Sendable, Failure: Error>(
    _ call: () async throws(Failure) -> Result
) async throws(Failure) -> Result {
    try await withTaskExecutorPreference(OffloadExecutor.shared, operation: call)
}

/// Keeps a `configure` ahead of the calls sent after it.
///
/// The connection starts each request's handler in arrival order, but a handler runs only until
/// its first suspension, and `configure` moves to the offload executor before it reaches the core
/// (so a large config does not hold the reader). A `register` pipelined behind it could then
/// reach the core first and be answered "not configured". `configure` announces itself before
/// it suspends; every other call waits for the announced one to have opened its session (not
/// for its config: the core's calls wait for that themselves where SuperwallKit does).
final class ConfigureOrder: Sendable {
    /// The announced configure's, until it has started.
    private let announced = Mutex<OneShot<Void>?>(nil)

    /// Called by `configure` before it first suspends; the returned gate is opened when the
    /// core has started it (and, whatever happens, when the handler ends).
    func announce() -> OneShot<Void> {
        let gate = OneShot<Void>()
        announced.withLock { $0 = gate }
        return gate
    }

    /// Opens `gate`, and forgets it if it is still the latest: the calls after it then pass
    /// without waiting.
    func started(_ gate: OneShot<Void>) {
        gate.resolve(())
        announced.withLock { if $0 === gate { $0 = nil } }
    }

    /// The announced configure's gate, until it has started: the calls after it wait on it.
    /// Nil, as nearly always, costs them a lock and no suspension.
    var starting: OneShot<Void>? {
        announced.withLock { $0 }
    }
}
