import Foundation
import GRDB
import Testing

@testable import SuperwallCore

/// A WAL-mode database with the hook installed, whose checkpoints signal `checkpointed` and
/// wait for `release` before they run, so a test sees what the commit did before it.
private struct HookedDatabase {
    let path = FileManager.default.temporaryDirectory.appendingPathComponent(
        "checkpoints-\(UUID().uuidString).sqlite"
    ).path
    let database: DatabaseQueue
    let asked = DispatchSemaphore(value: 0)
    let release = DispatchSemaphore(value: 0)
    let checkpoints = BackgroundCheckpoints()

    init() throws {
        var configuration = Configuration()
        configuration.prepareDatabase { db in try db.execute(sql: "PRAGMA journal_mode = WAL") }
        database = try DatabaseQueue(path: path, configuration: configuration)
        database.writeWithoutTransaction { [asked, release, database, checkpoints] db in
            checkpoints.install(on: db) {
                asked.signal()
                release.wait()
                _ = try? database.writeWithoutTransaction { try $0.checkpoint(.passive) }
            }
        }
        try database.write { try $0.execute(sql: "CREATE TABLE filler (bytes BLOB)") }
    }

    /// Commits `count` rows of 100 kB, each in its own transaction.
    func fill(_ count: Int) throws {
        for _ in 0..<count {
            try database.write { try $0.execute(sql: "INSERT INTO filler VALUES (zeroblob(100000))") }
        }
    }

    /// The frames in the WAL file at `path`, of 4 KiB pages.
    static func framesInLog(at path: String) throws -> Int {
        let size = (try FileManager.default.attributesOfItem(atPath: path)[.size] as? Int) ?? 0
        return max(0, (size - 32) / (24 + 4096))
    }

    func close() {
        database.writeWithoutTransaction { checkpoints.uninstall(from: $0) }
        for suffix in ["", "-wal", "-shm"] { try? FileManager.default.removeItem(atPath: path + suffix) }
    }
}

@Suite struct BackgroundCheckpointsTests {
    @Test func aCommitBelowTheMarkAsksForNoCheckpoint() throws {
        let hooked = try HookedDatabase()
        defer { hooked.close() }
        // 25 pages of 4 KiB a row: short of 128 pages.
        try hooked.fill(4)
        #expect(hooked.asked.wait(timeout: .now() + 0.3) == .timedOut)
    }

    @Test func aCommitPastTheMarkIsCheckpointedAfterwardsOnAnotherThreadAndOnlyOnce() throws {
        let hooked = try HookedDatabase()
        defer {
            hooked.release.signal()
            hooked.close()
        }
        try hooked.fill(10)
        #expect(hooked.asked.wait(timeout: .now() + 30) == .success, "past 128 pages a checkpoint is asked for")
        // The commits went on while the checkpoint waited: SQLite did not checkpoint in them.
        try hooked.fill(10)
        #expect(try HookedDatabase.framesInLog(at: hooked.path + "-wal") > 400)
        #expect(hooked.asked.wait(timeout: .now() + 0.3) == .timedOut, "one checkpoint at a time is asked for")
        hooked.release.signal()
    }
}
