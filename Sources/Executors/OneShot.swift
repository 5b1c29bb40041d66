import Synchronization

/// A value that arrives once, awaited by any number of tasks.
///
/// Inlinable, so that each caller's module specializes it for its own `Value`: unspecialized,
/// every use looked up the metadata of its state and its mutex at run time (about 4,000
/// instructions of each `register`, whose answer waits on one).
public final class OneShot<Value: Sendable>: Sendable {
    @usableFromInline
    enum State {
        case waiting([CheckedContinuation<Value, Never>])
        case done(Value)
    }

    @usableFromInline
    let state: Mutex<State>

    /// Set here rather than where it is declared: a declaration's initial value is a function
    /// of its own, which callers cannot specialize.
    @inlinable
    public init() {
        state = Mutex(.waiting([]))
    }

    /// Delivers the value; later calls are ignored.
    @inlinable
    public func resolve(_ value: Value) {
        let waiting = state.withLock { state -> [CheckedContinuation<Value, Never>] in
            guard case .waiting(let continuations) = state else { return [] }
            state = .done(value)
            return continuations
        }
        for continuation in waiting { continuation.resume(returning: value) }
    }

    @inlinable
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
