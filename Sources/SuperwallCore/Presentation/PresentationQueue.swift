import DequeModule

/// The turns of presentations: `register` calls and implicit triggers run their pipelines
/// one after another, in the order they were queued, as SuperwallKit's do.
///
/// Owned by the `Superwall` actor, so a turn is taken without creating a task: a
/// presentation that finds the queue empty runs at once, on the actor, with no thread hop.
struct PresentationQueue {
    /// A place in the queue, reserved when the presentation is asked for.
    struct Ticket { fileprivate let number: UInt64 }

    private var lastNumber: UInt64 = 0
    /// Reserved tickets, the one whose turn it is first.
    private var line = Deque<UInt64>()
    /// Tickets waiting for their turn.
    private var waiting: [UInt64: CheckedContinuation<Void, Never>] = [:]
    /// Whoever waits for the queue to empty.
    private var drainWaiters: [CheckedContinuation<Void, Never>] = []

    var isEmpty: Bool { line.isEmpty }

    mutating func reserve() -> Ticket {
        lastNumber += 1
        line.append(lastNumber)
        return Ticket(number: lastNumber)
    }

    func isTurn(of ticket: Ticket) -> Bool { line.first == ticket.number }

    mutating func wait(_ ticket: Ticket, with continuation: CheckedContinuation<Void, Never>) {
        if isTurn(of: ticket) { continuation.resume() } else { waiting[ticket.number] = continuation }
    }

    /// Ends `ticket`'s turn and starts the next one (if its owner is already waiting).
    mutating func finish(_ ticket: Ticket) {
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

    mutating func waitUntilEmpty(with continuation: CheckedContinuation<Void, Never>) {
        if line.isEmpty { continuation.resume() } else { drainWaiters.append(continuation) }
    }
}
