import Foundation

/// The lines of a recording, read from the file a piece at a time: a recording can be
/// hundreds of megabytes (it compresses well, so a small attachment can be a large file),
/// and neither a replay nor its bridge holds more of it than the line at hand.
///
/// A file larger than `limit` bytes is refused before a line is read, and reading stops
/// with the same error if it grows past the limit while read (a FIFO, `/dev/zero`).
public struct RecordingLines: Sequence {
    /// The largest recording read unless the reader is told otherwise.
    public static let defaultLimit = 256 * 1024 * 1024

    public struct TooLarge: Error, CustomStringConvertible {
        public let path: String
        public let limit: Int

        public var description: String {
            "the recording \(path) is larger than \(limit) bytes; replay it with a larger --max-recording-size"
        }
    }

    public struct Unreadable: Error, CustomStringConvertible {
        public let description: String
    }

    let path: String
    let limit: Int

    /// Opens nothing yet: `check()` and each iteration open the file.
    public init(path: String, limit: Int = RecordingLines.defaultLimit) {
        self.path = path
        self.limit = limit
    }

    /// Refuses a file that cannot be read, or whose size is over the limit.
    public func check() throws {
        let handle = try open()
        defer { try? handle.close() }
        var status = stat()
        if fstat(handle.fileDescriptor, &status) == 0, (status.st_mode & S_IFMT) == S_IFREG, status.st_size > limit {
            throw TooLarge(path: path, limit: limit)
        }
    }

    private func open() throws -> FileHandle {
        guard let handle = FileHandle(forReadingAtPath: path) else {
            throw Unreadable(description: "cannot read the recording \(path)")
        }
        return handle
    }

    public func makeIterator() -> Iterator {
        Iterator(handle: try? open(), path: path, limit: limit)
    }

    /// Yields each line without its newline; a last line with none is yielded too. Ends
    /// early, with `failure` set, when the file is over the limit.
    public struct Iterator: IteratorProtocol {
        private let handle: FileHandle?
        private let path: String
        private let limit: Int
        private var buffer: [UInt8] = []
        private var start = 0
        private var bytesRead = 0
        private var atEnd = false
        /// Why reading stopped before the end of the file, if it did.
        public private(set) var failure: (any Error)?

        init(handle: FileHandle?, path: String, limit: Int) {
            self.handle = handle
            self.path = path
            self.limit = limit
            if handle == nil { failure = Unreadable(description: "cannot read the recording \(path)") }
        }

        public mutating func next() -> [UInt8]? {
            guard let handle, failure == nil else { return nil }
            while true {
                if let newline = buffer[start...].firstIndex(of: 0x0A) {
                    let line = Array(buffer[start..<newline])
                    start = newline + 1
                    return line
                }
                if atEnd {
                    guard start < buffer.count else { return nil }
                    let line = Array(buffer[start...])
                    start = buffer.count
                    return line
                }
                // What is left of the buffer moves to its front before more is read.
                buffer.removeSubrange(..<start)
                start = 0
                let chunk: Data
                do {
                    chunk = try handle.read(upToCount: 1 << 16) ?? Data()
                } catch {
                    failure = Unreadable(description: "cannot read the recording \(path): \(error)")
                    return nil
                }
                if chunk.isEmpty {
                    atEnd = true
                    try? handle.close()
                    continue
                }
                bytesRead += chunk.count
                if bytesRead > limit {
                    failure = TooLarge(path: path, limit: limit)
                    try? handle.close()
                    return nil
                }
                buffer.append(contentsOf: chunk)
            }
        }
    }
}
