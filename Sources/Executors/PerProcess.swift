import CForkGuard
import Synchronization

/// A value made once in each process: a child forked after the value was made gets one of
/// its own at first use. What owns threads (an event loop, a client over one) needs it: a
/// child has none of its parent's threads, so work handed to the parent's would wait for ever,
/// as a pre-fork server's workers and Python's `fork` start method found.
///
/// The parent's value is kept, never released, in the child: its threads are gone, and
/// tearing it down would wait for them.
public final class PerProcess<Value: Sendable>: Sendable {
    private let make: @Sendable (_ isFirstProcess: Bool) -> Value
    private let state = Mutex<(generation: UInt64, value: Value)?>(nil)
    private let abandoned = Mutex<[Value]>([])

    /// `make` is told whether it runs in the process the library was loaded in.
    public init(_ make: @escaping @Sendable (_ isFirstProcess: Bool) -> Value) {
        self.make = make
    }

    public var value: Value {
        let generation = fork_guard_generation()
        return state.withLock { state in
            if let state, state.generation == generation { return state.value }
            if let old = state?.value { abandoned.withLock { $0.append(old) } }
            let value = make(generation == 0)
            state = (generation, value)
            return value
        }
    }
}
