import Foundation
import GRDB
import Testing

@testable import SuperwallCore

/// A WAL-mode database with the hook installed, and a worker whose delay no test waits out:
/// only `hurry()` starts it in time.
private struct HookedDatabase {
    let path = FileManager.default.temporaryDirectory.appendingPathComponent(
        "checkpoints-\(UUID().uuidString).sqlite"
    ).path
    let database: DatabaseQueue
    let asked = DispatchSemaphore(value: 0)
    let worker: IdleWorker
    let requests: CheckpointRequests

    init() throws {
        var configuration = Configuration()
        configuration.prepareDatabase { db in
            try db.execute(sql: "PRAGMA journal_mode = WAL")
            try db.execute(sql: "PRAGMA wal_autocheckpoint = \(CheckpointRequests.pages)")
        }
        database = try DatabaseQueue(path: path, configuration: configuration)
        worker = IdleWorker(name: "test", delay: .seconds(600)) { [asked] in
            asked.signal()
            return false
        }
        requests = CheckpointRequests(worker: worker)
        database.writeWithoutTransaction { [requests] in requests.install(on: $0) }
        try database.write { try $0.execute(sql: "CREATE TABLE filler (bytes BLOB)") }
    }

    /// Commits `count` rows of 100 kB, each in its own transaction.
    func fill(_ count: Int) throws {
        for _ in 0..<count {
            try database.write { try $0.execute(sql: "INSERT INTO filler VALUES (zeroblob(100000))") }
        }
    }

    func close() {
        database.writeWithoutTransaction { requests.uninstall(from: $0) }
        worker.stop()
        for suffix in ["", "-wal", "-shm"] { try? FileManager.default.removeItem(atPath: path + suffix) }
    }
}

@Suite struct CheckpointRequestsTests {
    @Test func aCommitJustPastTheMarkAsksForACheckpointWithoutHurryingTheWorker() throws {
        let hooked = try HookedDatabase()
        defer { hooked.close() }
        // 25 pages of 4 KiB a row: past 128 pages, short of 512.
        try hooked.fill(10)
        #expect(hooked.asked.wait(timeout: .now() + 0.3) == .timedOut, "the worker waits for its delay")
        #expect(hooked.requests.take(), "the next step, or the call moving a backlog, checkpoints")
    }

    @Test func aCommitThatLeavesTheWALFarPastItsMarkHurriesTheWorkerAndDoesNotCheckpointItself() throws {
        let hooked = try HookedDatabase()
        defer { hooked.close() }
        let (asked, requests, database) = (hooked.asked, hooked.requests, hooked.database)
        try hooked.fill(40)

        #expect(asked.wait(timeout: .now() + 5) == .success, "the worker was hurried")
        #expect(requests.take())
        #expect(!requests.take(), "a request is taken once")
        // SQLite's own checkpoint would have restarted the WAL within the first megabyte.
        let frames = try database.writeWithoutTransaction { try $0.checkpoint(.passive).walFrameCount }
        #expect(frames > 500)
    }
}
