import Executors
import Foundation
import JSONRPC
import Logging

/// A `Connection` running on its own thread over pipes, with a `FramedPeer` as its client.
public final class InProcessServer: @unchecked Sendable {
    public let client: FramedPeer
    public let connection: Connection
    private let status = LockedBox<Int32?>(nil)

    public init(
        handler: any ConnectionHandler,
        options: Connection.Options = Connection.Options(),
        framing: Framing = .newlineDelimited
    ) {
        let toServer = Pipe2()
        let fromServer = Pipe2()
        var logger = Logger(label: "test-connection")
        logger.logLevel = .critical
        connection = Connection(
            input: toServer.read,
            output: fromServer.write,
            handler: handler,
            options: options,
            logger: logger
        )
        client = FramedPeer(read: fromServer.read, write: toServer.write, framing: framing)
        let thread = Thread { [connection, status] in
            let code = connection.run()
            status.set(code)
            close(toServer.read)
            close(fromServer.write)
        }
        thread.stackSize = 8 << 20
        thread.start()
    }

    /// The status `run()` returned, once it has; nil if it has not within `timeout`.
    public func waitForExit(timeout: Duration = expectationTimeout) async -> Int32? {
        let deadline = ContinuousClock.now + timeout
        while ContinuousClock.now < deadline {
            if let code = status.get() { return code }
            try? await DeadlineTimer.sleep(for: .milliseconds(1))
        }
        return status.get()
    }

    /// Sends `initialize` and returns its reply.
    @discardableResult
    public func initialize() async -> JSONValue? {
        client.request(0, "initialize", ["protocolVersion": "1.0", "client": ["name": "tests", "version": "1"]])
        return await client.nextReply()
    }
}

public final class LockedBox<Value: Sendable>: @unchecked Sendable {
    private let lock = NSLock()
    private var value: Value

    public init(_ value: Value) { self.value = value }
    public func get() -> Value { lock.withLock { value } }
    public func set(_ newValue: Value) { lock.withLock { value = newValue } }
    public func update<Result>(_ body: (inout Value) -> Result) -> Result { lock.withLock { body(&value) } }
}
