import DequeModule

/// Work that runs one piece at a time, in the order it was queued: `register` calls and
/// implicit triggers run their pipelines so, as SuperwallKit's do, and so do config
/// refreshes, so an older read of the config never replaces a newer one.
///
/// Owned by the `Superwall` actor and used only on it, so a turn is taken without creating
/// a task: work that finds the queue empty runs at once, on the actor, with no thread hop.
final class TurnQueue {
    /// A place in the queue, reserved when the work is asked for.
    struct Ticket { fileprivate let number: UInt64 }

    private var lastNumber: UInt64 = 0
    /// Reserved tickets, the one whose turn it is first.
    private var line = Deque<UInt64>()
    /// Tickets waiting for their turn.
    private var waiting: [UInt64: CheckedContinuation<Void, Never>] = [:]
    /// Whoever waits for the queue to empty.
    private var drainWaiters: [CheckedContinuation<Void, Never>] = []

    var isEmpty: Bool { line.isEmpty }

    func reserve() -> Ticket {
        lastNumber += 1
        line.append(lastNumber)
        return Ticket(number: lastNumber)
    }

    func isTurn(of ticket: Ticket) -> Bool { line.first == ticket.number }

    func wait(_ ticket: Ticket, with continuation: CheckedContinuation<Void, Never>) {
        if isTurn(of: ticket) { continuation.resume() } else { waiting[ticket.number] = continuation }
    }

    /// Ends `ticket`'s turn and starts the next one (if its owner is already waiting).
    func finish(_ ticket: Ticket) {
        guard isTurn(of: ticket) else { return }
        line.removeFirst()
        if let next = line.first {
            waiting.removeValue(forKey: next)?.resume()
        } else {
            let drained = drainWaiters
            drainWaiters.removeAll()
            for waiter in drained { waiter.resume() }
        }
    }

    func waitUntilEmpty(with continuation: CheckedContinuation<Void, Never>) {
        if line.isEmpty { continuation.resume() } else { drainWaiters.append(continuation) }
    }

    /// Runs `work` after everything queued before it, on the caller's actor. Returns when
    /// `work` has run.
    func run(isolation: isolated (any Actor)? = #isolation, _ work: () async -> Void) async {
        await run(reserve(), isolation: isolation, work)
    }

    /// Runs `work` once `ticket`'s turn comes, on the caller's actor.
    func run(_ ticket: Ticket, isolation: isolated (any Actor)? = #isolation, _ work: () async -> Void) async {
        if !isTurn(of: ticket) {
            await withCheckedContinuation(isolation: isolation) { wait(ticket, with: $0) }
        }
        await work()
        finish(ticket)
    }
}
