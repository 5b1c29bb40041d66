/// What a server built on `Connection` supplies: the answers to requests and the effects of
/// notifications. The connection owns the protocol itself (framing, ids, batches,
/// cancellation, the lifecycle gate), so a handler only sees well-formed messages, in order.
public protocol ConnectionHandler: Sendable {
    /// Answers `initialize`. Until it returns, other requests wait; if it throws, the
    /// connection stays uninitialised and they answer -32002.
    func initialize(_ request: IncomingRequest, connection: Connection) async throws -> JSONValue

    /// Answers any request after `initialize`. Throw `RPCError` for a protocol error; any other
    /// error answers -32603. Runs concurrently with other requests. It starts on the reader
    /// thread and moves off it at its first suspension, so slow work belongs after an `await`
    /// (in an actor), never before it.
    func handle(_ request: IncomingRequest, connection: Connection) async throws -> JSONValue

    /// Applies a notification. Notifications are applied one at a time, in arrival order.
    func handle(_ notification: IncomingNotification, connection: Connection) async

    /// Flushes and persists before `shutdown` is answered.
    func shutdown(connection: Connection) async

    /// The input closed (the client went away). Runs after every request to the client has
    /// been resolved as failed and before in-flight requests are drained, so work waiting on
    /// the client can end.
    func inputDidClose(connection: Connection) async

    /// The connection has ended: its requests were answered (or cancelled) and nothing more
    /// arrives. What the handler holds for the session can be let go of.
    func connectionDidEnd(connection: Connection) async

    /// The reading thread has run everything it had and written every answer, and is about to
    /// wait for input: work put off so as not to hold up an answer may run here. Called after
    /// every burst of requests, so it must cost next to nothing when there is none.
    func connectionIsIdle()
}

extension ConnectionHandler {
    public func inputDidClose(connection: Connection) async {}
    public func connectionDidEnd(connection: Connection) async {}
    public func connectionIsIdle() {}
}
