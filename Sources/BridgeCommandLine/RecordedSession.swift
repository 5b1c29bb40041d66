import BridgeServer
import Foundation
import JSONRPC

/// A session recorded with `--record`: the seed of its random draws, how many frames and
/// HTTP exchanges it holds, and its frames in order, read from the file as they are replayed
/// (`RecordingLines`), never held whole.
struct RecordedSession {
    struct Frame {
        enum Direction: String {
            case incoming = "in"
            case outgoing = "out"
        }

        let direction: Direction
        /// When the bridge read or wrote it.
        let time: Date?
        /// The message; nil for input that was not JSON, which is replayed as its text.
        let message: JSONValue?
        let text: String
        /// Its line in the recording, from 1.
        let line: Int
    }

    struct Problem: Error, CustomStringConvertible {
        let description: String
    }

    let path: String
    /// The largest recording read, in bytes.
    let limit: Int
    var randomSeed: UInt64?
    /// How many frames, in and out, it holds.
    var frameCount = 0
    /// How many HTTP exchanges of the bridge's it holds (lines `"direction": "http"`), which
    /// the replayed bridge is answered from.
    var httpExchanges = 0

    /// Reads the recording through once, checking every line, and keeps only its header and
    /// its counts.
    init(path: String, limit: Int = RecordingLines.defaultLimit) throws {
        self.path = path
        self.limit = limit
        let lines = RecordingLines(path: path, limit: limit)
        try lines.check()
        var sawHeader = false
        var reading = lines.makeIterator()
        var number = 0
        while let line = reading.next() {
            number += 1
            switch try Self.entry(line, number: number, path: path) {
            case .header(let seed):
                sawHeader = true
                randomSeed = seed
            case .exchange: httpExchanges += 1
            case .frame: frameCount += 1
            case .otherNote: break
            }
        }
        if let failure = reading.failure { throw Problem(description: "\(failure)") }
        guard sawHeader else {
            throw Problem(
                description:
                    "\(TerminalText.escaped(path)) is not a recording: its first line names no recording (a --trace file? record with --record)"
            )
        }
    }

    private enum Entry {
        case header(randomSeed: UInt64?)
        case otherNote
        case exchange
        case frame(Frame.Direction, text: String, time: String?)
    }

    private static func entry(_ line: [UInt8], number: Int, path: String) throws -> Entry {
        let entry: JSONValue
        do {
            entry = try JSONDecoding.decode(line)
        } catch {
            throw Problem(description: "\(TerminalText.escaped(path)):\(number): not a line of a recording (\(error))")
        }
        guard case .string(let direction) = entry["direction"] else {
            throw Problem(description: "\(TerminalText.escaped(path)):\(number): no direction")
        }
        switch direction {
        case "note":
            guard entry["recording"] != nil else { return .otherNote }
            switch entry["randomSeed"] {
            case .uint(let seed): return .header(randomSeed: seed)
            case .int(let seed): return .header(randomSeed: UInt64(bitPattern: seed))
            default: return .header(randomSeed: nil)
            }
        case "http":
            return .exchange
        default:
            guard let kind = Frame.Direction(rawValue: direction), case .string(let text) = entry["frame"] else {
                throw Problem(
                    description:
                        "\(TerminalText.escaped(path)):\(number): a frame line needs direction in or out, and frame"
                )
            }
            let time: String? = if case .string(let stamp) = entry["time"] { stamp } else { nil }
            return .frame(kind, text: text, time: time)
        }
    }

    /// The frames, in order, read from the file again as they are asked for.
    func frames() -> Frames {
        Frames(lines: RecordingLines(path: path, limit: limit).makeIterator(), path: path)
    }

    struct Frames: Sequence, IteratorProtocol {
        fileprivate var lines: RecordingLines.Iterator
        fileprivate let path: String
        private var number = 0
        private let times: ISO8601DateFormatter = {
            let times = ISO8601DateFormatter()
            times.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
            return times
        }()

        fileprivate init(lines: RecordingLines.Iterator, path: String) {
            self.lines = lines
            self.path = path
        }

        /// The next frame; a line that is not one (the header, an HTTP exchange, one that
        /// changed since it was checked) is passed over.
        mutating func next() -> Frame? {
            while let line = lines.next() {
                number += 1
                guard
                    case .frame(let direction, let text, let stamp)? = try? RecordedSession.entry(
                        line,
                        number: number,
                        path: path
                    )
                else { continue }
                return Frame(
                    direction: direction,
                    time: stamp.flatMap(times.date(from:)),
                    message: try? JSONDecoding.decode(text),
                    text: text,
                    line: number
                )
            }
            return nil
        }
    }
}

/// A message's place in the conversation, by which a replayed frame is matched to a recorded one.
enum MessageIdentity: Equatable, CustomStringConvertible {
    /// The answer to the client's request with this id.
    case response(JSONValue)
    /// The bridge's request or notification of this method, matched in order.
    case bridgeMessage(method: String, isRequest: Bool)

