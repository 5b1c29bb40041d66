import Foundation

#if canImport(Glibc)
import Glibc
#endif

/// Reads a file a client or a person named: only a regular file (a FIFO would block the
/// reader for ever, `/dev/zero` never ends), no larger than a limit checked before reading,
/// with its failures in plain words.
public enum LocalFile {
    public struct Failure: Error, Sendable, Equatable, CustomStringConvertible {
        public let path: String
        public let reason: String
        public var description: String { "cannot read \(path): \(reason)" }
    }

    public static func read(_ path: String, atMost limit: Int) throws(Failure) -> Data {
        // Non-blocking, so that opening a FIFO with no writer returns at once.
        let descriptor = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC)
        guard descriptor >= 0 else { throw Failure(path: path, reason: String(cString: strerror(errno)).lowercased()) }
        defer { close(descriptor) }
        var status = stat()
        guard fstat(descriptor, &status) == 0 else {
            throw Failure(path: path, reason: String(cString: strerror(errno)).lowercased())
        }
        guard status.st_mode & S_IFMT == S_IFREG else {
            throw Failure(path: path, reason: "it is \(kind(of: status.st_mode)), not a regular file")
        }
        guard status.st_size <= limit else {
            throw Failure(path: path, reason: "it is \(status.st_size) bytes, over the limit of \(limit)")
        }
        var data = Data(count: Int(status.st_size))
        var filled = 0
        while filled < data.count {
            let count = data.withUnsafeMutableBytes {
                Glibc.read(descriptor, $0.baseAddress! + filled, $0.count - filled)
            }
            if count < 0, errno == EINTR { continue }
            guard count > 0 else { break }
            filled += count
        }
        data.count = filled
        return data
    }

    private static func kind(of mode: mode_t) -> String {
        switch mode & S_IFMT {
        case S_IFDIR: "a directory"
        case S_IFIFO: "a FIFO"
        case S_IFCHR: "a character device"
        case S_IFBLK: "a block device"
        case S_IFSOCK: "a socket"
        default: "not a regular file"
        }
    }
}
