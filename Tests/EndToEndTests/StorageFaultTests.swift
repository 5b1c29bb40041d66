import Foundation
import JSONRPC
import TestSupport
import Testing

#if canImport(Glibc)
import Glibc
#endif

@Suite(.serialized) struct StorageFaultTests {
    /// The journal's files were sparse and mapped shared: the first write to a page the full
    /// disk could not allocate killed the bridge with SIGBUS, and every restart died again.
    @Test(.enabled(if: SmallDisk.canMount)) func aDiskThatFillsIsAnsweredWithStorageFullAndLosesNothingAccepted()
        async throws
    {
        let disk = try #require(SmallDisk(megabytes: 12))
        let directory = disk.path + "/data"
        do {
            let bridge = try BridgeProcess()
            await bridge.initialize()
            #expect(
                await call(bridge, 1, "configure", configureParams(directory))?["result"]?["configurationStatus"]
                    == "configured"
            )
            #expect(await call(bridge, 2, "identify", ["userId": "kept_user"])?["result"]?["userId"] == "kept_user")
            #expect(await call(bridge, 3, "setUserAttributes", ["attributes": ["plan": "pro"]])?["result"] != nil)
            disk.fill()
            // Writes that need new space fail with storageFull; the process lives on.
            var kinds: Set<String> = []
            for index in 0..<40 {
                let big = JSONValue.string(String(repeating: "x", count: 60 << 10))
                let attributes = JSONValue.object(
                    JSONObject(uniqueKeysWithValues: (0..<4).map { ("k\(index)_\($0)", big) })
                )
                let answer = await call(
                    bridge,
                    .int(Int64(100 + index)),
                    "setUserAttributes",
                    ["attributes": attributes]
                )
                if let kind = answer?["error"]?["data"]?["kind"]?.stringValue { kinds.insert(kind) }
                #expect(answer != nil, "the bridge answered")
            }
            #expect(kinds == ["storageFull"])
            // Registers go on: the journal's space is reserved a step ahead of its records.
            for index in 0..<50 {
                let answer = await call(bridge, .int(Int64(200 + index)), "register", ["placement": "workout_shared"])
                let kind = answer?["error"]?["data"]?["kind"]?.stringValue
                #expect(
                    answer?["result"] != nil || kind == "storageFull",
                    "register \(index): \(String(describing: answer))"
                )
            }
            #expect(await call(bridge, 300, "$/ping")?["result"] == [:])
            disk.free()
            #expect(await call(bridge, 301, "setUserAttributes", ["attributes": ["after": true]])?["result"] != nil)
            #expect(await call(bridge, 302, "shutdown")?["result"] == [:])
            bridge.client.notify("exit")
            #expect(await bridge.waitForExit() == 0)
        }
        // A restart on the full disk opens what it has, never dies of it.
        disk.fill()
        do {
            let bridge = try BridgeProcess()
            await bridge.initialize()
            let configured = await call(bridge, 1, "configure", configureParams(directory))
            #expect(configured?["result"] != nil)
            #expect(await call(bridge, 2, "getUserId")?["result"]?["appUserId"] == "kept_user")
            let attributes = await call(bridge, 3, "getUserAttributes")?["result"]?["attributes"]
            #expect(attributes?["plan"] == "pro")
            #expect(attributes?["after"] == true)
            bridge.client.closeWriting()
            #expect(await bridge.waitForExit() == 0)
        }
    }

    @Test(.enabled(if: SmallDisk.canMount)) func aDataDirectoryOnAFullDiskFailsConfigureWithStorageFull() async throws {
        let disk = try #require(SmallDisk(megabytes: 2))
        disk.fill()
        let bridge = try BridgeProcess()
        await bridge.initialize()
        let configured = await call(bridge, 1, "configure", configureParams(disk.path + "/data"))?["result"]
        #expect(configured?["configurationStatus"] == "failed")
        #expect(configured?["error"]?["data"]?["kind"] == "storageFull")
        #expect(await call(bridge, 2, "$/ping")?["result"] == [:])
        bridge.client.closeWriting()
        #expect(await bridge.waitForExit() == 0)
    }

    /// A data directory needs a few hundred kilobytes, not the 4 MiB its journal once
    /// reserved: under a 1 MiB file-size limit a session configures and registers. Below what
    /// its database needs, configure fails with `storageFull`, as on a full disk, and the
    /// process lives on (the bridge ignores SIGXFSZ, so a write past the limit is an error).
    @Test func aFileSizeLimitIsAnErrorOnlyBelowWhatTheDataDirectoryNeeds() async throws {
        for (limit, fits) in [(1 << 20, true), (16 << 10, false)] {
            let directory = FileManager.default.temporaryDirectory.appendingPathComponent("fsize-\(UUID().uuidString)")
                .path
            defer { try? FileManager.default.removeItem(atPath: directory) }
            let bridge = try BridgeProcess(launcher: ["/usr/bin/prlimit", "--fsize=\(limit)"])
            await bridge.initialize()
            let configured = await call(bridge, 1, "configure", configureParams(directory))?["result"]
            if fits {
                #expect(configured?["configurationStatus"] == "configured", "\(String(describing: configured))")
                #expect(await call(bridge, 2, "register", ["placement": "workout_shared"])?["result"] != nil)
            } else {
                #expect(configured?["configurationStatus"] == "failed")
                #expect(configured?["error"]?["data"]?["kind"] == "storageFull", "\(String(describing: configured))")
            }
            #expect(await call(bridge, 3, "$/ping")?["result"] == [:])
            bridge.client.closeWriting()
            #expect(await bridge.waitForExit() == 0)
        }
    }

    // MARK: The write-ahead log

    /// Starts a bridge on `directory`, configures it and identifies `user`; answers the bridge.
    private func identifiedBridge(_ directory: String, user: String) async throws -> BridgeProcess {
        let bridge = try BridgeProcess()
        await bridge.initialize()
        #expect(
            await call(bridge, 1, "configure", configureParams(directory))?["result"]?["configurationStatus"]
                == "configured"
        )
        #expect(await call(bridge, 2, "identify", ["userId": .string(user)])?["result"]?["userId"] == .string(user))
        return bridge
    }

    /// What a restart on `directory` says: its configure answer's warnings and the user.
    private func restart(_ directory: String) async throws -> (warnings: [String], appUserId: JSONValue?) {
        let bridge = try BridgeProcess()
        await bridge.initialize()
        let configured = await call(bridge, 1, "configure", configureParams(directory))?["result"]
        let warnings = configured?["warnings"]?.arrayValue?.compactMap { $0["message"]?.stringValue } ?? []
        let user = await call(bridge, 2, "getUserId")?["result"]?["appUserId"]
        bridge.client.closeWriting()
        #expect(await bridge.waitForExit() == 0)
        return (warnings, user)
    }

    private func killed(_ bridge: BridgeProcess) async {
        kill(bridge.pid, SIGKILL)
        _ = await bridge.waitForExit()
    }

    private func damagedFolders(in directory: String) -> [String] {
        ((try? FileManager.default.contentsOfDirectory(atPath: directory)) ?? []).filter { $0.hasPrefix("damaged-") }
    }

    /// A clean shutdown left everything in the log and the main file at one page.
    @Test func aCleanShutdownPutsEverythingInTheMainFile() async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("clean-\(UUID().uuidString)").path
        let bridge = try await identifiedBridge(directory, user: "clean_user")
        #expect(await call(bridge, 3, "shutdown")?["result"] == [:])
        bridge.client.notify("exit")
        #expect(await bridge.waitForExit() == 0)
        unlink(directory + "/superwall.sqlite-wal")
        let after = try await restart(directory)
        #expect(after.appUserId == "clean_user")
        #expect(after.warnings.isEmpty)
    }

    /// A lost log was a silent fresh install: a new alias and `app_install` again.
    @Test func aWriteAheadLogLostAfterACrashIsReportedAndTheFilesKeptAside() async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("lost-wal-\(UUID().uuidString)")
            .path
        await killed(try await identifiedBridge(directory, user: "crash_user"))
        #expect(unlink(directory + "/superwall.sqlite-wal") == 0)
        let after = try await restart(directory)
        #expect(
            after.warnings.contains { $0.contains("write-ahead log") && $0.contains("missing") },
            "\(after.warnings)"
        )
        #expect(damagedFolders(in: directory).count == 1)
    }

    @Test func aWriteAheadLogDamagedAfterACrashIsReported() async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("bad-wal-\(UUID().uuidString)")
            .path
        await killed(try await identifiedBridge(directory, user: "crash_user"))
        let log = try FileHandle(forUpdating: URL(fileURLWithPath: directory + "/superwall.sqlite-wal"))
        // Inside the first frame's page.
        try log.seek(toOffset: 32 + 24 + 100)
        let byte = try #require(log.readData(ofLength: 1).first)
        try log.seek(toOffset: 32 + 24 + 100)
        log.write(Data([byte ^ 0xFF]))
        try log.close()
        let after = try await restart(directory)
        #expect(after.warnings.contains { $0.contains("fails its checksum") }, "\(after.warnings)")
        #expect(damagedFolders(in: directory).count == 1)
    }

    @Test func aDatabaseFileThatIsNotADatabaseIsMovedAsideAndReported() async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("not-a-db-\(UUID().uuidString)")
            .path
        let bridge = try await identifiedBridge(directory, user: "user")
        #expect(await call(bridge, 3, "shutdown")?["result"] == [:])
        bridge.client.notify("exit")
        _ = await bridge.waitForExit()
        try Data(repeating: 0x5A, count: 16_384).write(to: URL(fileURLWithPath: directory + "/superwall.sqlite"))
        let after = try await restart(directory)
        #expect(after.warnings.contains { $0.contains("could not be read") }, "\(after.warnings)")
        let kept = try #require(damagedFolders(in: directory).first)
        #expect(
            FileManager.default.contents(atPath: directory + "/" + kept + "/superwall.sqlite")
                == Data(repeating: 0x5A, count: 16_384)
        )
    }

    @Test func aRestartAfterACrashWithItsLogWholeSaysNothing() async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("whole-\(UUID().uuidString)").path
        await killed(try await identifiedBridge(directory, user: "crash_user"))
        let after = try await restart(directory)
        #expect(after.appUserId == "crash_user")
        #expect(after.warnings.isEmpty, "\(after.warnings)")
        #expect(damagedFolders(in: directory).isEmpty)
    }
}
