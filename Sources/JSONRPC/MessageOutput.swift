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
    /// How much has gone out so far (bytes over a pipe, messages to a callback), for a waiter
    /// that goes on while output moves.
    var deliveries: Int { get }
    /// How much more must go out within a flush deadline for the connection to keep waiting.
    var progressStep: Int { get }
}

extension FrameWriter: MessageOutput {
    var isFramed: Bool { true }

    /// A reader slower than 64 KiB a flush deadline (32 KiB a second by default) is not
    /// waited for: one that drips bytes cannot hold the process.
    var progressStep: Int { 64 << 10 }

    func readerStarted() {}

    func finish() {}
}
