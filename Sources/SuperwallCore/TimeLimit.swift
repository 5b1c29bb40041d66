import Synchronization

/// Runs `operation`, throwing `NetworkError.timedOut` at `limit` if it has not finished,
/// and cancelling it.
///
/// The answer comes at the limit even if `operation` is slow to notice its cancellation: a
/// task group would wait for it to end, and a request that missed its cancellation would
/// hold the caller until the server answered.
func withTimeLimit<Result: Sendable>(_ limit: Duration, _ operation: @escaping @Sendable () async throws -> Result) async throws -> Result {
    let race = FirstOutcome<Result>()
    let work = Task {
        do { race.settle(.success(try await operation())) } catch { race.settle(.failure(error)) }
    }
    let timer = Task {
        guard (try? await Task.sleep(for: limit)) != nil else { return }
        race.settle(.failure(NetworkError.timedOut))
    }
    defer {
        work.cancel()
        timer.cancel()
    }
    return try await withTaskCancellationHandler {
        try await withCheckedThrowingContinuation { race.await($0) }
    } onCancel: {
        race.settle(.failure(CancellationError()))
    }
}

/// The first of several outcomes, handed to one waiter; later ones are dropped.
private final class FirstOutcome<Value: Sendable>: Sendable {
    private struct State {
        var outcome: Result<Value, any Error>?
        var waiter: CheckedContinuation<Value, any Error>?
    }

    private let state = Mutex(State())

    func settle(_ outcome: Result<Value, any Error>) {
        let waiter: CheckedContinuation<Value, any Error>? = state.withLock { state in
            guard state.outcome == nil else { return nil }
            state.outcome = outcome
            defer { state.waiter = nil }
            return state.waiter
        }
        waiter?.resume(with: outcome)
    }

    func await(_ waiter: CheckedContinuation<Value, any Error>) {
        let outcome: Result<Value, any Error>? = state.withLock { state in
            if state.outcome == nil { state.waiter = waiter }
            return state.outcome
        }
        if let outcome { waiter.resume(with: outcome) }
    }
}

/// Runs `operation`, giving up on it after `limit`: it is cancelled and `fallback` answered
/// at once, whether or not it has noticed. A cancelled caller gets `fallback` too.
func withDeadline<Result: Sendable>(
    _ limit: Duration, fallback: Result, _ operation: @escaping @Sendable () async -> Result
) async -> Result {
    do {
        return try await withTimeLimit(limit, operation)
    } catch {
        return fallback
    }
}
