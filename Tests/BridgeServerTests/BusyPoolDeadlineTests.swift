import BridgeServer
import Foundation
import JSONRPC
import TestSupport
import Testing

/// The deadlines the bridge promises hold while every thread of Swift's cooperative pool is
/// busy: each fires on a timer of its own, and what it resumes (the SDK's actors included)
/// runs on the reader's thread or the offload executor, never on the pool. Each check fills
/// the pool with blocking jobs, sends one request from a thread of its own, and takes the time
/// until the answer.
///
/// What is asserted is behaviour, not speed: the pool stays full until the answer comes (or
/// the test's wait ends), so an answer at all proves the deadline needed no thread of the
/// pool. The bound on the time only tells the 100 ms deadline from the longer ones behind it
/// (a purchase's minute, the test's own 30 s), with room for a loaded machine: one answered
/// after 0.82 s beside the other suites.
///
/// This suite runs last and alone in `make check` (and so `make test`): it holds the whole
/// pool for a moment, which would hold the other suites' tests as well.
@Suite(.serialized) struct BusyPoolDeadlineTests {
    /// A deadline of 100 ms answers within this, pool full.
    static let allowed: Duration = .seconds(5)
    /// Each test's data directory, removed when it ends.
    private let dataDirectory = ScratchDirectory()

    @Test func theStatusWaitAnswersOnTimeWhileThePoolIsBusy() async {
        let bridge = await configuredBridge(timeouts: ["subscriptionStatusMs": 100], in: dataDirectory)
        let (reply, elapsed, poolWasFull) = await timedWithThePoolFull(bridge, "getCustomerInfo")
        #expect(poolWasFull)
        #expect(reply?["error"]?["data"]?["kind"] == "customerInfoTimeout")
        #expect(elapsed < Self.allowed, "the 100 ms status wait answered after \(elapsed)")
    }

    @Test func aPurchaseControllerThatNeverAnswersTimesOutOnTimeWhileThePoolIsBusy() async {
        let bridge = await configuredBridge(timeouts: ["purchaseMs": 100], in: dataDirectory)
        let (reply, elapsed, poolWasFull) = await timedWithThePoolFull(
            bridge,
            "purchase",
            ["productId": "com.pockettrainer.pro.annual"]
        )
        #expect(poolWasFull)
        #expect(
            reply?["result"]?["result"]?["type"] == "timedOut" || reply?["result"]?["result"]?["state"] == "timedOut",
            "\(String(describing: reply))"
        )
        #expect(elapsed < Self.allowed, "the 100 ms purchase deadline answered after \(elapsed)")
    }

    @Test func configuresTimeLimitAnswersOnTimeWhileThePoolIsBusy() async throws {
        let server = try SilentTCPServer()
        let bridge = await initializedBridge()
        let (reply, elapsed, poolWasFull) = await timedWithThePoolFull(
            bridge,
            "configure",
            [
                "apiKey": "pk_test",
                "options": [
                    "configSource": ["type": "http", "baseUrl": .string("http://127.0.0.1:\(server.port)")],
                    "dataDirectory": .string(dataDirectory.path), "timeouts": ["configMs": 100],
                    "maxConfigRetryCount": 0,
                ],
            ]
        )
        #expect(poolWasFull)
        #expect(reply?["result"]?["configurationStatus"] == "failed", "\(String(describing: reply))")
        #expect(elapsed < Self.allowed, "the 100 ms config time limit answered after \(elapsed)")
        withExtendedLifetime(server) {}
    }

    @Test func shutdownsDrainEndsOnTimeWhileThePoolIsBusy() async {
        var options = Connection.Options()
        options.drainTimeout = .milliseconds(100)
        let bridge = await configuredBridge(timeouts: ["purchaseMs": 60_000], in: dataDirectory, options: options)
        // A purchase the controller never answers is in flight when `shutdown` comes.
        bridge.client.request("buy", "purchase", ["productId": "com.pockettrainer.pro.annual"])
        #expect(await bridge.client.next()?["method"] == "purchaseController/purchase")
        let (reply, elapsed, poolWasFull) = await timedWithThePoolFull(bridge, "shutdown", expecting: "shutdown")
        #expect(poolWasFull)
        #expect(reply?["result"] == .object([:]))
        #expect(elapsed < Self.allowed, "the 100 ms drain answered shutdown after \(elapsed)")
    }
}

