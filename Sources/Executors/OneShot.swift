import Synchronization

/// A value that arrives once, awaited by any number of tasks.
public final class OneShot<Value: Sendable>: Sendable {
    private enum State {
        case waiting([CheckedContinuation<Value, Never>])
        case done(Value)
    }

    private let state = Mutex<State>(.waiting([]))

    public init() {}

    /// Delivers the value; later calls are ignored.
    public func resolve(_ value: Value) {
        let waiting = state.withLock { state -> [CheckedContinuation<Value, Never>] in
            guard case .waiting(let continuations) = state else { return [] }
            state = .done(value)
            return continuations
        }
        for continuation in waiting { continuation.resume(returning: value) }
    }

    public var value: Value {
        get async {
            if case .done(let value) = state.withLock({ $0 }) { return value }
            return await withCheckedContinuation { continuation in
                let ready = state.withLock { state -> Value? in
                    switch state {
                    case .done(let value): return value
                    case .waiting(let continuations):
                        state = .waiting(continuations + [continuation])
                        return nil
                    }
                }
                if let ready { continuation.resume(returning: ready) }
            }
        }
    }
}
