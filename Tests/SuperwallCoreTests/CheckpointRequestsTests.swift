import Foundation
import GRDB
import Testing

@testable import SuperwallCore

@Suite struct CheckpointRequestsTests {
    @Test func aCommitThatLeavesTheWALLongAsksTheWorkerAtOnceAndDoesNotCheckpointItself() throws {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent(
            "checkpoints-\(UUID().uuidString).sqlite"
        ).path
        defer { for suffix in ["", "-wal", "-shm"] { try? FileManager.default.removeItem(atPath: path + suffix) } }
        var configuration = Configuration()
        configuration.prepareDatabase { db in
            try db.execute(sql: "PRAGMA journal_mode = WAL")
            try db.execute(sql: "PRAGMA wal_autocheckpoint = \(CheckpointRequests.pages)")
        }
        let database = try DatabaseQueue(path: path, configuration: configuration)
        let asked = DispatchSemaphore(value: 0)
        // A delay no test waits out: only `hurry()` starts this worker in time.
        let worker = IdleWorker(name: "test", delay: .seconds(600)) {
            asked.signal()
            return false
        }
        defer { worker.stop() }
        let requests = CheckpointRequests(worker: worker)
        database.writeWithoutTransaction { requests.install(on: $0) }
        defer { database.writeWithoutTransaction { requests.uninstall(from: $0) } }

        try database.write { try $0.execute(sql: "CREATE TABLE filler (bytes BLOB)") }
        for _ in 0..<40 {
            try database.write { try $0.execute(sql: "INSERT INTO filler VALUES (zeroblob(100000))") }
        }

        #expect(asked.wait(timeout: .now() + 5) == .success, "the worker was asked at once")
        #expect(requests.take())
        #expect(!requests.take(), "a request is taken once")
        // SQLite's own checkpoint would have restarted the WAL within the first megabyte.
        let frames = try database.writeWithoutTransaction { try $0.checkpoint(.passive).walFrameCount }
        #expect(frames > 500)
    }
}
