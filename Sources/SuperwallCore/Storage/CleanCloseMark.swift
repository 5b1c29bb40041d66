import Foundation

/// A file beside the database saying whether the last process to use it closed it cleanly
/// (`closed`: a checkpoint put every commit into the main file) or not (`open`: its latest
/// commits are in the write-ahead log, which must then be there).
struct CleanCloseMark {
    enum State: String {
        case open
        case closed
    }

    let path: String

    init(besideDatabaseAt databasePath: String) {
        path = databasePath + "-state"
    }

    /// Nil for a store that never had one: new, or written before the mark existed.
    func read() -> State? {
        guard let descriptor = try? PrivateFile.open(path, O_RDONLY) else { return nil }
        defer { close(descriptor) }
        var buffer = [UInt8](repeating: 0, count: 16)
        let count = buffer.withUnsafeMutableBytes { pread(descriptor, $0.baseAddress, $0.count, 0) }
        guard count > 0 else { return nil }
        return State(
            rawValue: String(decoding: buffer.prefix(count), as: UTF8.self).trimmingCharacters(
                in: .whitespacesAndNewlines
            )
        )
    }

    func write(_ state: State) throws {
        let descriptor = try PrivateFile.open(path, O_WRONLY | O_CREAT | O_TRUNC)
        defer { close(descriptor) }
        let text = Array((state.rawValue + "\n").utf8)
        guard text.withUnsafeBytes({ Glibc.write(descriptor, $0.baseAddress, $0.count) }) == text.count else {
            throw PrivateFile.OpenError(path: path, reason: String(cString: strerror(errno)))
        }
    }
}
