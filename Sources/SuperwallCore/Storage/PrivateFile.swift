import Foundation

#if canImport(Glibc)
import Glibc
#endif

/// Opening a file of the data directory: never through a symbolic link, and readable by its
/// owner only. A directory under `/tmp` can be prepared by anyone before the bridge first uses
/// it; a link planted there as one of its files would otherwise aim the bridge's writes at a
/// file of the planter's choosing.
enum PrivateFile {
    /// The file's mode when created.
    static let mode: mode_t = 0o600

    struct OpenError: Error, CustomStringConvertible {
        let path: String
        let reason: String
        /// The `errno` of the failure, when it was a system call's.
        var code: Int32 = 0
        var description: String { "cannot open \(path): \(reason)" }
    }

    /// A descriptor for `path`, opened with `flags` (plus `O_NOFOLLOW` and `O_CLOEXEC`),
    /// created `0600` if `flags` has `O_CREAT`.
    static func open(_ path: String, _ flags: Int32) throws -> Int32 {
        let descriptor = Glibc.open(path, flags | O_NOFOLLOW | O_CLOEXEC, mode)
        guard descriptor >= 0 else {
            let code = errno
            throw OpenError(path: path, reason: reason(code), code: code)
        }
        return descriptor
    }

    /// What `errno` means here, with a link named as one.
    static func reason(_ code: Int32) -> String {
        code == ELOOP
            ? "it is a symbolic link, which the data directory never follows" : String(cString: strerror(code))
    }

    /// Appends `bytes` to `path`, creating it `0600`.
    static func append(_ bytes: [UInt8], to path: String) throws {
        let descriptor = try open(path, O_WRONLY | O_CREAT | O_APPEND)
        defer { close(descriptor) }
        try bytes.withUnsafeBytes { try write($0, to: descriptor, path: path) }
    }

    /// Writes all of `bytes` to `descriptor`, the file at `path`.
    static func write(_ bytes: UnsafeRawBufferPointer, to descriptor: Int32, path: String) throws {
        var written = 0
        while written < bytes.count {
            let count = Glibc.write(descriptor, bytes.baseAddress! + written, bytes.count - written)
            if count < 0, errno == EINTR { continue }
            guard count > 0 else { throw OpenError(path: path, reason: String(cString: strerror(errno))) }
            written += count
        }
    }

    /// The whole of the file open at `descriptor`, the file at `path`.
    static func readAll(_ descriptor: Int32, path: String) throws -> Data {
        var status = stat()
        guard fstat(descriptor, &status) == 0 else {
            throw OpenError(path: path, reason: String(cString: strerror(errno)))
        }
        var bytes = Data(count: Int(status.st_size))
        var read = 0
        try bytes.withUnsafeMutableBytes { raw in
            while read < raw.count {
                let count = Glibc.read(descriptor, raw.baseAddress! + read, raw.count - read)
                if count < 0, errno == EINTR { continue }
                guard count >= 0 else { throw OpenError(path: path, reason: String(cString: strerror(errno))) }
                if count == 0 { break }
                read += count
            }
        }
        return read == bytes.count ? bytes : bytes.prefix(read)
    }

    /// Throws when `path` exists as a symbolic link (for the files SQLite opens itself).
    static func refuseLink(at path: String) throws {
        var status = stat()
        guard lstat(path, &status) == 0 else { return }
        if status.st_mode & S_IFMT == S_IFLNK { throw OpenError(path: path, reason: reason(ELOOP)) }
    }
}
