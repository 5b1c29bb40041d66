/// Where a connection's outgoing messages go: frames on a descriptor (`FrameWriter`), or
/// whole messages to a host's callback (`CallbackOutput`). Neither ever blocks a caller.
protocol MessageOutput: AnyObject, Sendable {
    /// Whether messages need framing (a byte stream) or go out one by one.
    var isFramed: Bool { get }
    /// Set once the output can take nothing more; later messages are dropped.
    var isBroken: Bool { get }
    func enqueue(_ message: consuming [UInt8])
    /// Holds messages back until `uncork`, which sends them: the reader corks while it works
    /// through what it read.
    func cork()
    func uncork()
    /// Back-pressure: returns once less than the bound waits to go out, the output breaks,
    /// or `shouldStop` holds (checked at least every 100 ms).
    func waitForRoom(orStopWhen shouldStop: () -> Bool)
    /// Wakes a reader waiting for room, so it can see that it should stop.
    func wakeReader()
    /// Waits until everything queued so far is out, or `timeout` passes. Returns whether it is.
    @discardableResult
    func flush(timeout: Duration) -> Bool
    /// The calling thread is the one that reads the input.
    func readerStarted()
    /// The connection has finished with the output, after its last `flush`.
    func finish()
    /// How many messages have gone out so far, for a waiter that goes on while output moves.
    var deliveries: Int { get }
}

extension FrameWriter: MessageOutput {
    var isFramed: Bool { true }

    /// A pipe's reader is not waited for past the flush deadline: no count is kept.
    var deliveries: Int { 0 }

    func readerStarted() {}

    func finish() {}
}