    init?(_ message: JSONValue) {
        if case .string(let method) = message["method"] {
            // The delegate's events are matched by their name too: one the SDK tracks in the
            // background (an implicit trigger's) may come before or after a call's own.
            if method == "delegate/handleSuperwallEvent", case .string(let name)? = message["params"]?["event"]?["name"]
            {
                self = .bridgeMessage(method: "\(method) \(name)", isRequest: false)
                return
            }
            self = .bridgeMessage(method: method, isRequest: message["id"] != nil)
        } else if let id = message["id"] {
            self = .response(id)
        } else {
            return nil
        }
    }

    var description: String {
        switch self {
        case .response(let id):
            "the answer to request \(TerminalText.escaped(String(decoding: JSONWriter.encode(id), as: UTF8.self)))"
        case .bridgeMessage(let method, true): "the bridge's request \(TerminalText.escaped(method))"
        case .bridgeMessage(let method, false): "the notification \(TerminalText.escaped(method))"
        }
    }
}

/// What a replay compares of a frame: all of it but what differs from run to run without being
/// a decision.
enum ReplayNormalization {
    /// The members whose values are readings of the clock or of elapsed time.
    static func isTimeMember(_ name: String) -> Bool {
        let lowered = name.lowercased()
        return name.hasSuffix("Ms") || name.hasSuffix("At") || lowered.hasSuffix("_at") || lowered.hasSuffix("time")
            || lowered.hasSuffix("timestamp") || lowered.hasSuffix("date") || lowered.hasSuffix("seconds")
            || lowered.hasSuffix("duration")
    }

    /// `value` with every time (ISO 8601, and the members that hold times) made `<time>`, the
    /// data directory `<data directory>`, every UUID `<uuid>`, and the bridge's request ids
    /// (`sw-N`) `<id>`.
    static func normalized(_ value: JSONValue, member: String? = nil) -> JSONValue {
        if let member, isTimeMember(member), !value.isContainer { return "<time>" }
        // The replay's data directory is its own.
        if member == "dataDirectory", !value.isContainer { return "<data directory>" }
        switch value {
        case .string(let text):
            if member == "id", text.hasPrefix("sw-") { return "<id>" }
            // A base64 payload (a paywall page's `accept64`) is compared as what it holds:
            // its times and ids differ from run to run as any others do.
            if let member, member.hasSuffix("64"), let data = Data(base64Encoded: text),
                let decoded = String(data: data, encoding: .utf8)
            {
                if let payload = try? JSONDecoding.decode(decoded) { return ["base64": normalized(payload)] }
                return ["base64": .string(VaryingText.madeAlike(decoded))]
            }
            return .string(VaryingText.madeAlike(text))
        case .array(let elements):
            return .array(elements.map { normalized($0) })
        case .object(let members):
            var result = JSONObject()
            for (key, member) in members where key != "jsonrpc" { result[key] = normalized(member, member: key) }
            return .object(result)
        case .encoded(let text):
            return normalized(text.decoded, member: member)
        default:
            return value
        }
    }

    /// Where `recorded` and `replayed` first differ: the JSON path and both values.
    static func firstDifference(
        _ recorded: JSONValue,
        _ replayed: JSONValue,
        at path: String = "$"
    )
        -> (path: String, recorded: String, replayed: String)?
    {
        switch (recorded, replayed) {
        case (.object(let left), .object(let right)):
            // A decision's gates and outcome before its audiences' rule trees: the first
            // difference named is the gate that decided otherwise.
            let keys = Set(left.keys).union(right.keys).sorted {
                ($0 == "audiences" ? 1 : 0, $0) < ($1 == "audiences" ? 1 : 0, $1)
            }
            for key in keys {
                let childPath = "\(path).\(TerminalText.escaped(key))"
                guard let leftValue = left[key] else { return (childPath, "(absent)", text(right[key]!)) }
                guard let rightValue = right[key] else { return (childPath, text(leftValue), "(absent)") }
                if let difference = firstDifference(leftValue, rightValue, at: childPath) { return difference }
            }
            return nil
        case (.array(let left), .array(let right)):
            for index in 0..<max(left.count, right.count) {
                let childPath = "\(path)[\(index)]"
                guard index < left.count else { return (childPath, "(absent)", text(right[index])) }
                guard index < right.count else { return (childPath, text(left[index]), "(absent)") }
                if let difference = firstDifference(left[index], right[index], at: childPath) { return difference }
            }
            return nil
        default:
            return recorded == replayed ? nil : (path, text(recorded), text(replayed))
        }
    }

    private static func text(_ value: JSONValue) -> String {
        let text = TerminalText.escaped(String(decoding: JSONWriter.encode(value), as: UTF8.self))
        return text.count > 300 ? String(text.prefix(300)) + " …" : text
    }
}

extension JSONValue {
    fileprivate var isContainer: Bool {
        switch self {
        case .array, .object: true
        default: false
        }
    }
}
