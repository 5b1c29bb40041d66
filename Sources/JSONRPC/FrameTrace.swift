import Dispatch

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Records every frame in and out to a file, for wrapper authors debugging an integration.
///
/// One JSON object a line: `{"time": ISO-8601 UTC, "direction": "in"|"out", "bytes": N,
/// "frame": the message text}`. Writes happen on a queue of their own, off the request path.
public final class FrameTrace: Sendable {
    public enum Direction: String, Sendable {
        case incoming = "in"
        case outgoing = "out"
    }

    private let descriptor: Int32
    private let queue = DispatchQueue(label: "jsonrpc.trace")

    public struct OpenError: Error, CustomStringConvertible {
        public let path: String
        public let reason: String
        public var description: String { "cannot open trace file \(path): \(reason)" }
    }

    public init(path: String) throws {
        let descriptor = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC | O_APPEND, 0o644)
        guard descriptor >= 0 else {
            throw OpenError(path: path, reason: String(cString: strerror(errno)))
        }
        self.descriptor = descriptor
    }

    deinit {
        queue.sync {}
        close(descriptor)
    }

    public func record(_ direction: Direction, _ frame: [UInt8]) {
        let time = UTCTimestamp.now()
        queue.async { [descriptor] in
            let entry: JSONValue = [
                "time": .string(time),
                "direction": .string(direction.rawValue),
                "bytes": .int(Int64(frame.count)),
                "frame": .string(String(decoding: frame, as: UTF8.self)),
            ]
            var line = JSONWriter.encode(entry)
            line.append(UInt8(ascii: "\n"))
            line.withUnsafeBytes { _ = write(descriptor, $0.baseAddress, $0.count) }
        }
    }

    /// Waits until every record so far is on disk.
    public func flush() {
        queue.sync {}
    }
}

/// ISO-8601 UTC timestamps with milliseconds, without Foundation.
enum UTCTimestamp {
    static func now() -> String {
        var spec = timespec()
        clock_gettime(CLOCK_REALTIME, &spec)
        var seconds = spec.tv_sec
        var parts = tm()
        gmtime_r(&seconds, &parts)
        func pad(_ value: Int32, _ width: Int) -> String {
            let digits = String(value)
            return String(repeating: "0", count: max(0, width - digits.count)) + digits
        }
        let millis = Int32(spec.tv_nsec / 1_000_000)
        return "\(pad(parts.tm_year + 1900, 4))-\(pad(parts.tm_mon + 1, 2))-\(pad(parts.tm_mday, 2))T"
            + "\(pad(parts.tm_hour, 2)):\(pad(parts.tm_min, 2)):\(pad(parts.tm_sec, 2)).\(pad(millis, 3))Z"
    }
}
