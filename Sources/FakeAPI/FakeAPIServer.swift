import Foundation
import NIOCore
import NIOHTTP1
import NIOPosix

/// `FakeAPI` served over HTTP/1.1 on 127.0.0.1, on SwiftNIO's event loops.
public final class FakeAPIServer: Sendable {
    public let baseURL: URL
    public let api: FakeAPI
    private let channel: any Channel

    private init(api: FakeAPI, channel: any Channel, port: Int) {
        self.api = api
        self.channel = channel
        baseURL = URL(string: "http://127.0.0.1:\(port)")!
    }

    /// What one connection may make the server hold: a request body of at most `bodyBytes`
    /// (larger is answered 413, and the connection closed), and a whole request within
    /// `requestTimeout` of the connection opening or its last answer (else it is closed).
    public struct Limits: Sendable {
        public var bodyBytes = 64 << 20
        public var requestTimeout: Duration = .seconds(30)

        public init() {}
    }

    /// Listens on `port` (0: any free port).
    public static func start(_ api: FakeAPI, port: Int = 0, limits: Limits = Limits()) async throws -> FakeAPIServer {
        let channel = try await bootstrap(api, limits: limits).bind(host: "127.0.0.1", port: port).get()
        return FakeAPIServer(api: api, channel: channel, port: channel.localAddress?.port ?? port)
    }

    /// `start`, for a caller that is not async (the command line).
    public static func startWaiting(_ api: FakeAPI, port: Int = 0) throws -> FakeAPIServer {
        let channel = try bootstrap(api, limits: Limits()).bind(host: "127.0.0.1", port: port).wait()
        return FakeAPIServer(api: api, channel: channel, port: channel.localAddress?.port ?? port)
    }

    private static func bootstrap(_ api: FakeAPI, limits: Limits) -> ServerBootstrap {
        ServerBootstrap(group: MultiThreadedEventLoopGroup.singleton)
            .serverChannelOption(.backlog, value: 256)
            .serverChannelOption(.socketOption(.so_reuseaddr), value: 1)
            .childChannelInitializer { channel in
                channel.eventLoop.makeCompletedFuture {
                    try channel.pipeline.syncOperations.configureHTTPServerPipeline(withErrorHandling: true)
                    try channel.pipeline.syncOperations.addHandler(RequestHandler(api: api, limits: limits))
                }
            }
    }

    public func close() async {
        try? await channel.close()
    }

    deinit {
        channel.close(promise: nil)
    }
}

/// Gathers one request at a time, asks the API, and writes its answer after the answer's delay.
///
/// What a client can make it hold is bounded (`FakeAPIServer.Limits`): an idle connection, or
/// one dripping a byte at a time, is closed as surely as one that sends too much.
private final class RequestHandler: ChannelInboundHandler {
    typealias InboundIn = HTTPServerRequestPart
    typealias OutboundOut = HTTPServerResponsePart

    private let api: FakeAPI
    private let limits: FakeAPIServer.Limits
    private var head: HTTPRequestHead?
    private var body: ByteBuffer?
    private var refused = false
    private var deadline: Scheduled<Void>?

    init(api: FakeAPI, limits: FakeAPIServer.Limits) {
        self.api = api
        self.limits = limits
    }

    func channelActive(context: ChannelHandlerContext) {
        awaitRequest(context: context)
        context.fireChannelActive()
    }

    func channelInactive(context: ChannelHandlerContext) {
        deadline?.cancel()
        deadline = nil
        context.fireChannelInactive()
    }

    /// The next request must be whole within `requestTimeout`.
    private func awaitRequest(context: ChannelHandlerContext) {
        deadline?.cancel()
        let channel = context.channel
        let timeout = TimeAmount.milliseconds(
            limits.requestTimeout.components.seconds * 1000 + limits.requestTimeout.components.attoseconds
                / 1_000_000_000_000_000
        )
        deadline = context.eventLoop.scheduleTask(in: timeout) { channel.close(promise: nil) }
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        guard !refused else { return }
        switch unwrapInboundIn(data) {
        case .head(let head):
            self.head = head
            body = nil
        case .body(var part):
            if body == nil { body = part } else { body!.writeBuffer(&part) }
            if let body, body.readableBytes > limits.bodyBytes, let head {
                refused = true
                self.body = nil
                write(
                    FakeAPIResponse(
                        status: 413,
                        body: Data(#"{"error":"the body is over \#(limits.bodyBytes) bytes"}"#.utf8)
                    ),
                    version: head.version,
                    keepAlive: false,
                    context: context
                )
            }
        case .end:
            guard let head else { return }
            deadline?.cancel()
            deadline = nil
            self.head = nil
            let target = head.uri.split(separator: "?", maxSplits: 1, omittingEmptySubsequences: false)
            let request = FakeAPIRequest(
                method: head.method.rawValue,
                path: String(target[0]),
                query: target.count > 1 ? String(target[1]) : "",
                headers: head.headers.reduce(into: [:]) { $0[$1.name.lowercased()] = $1.value },
                body: body.map { Data($0.readableBytesView) }
            )
            let response = api.answer(request)
            let keepAlive = head.isKeepAlive
            let version = head.version
            if let gate = response.heldUntil {
                let held = NIOLoopBound((self, context), eventLoop: context.eventLoop)
                var released = response
                released.heldUntil = nil
                let answer = released
                gate.whenOpen {
                    held.eventLoop.execute {
                        let (handler, context) = held.value
                        handler.send(answer, version: version, keepAlive: keepAlive, context: context)
                    }
                }
                return
            }
            send(response, version: version, keepAlive: keepAlive, context: context)
        }
    }

    /// Writes `response` now, or after its delay.
    private func send(
        _ response: FakeAPIResponse,
        version: HTTPVersion,
        keepAlive: Bool,
        context: ChannelHandlerContext
    ) {
        guard response.delayMilliseconds > 0 else {
            write(response, version: version, keepAlive: keepAlive, context: context)
            return
        }
        context.eventLoop.assumeIsolated().scheduleTask(in: .milliseconds(Int64(response.delayMilliseconds))) {
            self.write(response, version: version, keepAlive: keepAlive, context: context)
        }
    }

    private func write(
        _ response: FakeAPIResponse,
        version: HTTPVersion,
        keepAlive: Bool,
        context: ChannelHandlerContext
    ) {
        guard context.channel.isActive else { return }
        var headers = HTTPHeaders([("Content-Type", "application/json")])
        if response.chunked {
            headers.add(name: "Transfer-Encoding", value: "chunked")
        } else {
            headers.add(name: "Content-Length", value: String(response.body.count))
        }
        if !keepAlive { headers.add(name: "Connection", value: "close") }
        let status = HTTPResponseStatus(statusCode: response.status)
        context.write(
            wrapOutboundOut(.head(HTTPResponseHead(version: version, status: status, headers: headers))),
            promise: nil
        )
        let chunkSize = response.chunked ? 64 << 10 : max(response.body.count, 1)
        var offset = 0
        while offset < response.body.count {
            let end = min(offset + chunkSize, response.body.count)
            let part = context.channel.allocator.buffer(bytes: response.body[offset..<end])
            context.write(wrapOutboundOut(.body(.byteBuffer(part))), promise: nil)
            offset = end
        }
        let written = context.writeAndFlush(wrapOutboundOut(.end(nil)))
        if !keepAlive {
            let channel = context.channel
            written.whenComplete { _ in channel.close(promise: nil) }
        } else {
            awaitRequest(context: context)
        }
    }
}
