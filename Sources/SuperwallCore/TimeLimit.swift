import Executors

/// Runs `operation`, throwing `NetworkError.timedOut` at `limit` if it has not finished,
/// and cancelling it.
///
/// The answer comes at the limit even if `operation` is slow to notice its cancellation: a
/// task group would wait for it to end, and a request that missed its cancellation would
/// hold the caller until the server answered. The limit is a `DeadlineTimer`, which fires
/// while every thread of the cooperative pool is busy, and `operation` runs on the
/// `OffloadExecutor`, so it starts then too.
func withTimeLimit<Value: Sendable>(
    _ limit: Duration,
    _ operation: @escaping @Sendable () async throws -> Value
) async throws -> Value {
    let outcome = OneShot<Result<Value, any Error>>()
    let work = Task(executorPreference: OffloadExecutor.shared) {
        do { outcome.resolve(.success(try await operation())) } catch { outcome.resolve(.failure(error)) }
    }
    let timer = DeadlineTimer(after: limit) { outcome.resolve(.failure(NetworkError.timedOut)) }
    defer {
        work.cancel()
        timer.cancel()
    }
    return try await withTaskCancellationHandler {
        await outcome.value
    } onCancel: {
        outcome.resolve(.failure(CancellationError()))
    }.get()
}

/// Runs `operation`, giving up on it after `limit`: it is cancelled and `fallback` answered
/// at once, whether or not it has noticed. A cancelled caller gets `fallback` too.
func withDeadline<Value: Sendable>(
    _ limit: Duration,
    fallback: Value,
    _ operation: @escaping @Sendable () async -> Value
) async -> Value {
    do {
        return try await withTimeLimit(limit, operation)
    } catch {
        return fallback
    }
}
