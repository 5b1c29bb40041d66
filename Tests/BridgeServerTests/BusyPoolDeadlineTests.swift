import Foundation
import BridgeServer
import JSONRPC
import Testing
import TestSupport

/// The deadlines the bridge promises hold while every thread of Swift's cooperative pool is
/// busy: each fires on a Dispatch timer, and what it resumes runs on the reader's thread or
/// the offload executor, never on the pool. Each check fills the pool with blocking jobs,
/// sends one request from a thread of its own, and takes the time until the answer.
///
/// This suite runs in `make test`'s first phase, beside the suites that only compute: it
/// holds the whole pool for a moment, which would hold the other suites' tests as well.
@Suite(.serialized) struct BusyPoolDeadlineTests {
    /// A deadline of 100 ms answers within this, pool full.
    static let allowed: Duration = .milliseconds(250)

    @Test func theStatusWaitAnswersOnTimeWhileThePoolIsBusy() async {
        let bridge = await configuredBridge(timeouts: ["subscriptionStatusMs": 100])
        let (reply, elapsed, poolWasFull) = await timedWithThePoolFull(bridge, "getCustomerInfo")
        #expect(poolWasFull)
        #expect(reply?["error"]?["data"]?["kind"] == "customerInfoTimeout")
        #expect(elapsed < Self.allowed, "the 100 ms status wait answered after \(elapsed)")
    }

    @Test func aPurchaseControllerThatNeverAnswersTimesOutOnTimeWhileThePoolIsBusy() async {
        let bridge = await configuredBridge(timeouts: ["purchaseMs": 100])
        let (reply, elapsed, poolWasFull) = await timedWithThePoolFull(bridge, "purchase", ["productId": "com.pockettrainer.pro.annual"])
        #expect(poolWasFull)
        #expect(reply?["result"]?["result"]?["type"] == "timedOut" || reply?["result"]?["result"]?["state"] == "timedOut",
                "\(String(describing: reply))")
        #expect(elapsed < Self.allowed, "the 100 ms purchase deadline answered after \(elapsed)")
    }

    @Test func configuresTimeLimitAnswersOnTimeWhileThePoolIsBusy() async throws {
        let server = try SilentServer()
        let bridge = await initializedBridge()
        let (reply, elapsed, poolWasFull) = await timedWithThePoolFull(bridge, "configure", [
            "apiKey": "pk_test", "options": [
                "configSource": ["type": "http", "baseUrl": .string("http://127.0.0.1:\(server.port)")],
                "dataDirectory": .string(temporaryDirectory()), "timeouts": ["configMs": 100], "maxConfigRetryCount": 0,
            ],
        ])
        #expect(poolWasFull)
        #expect(reply?["result"]?["configurationStatus"] == "failed", "\(String(describing: reply))")
        #expect(elapsed < Self.allowed, "the 100 ms config time limit answered after \(elapsed)")
        withExtendedLifetime(server) {}
    }

    @Test func shutdownsDrainEndsOnTimeWhileThePoolIsBusy() async {
        var options = Connection.Options()
        options.drainTimeout = .milliseconds(100)
        let bridge = await configuredBridge(timeouts: ["purchaseMs": 60_000], options: options)
        // A purchase the controller never answers is in flight when `shutdown` comes.
        bridge.client.request("buy", "purchase", ["productId": "com.pockettrainer.pro.annual"])
        #expect(await bridge.client.next()?["method"] == "purchaseController/purchase")
        let (reply, elapsed, poolWasFull) = await timedWithThePoolFull(bridge, "shutdown", expecting: "shutdown")
        #expect(poolWasFull)
        #expect(reply?["result"] == .object([:]))
        #expect(elapsed < Self.allowed, "the 100 ms drain answered shutdown after \(elapsed)")
    }
}

private func temporaryDirectory() -> String {
    FileManager.default.temporaryDirectory.appendingPathComponent("busy-pool-\(UUID().uuidString)").path
}

private func initializedBridge(options: Connection.Options = Connection.Options()) async -> InProcessServer {
    let bridge = InProcessServer(handler: BridgeServer(logger: quietLogger(), logLevel: RecordingLogLevel()), options: options)
    bridge.client.request(0, "initialize", ["protocolVersion": "1.0", "capabilities": ["purchaseController": true]])
    _ = await bridge.client.nextReply()
    return bridge
}

/// A configured bridge with nothing left running: the launch events' implicit triggers (which
/// wait for the subscription status) have ended before the pool is filled, so what is timed
/// is the one request alone.
private func configuredBridge(timeouts: JSONObject, options: Connection.Options = Connection.Options()) async -> InProcessServer {
    let bridge = await initializedBridge(options: options)
    var timeouts = timeouts
    timeouts["subscriptionStatusMs"] = timeouts["subscriptionStatusMs"] ?? 100
    bridge.client.request("configure", "configure", [
        "apiKey": "pk_test",
        "options": ["configSource": ["type": "embedded"], "dataDirectory": .string(temporaryDirectory()), "timeouts": .object(timeouts)],
    ])
    _ = await bridge.client.nextReply()
    // A placement queued behind the implicit triggers answers once they have run.
    bridge.client.request("quiet", "register", ["placement": "busy_pool_quiet"])
    _ = await bridge.client.nextReply()
    return bridge
}

/// Fills the pool, sends `method` from a thread of its own, and waits there for the reply
/// with id `expecting` (requests from the bridge are left unanswered): the reply, the time
/// it took, and whether the pool stayed full until it came.
private func timedWithThePoolFull(
    _ bridge: InProcessServer, _ method: String, _ params: JSONValue = [:], expecting id: String = "timed"
) async -> (reply: JSONValue?, elapsed: Duration, poolWasFull: Bool) {
    let client = bridge.client
    let outcome = await onAThreadOfItsOwn { () -> (JSONValue?, Duration, Bool) in
        let saturation = PoolSaturation()
        defer { saturation.finish() }
        let started = ContinuousClock.now
        client.request(.string(id), method, params)
        var reply: JSONValue?
        while reply == nil, ContinuousClock.now - started < .seconds(30) {
            guard let message = client.nextReplyBlockingThisThread(timeout: .seconds(30)) else { break }
            if message["id"]?.stringValue == id { reply = message }
        }
        return (reply, ContinuousClock.now - started, !saturation.probeRan)
    }
    return (outcome.0, outcome.1, outcome.2)
}

/// A TCP port that accepts connections and never answers: a Superwall API that hangs.
private final class SilentServer: Sendable {
    let port: Int
    private let descriptor: Int32

    init() throws {
        let descriptor = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { pointer in
                bind(descriptor, pointer, length) == 0 && listen(descriptor, 16) == 0 && getsockname(descriptor, pointer, &length) == 0
            }
        }
        guard bound else {
            close(descriptor)
            throw POSIXError(.EADDRNOTAVAIL)
        }
        self.descriptor = descriptor
        port = Int(UInt16(bigEndian: address.sin_port))
    }

    deinit { close(descriptor) }
}
