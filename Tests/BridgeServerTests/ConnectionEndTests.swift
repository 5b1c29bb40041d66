import Foundation
import JSONRPC
import Logging
import TestSupport
import Testing

@testable import BridgeServer

/// A `shutdown` and the end of input after it each waited 2 s for a failing collector: 4 s
/// where the documentation says 2.
@Suite struct ConnectionEndTests {
    @Test func theFlushesOfASessionsEndShareOneBudget() {
        let end = ConnectionEnd()
        let start = ContinuousClock.now
        #expect(end.remainingFlushTime(at: start) == ConnectionEnd.flushLimit)
        #expect(end.remainingFlushTime(at: start + .milliseconds(1_500)) == .milliseconds(500))
        #expect(end.remainingFlushTime(at: start + ConnectionEnd.flushLimit) == nil)
        #expect(end.remainingFlushTime(at: start + .seconds(10)) == nil)
    }
}

/// A session's end lets go of what it holds: a host that runs bridges in its own process
/// (a wrapper's hot restart) opens the same data directory again at once.
@Suite struct SessionEndTests {
    private func configuredServer(in directory: String) async -> (InProcessServer, BridgeServer, userId: JSONValue?) {
        let (server, bridgeServer) = bridge()
        await server.initialize()
        server.client.request(
            1,
            "configure",
            [
                "apiKey": "pk_demo",
                "options": ["configSource": ["type": "embedded"], "dataDirectory": .string(directory)],
            ]
        )
        let reply = await server.client.nextReply()
        #expect(reply?["result"]?["configurationStatus"] == "configured", "\(String(describing: reply))")
        return (server, bridgeServer, reply?["result"]?["userId"])
    }

    @Test func theDataDirectoryIsFreeOnceTheConnectionEndsWhileTheServerIsStillHeld() async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("end-\(UUID().uuidString)").path
        let (server, bridgeServer, userId) = await configuredServer(in: directory)
        let lock = open((directory as NSString).appendingPathComponent("bridge.lock"), O_RDWR)
        defer { close(lock) }
        #expect(flock(lock, LOCK_EX | LOCK_NB) != 0, "the session holds its directory")
        server.client.closeWriting()
        #expect(await server.waitForExit() == 0)
        // Still referenced here: what lets go is the end of the session, not the memory's.
        withExtendedLifetime(bridgeServer) {
            #expect(flock(lock, LOCK_EX | LOCK_NB) == 0, "the ended session still holds its directory")
        }
        flock(lock, LOCK_UN)
        // And the next session finds what the first one wrote.
        let (next, _, nextUserId) = await configuredServer(in: directory)
        #expect(nextUserId != nil && nextUserId == userId)
        next.client.closeWriting()
        #expect(await next.waitForExit() == 0)
    }

    @Test func theServerAndItsSessionAreFreedWithTheirConnection() async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("end-\(UUID().uuidString)").path
        weak var released: BridgeServer?
        do {
            let (server, bridgeServer, _) = await configuredServer(in: directory)
            released = bridgeServer
            server.client.closeWriting()
            #expect(await server.waitForExit() == 0)
        }
        // The connection's thread lets go of it as it ends.
        let deadline = ContinuousClock.now + expectationTimeout
        while released != nil, ContinuousClock.now < deadline { try await Task.sleep(for: .milliseconds(5)) }
        #expect(released == nil, "something still holds the server: a cycle through its connection")
    }
}
