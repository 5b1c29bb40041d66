import Foundation
import GRDB

/// Opens a data directory's database, first checking what a crash, a full disk or a hand
/// may have done to its files, so that a store which lost what it held is reported, never
/// silently replaced by a new one.
///
/// - The files SQLite opens itself must not be symbolic links (`PrivateFile`), and the main
///   file is created `0600` before SQLite opens it, so its log takes that mode too.
/// - After a process that did not close cleanly (`CleanCloseMark`), the write-ahead log holds
///   the latest commits: a missing log, or one SQLite would cut short at a bad checksum
///   (`WriteAheadLog`), is a loss.
/// - A file that is not a database is moved aside and a new one started.
/// - A store known to exist whose database opens empty has lost everything.
///
/// Whatever is found, the files as they were are copied (or moved) into `damaged-<time>`
/// beside them for inspection, and each finding is returned to be reported.
enum DatabaseOpening {
    static let fileSuffixes =
        ["", "-wal", "-shm", "-journal", "-placements-0", "-placements-1", "-state"]
        + DocumentKey.all.map { "-\($0.name)" }

    static func open(at path: String, configuration: Configuration) throws -> (DatabaseQueue, [String]) {
        for suffix in fileSuffixes { try PrivateFile.refuseLink(at: path + suffix) }
        let mark = CleanCloseMark(besideDatabaseAt: path)
        let previous = mark.read()
        let existed = previous != nil || FileManager.default.fileExists(atPath: path + "-wal")
        var findings: [String] = []
        var keptAside: String?
        func keepAside(moving: Bool) {
            guard keptAside == nil || moving else { return }
            keptAside = setAside(path, moving: moving)
        }
        if previous == .open {
            if let log = WriteAheadLog.inspect(atPath: path + "-wal") {
                if let damage = log.damage {
                    findings.append(
                        "the database's write-ahead log is damaged: \(damage); the commits in it from there on are lost"
                    )
                }
            } else {
                findings.append(
                    "the database's write-ahead log, which held its latest commits, is missing; they are lost"
                )
            }
            if !findings.isEmpty { keepAside(moving: false) }
        }
        close(try PrivateFile.open(path, O_RDWR | O_CREAT))
        let database: DatabaseQueue
        let isEmpty: Bool
        do {
            database = try DatabaseQueue(path: path, configuration: configuration)
            // The first read is where a file that is not a database fails.
            isEmpty =
                try database.read { db in try Int.fetchOne(db, sql: "SELECT count(*) FROM sqlite_master") ?? 0 } == 0
        } catch let error as DatabaseError where [.SQLITE_NOTADB, .SQLITE_CORRUPT].contains(error.resultCode) {
            keepAside(moving: true)
            findings.append(
                "the database could not be read (\(error.message ?? "\(error.resultCode)")); a new one was started"
            )
            close(try PrivateFile.open(path, O_RDWR | O_CREAT))
            return (try DatabaseQueue(path: path, configuration: configuration), findings.withPlace(keptAside))
        }
        if existed, isEmpty {
            keepAside(moving: false)
            findings.append(
                "the database opened empty although this data directory held one before: everything it held is lost (a new user, install and assignments start now)"
            )
        }
        try mark.write(.open)
        return (database, findings.withPlace(keptAside))
    }

    /// Copies (or moves) the database's files into a new `damaged-<time>` folder beside
    /// them; its path, or nil when nothing could be kept.
    private static func setAside(_ path: String, moving: Bool) -> String? {
        let folder =
            (path as NSString).deletingLastPathComponent + "/damaged-"
            + ISO8601.string(from: Date()).replacingOccurrences(of: ":", with: "-")
        guard mkdir(folder, 0o700) == 0 || errno == EEXIST else { return nil }
        let manager = FileManager.default
        for suffix in fileSuffixes where manager.fileExists(atPath: path + suffix) {
            let target = folder + "/" + (path as NSString).lastPathComponent + suffix
            try? manager.removeItem(atPath: target)
            if moving, !suffix.hasPrefix("-placements") {
                try? manager.moveItem(atPath: path + suffix, toPath: target)
            } else {
                try? manager.copyItem(atPath: path + suffix, toPath: target)
            }
        }
        return folder
    }
}

extension Array where Element == String {
    /// The findings, the last naming where the files were kept.
    fileprivate func withPlace(_ folder: String?) -> [String] {
        guard let folder, !isEmpty else { return self }
        var findings = self
        findings[findings.count - 1] += "; the files as they were are kept in \(folder)"
        return findings
    }
}
