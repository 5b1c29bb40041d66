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

    /// Listens on `port` (0: any free port).
    public static func start(_ api: FakeAPI, port: Int = 0) async throws -> FakeAPIServer {
        let channel = try await bootstrap(api).bind(host: "127.0.0.1", port: port).get()
        return FakeAPIServer(api: api, channel: channel, port: channel.localAddress?.port ?? port)
    }

    /// `start`, for a caller that is not async (the command line).
    public static func startWaiting(_ api: FakeAPI, port: Int = 0) throws -> FakeAPIServer {
        let channel = try bootstrap(api).bind(host: "127.0.0.1", port: port).wait()
        return FakeAPIServer(api: api, channel: channel, port: channel.localAddress?.port ?? port)
    }

    private static func bootstrap(_ api: FakeAPI) -> ServerBootstrap {
        ServerBootstrap(group: MultiThreadedEventLoopGroup.singleton)
            .serverChannelOption(.backlog, value: 256)
            .serverChannelOption(.socketOption(.so_reuseaddr), value: 1)
            .childChannelInitializer { channel in
                channel.eventLoop.makeCompletedFuture {
                    try channel.pipeline.syncOperations.configureHTTPServerPipeline(withErrorHandling: true)
                    try channel.pipeline.syncOperations.addHandler(RequestHandler(api: api))
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
private final class RequestHandler: ChannelInboundHandler {
    typealias InboundIn = HTTPServerRequestPart
    typealias OutboundOut = HTTPServerResponsePart

    private let api: FakeAPI
    private var head: HTTPRequestHead?
    private var body: ByteBuffer?

    init(api: FakeAPI) {
        self.api = api
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        switch unwrapInboundIn(data) {
        case .head(let head):
            self.head = head
            body = nil
        case .body(var part):
            if body == nil { body = part } else { body!.writeBuffer(&part) }
        case .end:
            guard let head else { return }
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
            guard response.delayMilliseconds > 0 else {
                write(response, version: version, keepAlive: keepAlive, context: context)
                return
            }
            context.eventLoop.assumeIsolated().scheduleTask(in: .milliseconds(Int64(response.delayMilliseconds))) {
                self.write(response, version: version, keepAlive: keepAlive, context: context)
            }
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
        }
    }
}
