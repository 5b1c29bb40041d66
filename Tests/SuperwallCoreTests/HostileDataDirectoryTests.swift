import Foundation
import Testing

@testable import SuperwallCore

#if canImport(Glibc)
import Glibc
#endif

private func temporaryPath(_ name: String) -> String {
    FileManager.default.temporaryDirectory.appendingPathComponent("\(name)-\(UUID().uuidString)").path
}

/// A file outside the data directory that a planted link aims at.
private func victim() throws -> (path: String, contents: Data) {
    let path = temporaryPath("victim")
    let contents = Data("the victim's own bytes\n".utf8)
    try contents.write(to: URL(fileURLWithPath: path))
    return (path, contents)
}

@Suite struct HostileDataDirectoryTests {
    /// Each name was followed: the lock truncated its target to the pid, the journal's files
    /// extended theirs to 2 MiB, and SQLite's files took theirs over. An `events.jsonl` link was
    /// never written through, but every flush then failed unseen and events piled up.
    @Test(arguments: [
        "bridge.lock", "superwall.sqlite", "superwall.sqlite-wal", "superwall.sqlite-placements-0",
        "superwall.sqlite-placements-1", "superwall.sqlite-lastConfig", "events.jsonl",
    ])
    func aLinkPlantedAsOneOfItsFilesIsRefusedAndItsTargetUntouched(_ name: String) throws {
        let directory = temporaryPath("planted")
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        let target = try victim()
        #expect(symlink(target.path, directory + "/" + name) == 0)
        #expect(throws: DataDirectory.OpenError.self) { _ = try DataDirectory(path: directory) }
        #expect(FileManager.default.contents(atPath: target.path) == target.contents)
        do {
            _ = try DataDirectory(path: directory)
        } catch {
            #expect("\(error)".contains("symbolic link"), "\(error)")
        }
    }

    @Test func aLinkPlantedAsTheEventsFileIsNotWrittenThrough() async throws {
        let directory = temporaryPath("planted-events")
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        let target = try victim()
        #expect(symlink(target.path, directory + "/events.jsonl") == 0)
        let sink = JSONLinesEventSink(path: directory + "/events.jsonl")
        await #expect(throws: (any Error).self) { _ = try await sink.deliver([Array(#"{"event_name":"x"}"#.utf8)]) }
        #expect(FileManager.default.contents(atPath: target.path) == target.contents)
    }

    @Test func itsFolderAndFilesAreTheOwnersAlone() async throws {
        let directory = temporaryPath("private") + "/nested"
        let opened = try DataDirectory(path: directory)
        defer { withExtendedLifetime(opened) {} }
        try opened.store.set("x", for: .aliasId)
        try opened.store.setDocument(Data("{}".utf8), for: .lastConfig)
        _ = try await JSONLinesEventSink(path: directory + "/events.jsonl").deliver([Array("{}".utf8)])
        for name in [
            "", "/bridge.lock", "/superwall.sqlite", "/superwall.sqlite-wal", "/superwall.sqlite-placements-0",
            "/superwall.sqlite-state", "/superwall.sqlite-lastConfig", "/events.jsonl",
        ] {
            var status = stat()
            #expect(stat(directory + name, &status) == 0, "\(name)")
            #expect(status.st_mode & 0o077 == 0, "\(name) is \(String(status.st_mode & 0o777, radix: 8))")
        }
    }

    @Test func anExistingFolderOfOursOpenToOthersIsMadePrivate() throws {
        let directory = temporaryPath("open-to-others")
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        #expect(chmod(directory, 0o777) == 0)
        let opened = try DataDirectory(path: directory)
        defer { withExtendedLifetime(opened) {} }
        var status = stat()
        #expect(stat(directory, &status) == 0)
        #expect(status.st_mode & 0o777 == 0o700)
    }

    /// `/` was accepted, and six files were written into it.
    @Test(arguments: ["/", "/tmp", "/etc/", "/usr/../usr"])
    func aSystemFolderIsRefused(_ path: String) throws {
        let names = ["bridge.lock", "superwall.sqlite", "superwall.sqlite-placements-0", "superwall.sqlite-state"]
        let before = names.filter { FileManager.default.fileExists(atPath: path + "/" + $0) }
        #expect(throws: DataDirectory.OpenError.self) { _ = try DataDirectory(path: path) }
        #expect(names.filter { FileManager.default.fileExists(atPath: path + "/" + $0) } == before)
    }

    @Test(.enabled(if: getuid() == 0)) func anotherUsersFolderIsRefused() throws {
        let directory = temporaryPath("someone-elses")
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        #expect(chown(directory, 65_534, 65_534) == 0)
        do {
            _ = try DataDirectory(path: directory)
            Issue.record("another user's folder was accepted")
        } catch {
            #expect("\(error)".contains("another user"), "\(error)")
        }
        #expect(try FileManager.default.contentsOfDirectory(atPath: directory).isEmpty)
    }
}
