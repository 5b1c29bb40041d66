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
///
/// Frames carry secrets (an API key in the params of a call): the file is created `0600`,
/// and the string value of every member named in `masking` is replaced, in the file only,
/// by its first four characters and a mark.
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

    private let masked: [[UInt8]]
    /// The API keys `configure` sent, each masked wherever else it appears (inside a paywall
    /// page's base64 payload, say), not only as the value of a masked member.
    private let keys = SecretReplacements()
    /// Set when user values are taken out of the file (`TraceRedaction`).
    private let redaction: TraceRedaction?

    public init(path: String, masking keys: [String] = [], redactingUserValues: Bool = false) throws {
        let descriptor = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC | O_APPEND | O_NOFOLLOW, 0o600)
        guard descriptor >= 0 else {
            throw OpenError(
                path: path,
                reason: errno == ELOOP ? "it is a symbolic link" : String(cString: strerror(errno))
            )
        }
        // An existing file keeps its mode through O_CREAT: it is made private too.
        fchmod(descriptor, 0o600)
        self.descriptor = descriptor
        masked = keys.map { Array("\"\($0)\"".utf8) }
        redaction = redactingUserValues ? TraceRedaction() : nil
    }

    deinit {
        queue.sync {}
        close(descriptor)
    }

    public func record(_ direction: Direction, _ frame: [UInt8]) {
        let time = UTCTimestamp.now()
        queue.async { [descriptor, masked, keys, redaction] in
            if direction == .incoming, !masked.isEmpty {
                for key in Self.apiKeys(in: frame) { keys.add(key, as: Self.masked(key)) }
            }
            var written = keys.replacing(inFrame: Self.masking(masked, in: frame))
            if let redaction { written = redaction.redact(written, incoming: direction == .incoming) }
            let entry: JSONValue = [
                "time": .string(time),
                "direction": .string(direction.rawValue),
                "bytes": .int(Int64(frame.count)),
                "frame": .string(String(decoding: written, as: UTF8.self)),
            ]
            var line = JSONWriter.encode(entry)
            line.append(UInt8(ascii: "\n"))
            Self.writeAll(line, to: descriptor)
        }
    }

    /// Writes a line that is not a frame: `{"time", "direction": "note", ...members}`.
    public func note(_ members: JSONObject) {
        let time = UTCTimestamp.now()
        queue.async { [descriptor] in
            var entry: JSONObject = ["time": .string(time), "direction": "note"]
            entry.merge(members) { $1 }
            var line = JSONWriter.encode(.object(entry))
            line.append(UInt8(ascii: "\n"))
            Self.writeAll(line, to: descriptor)
        }
    }

    /// Writes an HTTP exchange the bridge made: `{"time", "direction": "http", ...members}`,
    /// the API keys masked in it; a redacted recording's user values are taken out of its `url`
    /// (as path segments and query values) and out of its strings (`TraceRedaction`).
    public func exchange(_ members: JSONObject) {
        let time = UTCTimestamp.now()
        queue.async { [descriptor, keys, redaction] in
            var exchange = members
            if !keys.isEmpty {
                for (key, member) in exchange { exchange[key] = keys.replacing(inValue: member).0 }
            }
            if let redaction { exchange = redaction.redact(exchange: exchange) }
            var entry: JSONObject = ["time": .string(time), "direction": "http"]
            entry.merge(exchange) { $1 }
            var line = JSONWriter.encode(.object(entry))
            line.append(UInt8(ascii: "\n"))
            Self.writeAll(line, to: descriptor)
        }
    }

    /// The API keys a `configure` (alone or in a batch) sends.
    static func apiKeys(in frame: [UInt8]) -> [String] {
        guard frame.firstRange(of: Array("apiKey".utf8)) != nil, let message = try? JSONDecoding.decode(frame) else {
            return []
        }
        let messages: [JSONValue] = if case .array(let elements) = message { elements } else { [message] }
        return messages.compactMap { message in
            guard message["method"] == "configure", case .string(let key)? = message["params"]?["apiKey"] else {
                return nil
            }
            return key
        }
    }

    /// What follows the first four characters of a masked secret.
    public static let maskMark = "…(masked)"

    /// `secret` as a trace shows it: its first four characters and the mark.
    public static func masked(_ secret: String) -> String {
        String(secret.prefix(4)) + maskMark
    }

    /// `frame` with the string value of each member named in `keys` (quoted) cut to its
    /// first four characters and a mark. A scan of the text, not a parse: the frame is
    /// recorded as it was sent, byte for byte, but for the masked values.
    static func masking(_ keys: [[UInt8]], in frame: [UInt8]) -> [UInt8] {
        guard !keys.isEmpty else { return frame }
        var result: [UInt8] = []
        var copied = 0
        var index = 0
        func skipSpace(_ position: inout Int) {
            while position < frame.count, [0x20, 0x09, 0x0A, 0x0D].contains(frame[position]) { position += 1 }
        }
        scanning: while index < frame.count {
            for key in keys where frame[index] == key[0] && frame[index...].starts(with: key) {
                var cursor = index + key.count
                skipSpace(&cursor)
                guard cursor < frame.count, frame[cursor] == UInt8(ascii: ":") else { continue }
                cursor += 1
                skipSpace(&cursor)
                guard cursor < frame.count, frame[cursor] == UInt8(ascii: "\"") else { continue }
                let start = cursor + 1
                var end = start
                while end < frame.count, frame[end] != UInt8(ascii: "\"") {
                    end += frame[end] == UInt8(ascii: "\\") ? 2 : 1
                }
                let kept = min(4, end - start)
                result.append(contentsOf: frame[copied..<(start + kept)])
                result.append(contentsOf: Array(Self.maskMark.utf8))
                copied = min(end, frame.count)
                index = copied
                continue scanning
            }
            index += 1
        }
        guard copied > 0 else { return frame }
        result.append(contentsOf: frame[copied...])
        return result
    }

    /// Writes all of `line`: a write may take part of a large one, or be interrupted.
    private static func writeAll(_ line: [UInt8], to descriptor: Int32) {
        line.withUnsafeBytes { bytes in
            var offset = 0
            while offset < bytes.count {
                let written = write(descriptor, bytes.baseAddress! + offset, bytes.count - offset)
                if written > 0 {
                    offset += written
                } else if written < 0, errno == EINTR {
                    continue
                } else {
                    return
                }
            }
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
