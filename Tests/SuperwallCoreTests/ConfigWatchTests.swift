import Foundation
import Testing

@testable import SuperwallCore

/// Records the refreshes a watched config reports.
final class RefreshRecorder: SuperwallDelegate, @unchecked Sendable {
    private let lock = NSLock()
    private var recorded: [ConfigRefresh] = []
    func handleSuperwallEvent(_ event: TrackedEvent) {}
    func configDidRefresh(_ refresh: ConfigRefresh) { lock.withLock { recorded.append(refresh) } }
    var refreshes: [ConfigRefresh] { lock.withLock { recorded } }
}

@Suite(.serialized) struct ConfigWatchTests {
    private let folder = FileManager.default.temporaryDirectory.appendingPathComponent("watch-\(UUID().uuidString)")
    private var file: URL { folder.appendingPathComponent("config.json") }

    private func config(buildId: String, coachCacheKey: String = "coach-v1") throws -> Data {
        Data(
            try edited(EmbeddedDemoConfig.json) { object in
                object["build_id"] = buildId
                editPaywalls(&object) { paywall in
                    var paywall = paywall
                    if paywall["identifier"] as? String == "coach-upsell-gated" { paywall["cache_key"] = coachCacheKey }
                    return paywall
                }
            }.utf8
        )
    }

    private func watchedSuperwall() async throws -> (Superwall, RefreshRecorder) {
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        try config(buildId: "b1").write(to: file)
        let recorder = RefreshRecorder()
        let superwall = Superwall(delegate: recorder)
        let outcome = try await superwall.configure(
            apiKey: "pk",
            options: Superwall.ConfigureOptions(
                configSource: FileConfigSource(path: file.path),
                dataDirectory: folder.appendingPathComponent("data").path,
                watchConfigFile: true
            )
        )
        #expect(outcome.status == .configured)
        return (superwall, recorder)
    }

    @Test func anEditInPlaceRefreshesOnceTheWritesSettle() async throws {
        let (superwall, recorder) = try await watchedSuperwall()
        let handle = try FileHandle(forWritingTo: file)
        let body = try config(buildId: "b2", coachCacheKey: "coach-v2")
        // A burst: truncate, then the body in two writes.
        try handle.truncate(atOffset: 0)
        try handle.write(contentsOf: body.prefix(100))
        try handle.write(contentsOf: body.dropFirst(100))
        try handle.close()
        try await eventually { await superwall.config?.buildId == "b2" }
        // Usually one refresh. On a loaded machine the burst may span more than the quiet
        // period, and an earlier refresh may read the file half written (and report why it
        // kept b1) or already whole (and a later one then finds nothing changed); either
        // way exactly one refresh reports the change, and the last one reports b2.
        try await eventually { recorder.refreshes.last.map { $0.refreshed && $0.buildId == "b2" } ?? false }
        #expect(recorder.refreshes.filter { $0.changed == ["coach-upsell-gated"] }.map(\.buildId) == ["b2"])
    }

    @Test func aFileReplacedByRenameIsStillWatched() async throws {
        let (superwall, recorder) = try await watchedSuperwall()
        for build in ["b2", "b3"] {
            let temporary = folder.appendingPathComponent(".config.json.swp")
            try config(buildId: build).write(to: temporary)
            _ = rename(temporary.path, file.path)
            try await eventually { await superwall.config?.buildId == build }
            // The delegate hears of the refresh after the config is adopted.
            try await eventually { recorder.refreshes.last?.buildId == build }
        }
        #expect(recorder.refreshes.map(\.buildId).suffix(2) == ["b2", "b3"])
    }

    /// A config reached through a symlink missed every edit of its target.
    @Test func aSymlinkedConfigRefreshesWhenItsTargetChanges() async throws {
        let targets = folder.appendingPathComponent("targets")
        try FileManager.default.createDirectory(at: targets, withIntermediateDirectories: true)
        let target = targets.appendingPathComponent("real.json")
        try config(buildId: "b1").write(to: target)
        let link = folder.appendingPathComponent("linked.json")
        try FileManager.default.createSymbolicLink(at: link, withDestinationURL: target)
        let superwall = Superwall()
        let outcome = try await superwall.configure(
            apiKey: "pk",
            options: Superwall.ConfigureOptions(
                configSource: FileConfigSource(path: link.path),
                dataDirectory: folder.appendingPathComponent("data-link").path,
                watchConfigFile: true
            )
        )
        #expect(outcome.status == .configured)
        try config(buildId: "b2").write(to: target)
        try await eventually { await superwall.config?.buildId == "b2" }
        // Pointed elsewhere, it follows the new target too.
        let other = targets.appendingPathComponent("other.json")
        try config(buildId: "b3").write(to: other)
        try FileManager.default.removeItem(at: link)
        try FileManager.default.createSymbolicLink(at: link, withDestinationURL: other)
        try await eventually { await superwall.config?.buildId == "b3" }
        try config(buildId: "b4").write(to: other)
        try await eventually { await superwall.config?.buildId == "b4" }
    }

    @Test func anInvalidEditKeepsTheLastGoodConfigAndAFixRecovers() async throws {
        let (superwall, recorder) = try await watchedSuperwall()
        try Data(#"{"build_id": 7}"#.utf8).write(to: file)
        // A loaded machine may first read the file empty, between its truncation and the write.
        let invalid = SuperwallError.invalidConfig(ConfigDecodingError(path: "$.build_id", reason: "expected a string"))
        try await eventually { recorder.refreshes.last?.error == invalid }
        #expect(recorder.refreshes.last?.buildId == "b1")
        #expect(await superwall.config?.buildId == "b1")
        try config(buildId: "b4").write(to: file)
        try await eventually { await superwall.config?.buildId == "b4" }
        // The report follows the adoption.
        try await eventually { recorder.refreshes.last?.buildId == "b4" }
        #expect(recorder.refreshes.last?.refreshed == true)
    }

    @Test func otherFilesInTheFolderAreIgnored() async throws {
        let (_, recorder) = try await watchedSuperwall()
        try Data("x".utf8).write(to: folder.appendingPathComponent("notes.txt"))
        try await Task.sleep(for: .milliseconds(200))
        #expect(recorder.refreshes.isEmpty)
    }
}