/// A data directory in memory where the machine has one: opening a new store syncs its files
/// several times, and on a disk shared with other work one sync can take a few hundred
/// milliseconds. What is timed here is the deadline, not the disk.
private final class ScratchDirectory: Sendable {
    let path: String

    init() {
        var isDirectory: ObjCBool = false
        let inMemory =
            FileManager.default.fileExists(atPath: "/dev/shm", isDirectory: &isDirectory) && isDirectory.boolValue
            && access("/dev/shm", W_OK) == 0
        let parent = inMemory ? URL(fileURLWithPath: "/dev/shm") : FileManager.default.temporaryDirectory
        path = parent.appendingPathComponent("busy-pool-\(UUID().uuidString)").path
    }

    /// A bridge still ending may write a last file while the directory is removed: the removal
    /// is tried again then.
    deinit {
        for _ in 0..<10 where FileManager.default.fileExists(atPath: path) {
            if (try? FileManager.default.removeItem(atPath: path)) == nil { usleep(20_000) }
        }
    }
}

private func initializedBridge(options: Connection.Options = Connection.Options()) async -> InProcessServer {
    let bridge = InProcessServer(
        handler: BridgeServer(logger: quietLogger(), logLevel: RecordingLogLevel()),
        options: options
    )
    bridge.client.request(0, "initialize", ["protocolVersion": "1.0", "capabilities": ["purchaseController": true]])
    _ = await bridge.client.nextReply()
    return bridge
}

/// A configured bridge, timed while the launch events' implicit triggers (which wait for the
/// subscription status) may still be running beside the request: they take the SDK's actor
/// too, so its lane must not need the pool either.
private func configuredBridge(
    timeouts: JSONObject,
    in dataDirectory: ScratchDirectory,
    options: Connection.Options = Connection.Options()
) async -> InProcessServer {
    let bridge = await initializedBridge(options: options)
    var timeouts = timeouts
    timeouts["subscriptionStatusMs"] = timeouts["subscriptionStatusMs"] ?? 100
    bridge.client.request(
        "configure",
        "configure",
        [
            "apiKey": "pk_test",
            "options": [
                "configSource": ["type": "embedded"], "dataDirectory": .string(dataDirectory.path),
                "timeouts": .object(timeouts),
            ],
        ]
    )
    _ = await bridge.client.nextReply()
    return bridge
}

/// Fills the pool, sends `method` from a thread of its own, and waits there for the reply
/// with id `expecting` (requests from the bridge are left unanswered): the reply, the time
/// it took, and whether the pool stayed full until it came.
private func timedWithThePoolFull(
    _ bridge: InProcessServer,
    _ method: String,
    _ params: JSONValue = [:],
    expecting id: String = "timed"
) async -> (reply: JSONValue?, elapsed: Duration, poolWasFull: Bool) {
    let client = bridge.client
    let outcome = await onAThreadOfItsOwn { () -> (JSONValue?, Duration, Bool) in
        let saturation = PoolSaturation()
        defer { saturation.finish() }
        let started = ContinuousClock.now
        client.request(.string(id), method, params)
        var reply: JSONValue?
        while reply == nil, ContinuousClock.now - started < expectationTimeout {
            guard let message = client.nextReplyBlockingThisThread(timeout: expectationTimeout) else { break }
            if message["id"]?.stringValue == id { reply = message }
        }
        return (reply, ContinuousClock.now - started, !saturation.probeRan)
    }
    return (outcome.0, outcome.1, outcome.2)
}
