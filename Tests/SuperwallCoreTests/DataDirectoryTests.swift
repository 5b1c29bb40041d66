import Foundation
import GRDB
import TestSupport
import Testing

@testable import SuperwallCore

@Suite struct DataDirectoryTests {
    private func temporaryPath() -> String {
        FileManager.default.temporaryDirectory.appendingPathComponent("swdata-\(UUID().uuidString)").path
    }

    @Test func stateSurvivesReopening() throws {
        let path = temporaryPath()
        defer { try? FileManager.default.removeItem(atPath: path) }
        do {
            let directory = try DataDirectory(path: path)
            try directory.store.set("$SuperwallAlias:KEEP", for: .aliasId)
        }
        let reopened = try DataDirectory(path: path)
        #expect(try reopened.store.value(.aliasId) == "$SuperwallAlias:KEEP")
    }

    /// A closed directory is the next session's at once, though the closed one is still
    /// referenced (by work of its session that has not ended), and its store refuses every
    /// call instead of writing beside the next session's.
    @Test func aClosedDirectoryIsFreeAtOnceAndItsStoreRefusesEveryCall() throws {
        let path = temporaryPath()
        defer { try? FileManager.default.removeItem(atPath: path) }
        let first = try DataDirectory(path: path)
        try first.store.set("$SuperwallAlias:KEEP", for: .aliasId)
        first.store.logPlacement("opened", at: Date(), params: [:])
        try first.store.commitPendingWrites()
        first.close()
        first.close()
        // Still held, the directory would be refused after the wait for a holder in this process.
        let next = try DataDirectory(path: path)
        #expect(try next.store.value(.aliasId) == "$SuperwallAlias:KEEP")
        #expect(try next.store.placementNames() == ["opened"])
        func refused(_ call: () throws -> Void) -> Bool {
            do {
                try call()
                return false
            } catch {
                return "\(error)" == "\(StoreFault.closed)"
            }
        }
        #expect(refused { try first.store.set("$SuperwallAlias:LOST", for: .aliasId) })
        #expect(refused { _ = try first.store.value(.aliasId) })
        #expect(refused { try first.store.setDocument(Data("{}".utf8), for: .lastConfig) })
        #expect(refused { _ = try first.store.document(.lastConfig) })
        #expect(
            refused {
                first.store.logPlacement("late", at: Date(), params: [:])
                try first.store.commitPendingWrites()
            }
        )
        #expect(refused { _ = try first.store.outgoingEvents(after: 0, limit: 10) })
        first.store.closeCleanly()
        #expect(try next.store.value(.aliasId) == "$SuperwallAlias:KEEP")
        #expect(try next.store.placementNames() == ["opened"])
    }

    /// Work of a session can outlive it holding its store (an event flush waiting on the
    /// network). Were the lock to go with the directory while that store kept SQLite's
    /// exclusive lock, the next session would wait on it (five seconds a call), or fail.
    @Test func aDirectoryLetGoOfWhileWorkStillHoldsItsStoreClosesThatStoreFirst() throws {
        let path = temporaryPath()
        defer { try? FileManager.default.removeItem(atPath: path) }
        var directory: DataDirectory? = try DataDirectory(path: path)
        let heldByWork = try #require(directory?.store)
        try heldByWork.set("$SuperwallAlias:KEEP", for: .aliasId)
        directory = nil
        let next = try DataDirectory(path: path)
        #expect(try next.store.value(.aliasId) == "$SuperwallAlias:KEEP")
        #expect(throws: StoreFault.self) { try heldByWork.set("$SuperwallAlias:LOST", for: .aliasId) }
        #expect(try next.store.value(.aliasId) == "$SuperwallAlias:KEEP")
    }

    /// Held by this process, the directory is waited for (a closing session lets go within
    /// moments), then refused: waited for on a thread of its own, not the cooperative pool's.
    @Test func aSecondHolderIsRefusedWithTheFirstOnesPid() async throws {
        let path = temporaryPath()
        defer { try? FileManager.default.removeItem(atPath: path) }
        let first = try DataDirectory(path: path)
        let second = await onAThreadOfItsOwn { () -> DataDirectory.OpenError? in
            do throws(DataDirectory.OpenError) {
                _ = try DataDirectory(path: path)
                return nil
            } catch {
                return error
            }
        }
        #expect(second == .inUse(path: path, holderPid: getpid()))
        _ = first
    }

    @Test func aSessionOfThisProcessThatLetsGoIsWaitedFor() async throws {
        let path = temporaryPath()
        defer { try? FileManager.default.removeItem(atPath: path) }
        let first = LockedBox<DataDirectory?>(try DataDirectory(path: path))
        let reopened = await onAThreadOfItsOwn { () -> Bool in
            Thread.detachNewThread {
                usleep(50_000)
                first.set(nil)
            }
            return (try? DataDirectory(path: path)) != nil
        }
        #expect(reopened)
    }

    /// The pid was missing from 17 of 20 `dataDirectoryInUse` messages when two bridges
    /// started together: the loser read the lock file before the winner wrote it.
    @Test func theHoldersPidIsNamedEvenIfItIsWrittenJustAfterTheLock() throws {
        let path = temporaryPath()
        defer { try? FileManager.default.removeItem(atPath: path) }
        try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
        let descriptor = open(path + "/bridge.lock", O_RDWR | O_CREAT, 0o644)
        defer { close(descriptor) }
        #expect(flock(descriptor, LOCK_EX | LOCK_NB) == 0)
        let writer = Thread {
            usleep(20_000)
            _ = "4242\n".withCString { pwrite(descriptor, $0, 5, 0) }
        }
        writer.start()
        #expect(throws: DataDirectory.OpenError.inUse(path: path, holderPid: 4242)) { try DataDirectory(path: path) }
    }

    @Test func theDefaultPathIsPerAPIKeyUnderXDGDataHome() {
        #expect(
            DataDirectory.defaultPath(apiKey: "pk_abc123", environment: ["XDG_DATA_HOME": "/data", "HOME": "/home/u"])
                == "/data/superwall-bridge/pk_abc123"
        )
        #expect(
            DataDirectory.defaultPath(apiKey: "pk/../x", environment: ["HOME": "/home/u"])
                == "/home/u/.local/share/superwall-bridge/pk____x"
        )
    }

    @Test func anUnwritableLocationIsAClearError() {
        #expect(throws: DataDirectory.OpenError.self) { try DataDirectory(path: "/proc/superwall-cannot-be-here") }
    }
}
