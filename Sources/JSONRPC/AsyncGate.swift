import Synchronization

/// A one-shot signal that tasks can wait on: closed until `open(with:)`, then every waiter,
/// present and future, gets the same value.
public final class AsyncGate<Value: Sendable>: Sendable {
    private enum State {
        case closed([CheckedContinuation<Value, Never>])
        case open(Value)
    }

    private let state = Mutex(State.closed([]))

    public init() {}

    public func open(with value: Value) {
        let waiters = state.withLock { state -> [CheckedContinuation<Value, Never>] in
            guard case .closed(let waiters) = state else { return [] }
            state = .open(value)
            return waiters
        }
        for waiter in waiters { waiter.resume(returning: value) }
    }

    public func wait() async -> Value {
        await withCheckedContinuation { continuation in
            let value = state.withLock { state -> Value? in
                switch state {
                case .open(let value):
                    return value
                case .closed(var waiters):
                    waiters.append(continuation)
                    state = .closed(waiters)
                    return nil
                }
            }
            if let value { continuation.resume(returning: value) }
        }
    }
}
