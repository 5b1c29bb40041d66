import BridgeServer
import Foundation
import JSONRPC

/// A session recorded with `--record`: its frames in order, the seed of its random draws, and
/// how many HTTP exchanges it holds.
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
    var randomSeed: UInt64?
    var frames: [Frame] = []
    /// How many HTTP exchanges of the bridge's it holds (lines `"direction": "http"`), which
    /// the replayed bridge is answered from.
    var httpExchanges = 0

    init(path: String) throws {
        self.path = path
        guard let data = FileManager.default.contents(atPath: path) else {
            throw Problem(description: "cannot read the recording \(path)")
        }
        var sawHeader = false
        let times = ISO8601DateFormatter()
        times.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
        for (index, line) in String(decoding: data, as: UTF8.self).split(separator: "\n").enumerated() {
            let entry: JSONValue
            do {
                entry = try JSONDecoding.decode(String(line))
            } catch {
                throw Problem(description: "\(path):\(index + 1): not a line of a recording (\(error))")
            }
            guard case .string(let direction) = entry["direction"] else {
                throw Problem(description: "\(path):\(index + 1): no direction")
            }
            if direction == "note" {
                guard entry["recording"] != nil else { continue }
                sawHeader = true
                switch entry["randomSeed"] {
                case .uint(let seed): randomSeed = seed
                case .int(let seed): randomSeed = UInt64(bitPattern: seed)
                default: randomSeed = nil
                }
                continue
            }
            if direction == "http" {
                httpExchanges += 1
                continue
            }
            guard let kind = Frame.Direction(rawValue: direction), case .string(let text) = entry["frame"] else {
                throw Problem(description: "\(path):\(index + 1): a frame line needs direction in or out, and frame")
            }
            let time: Date? = if case .string(let stamp) = entry["time"] { times.date(from: stamp) } else { nil }
            frames.append(
                Frame(direction: kind, time: time, message: try? JSONDecoding.decode(text), text: text, line: index + 1)
            )
        }
        guard sawHeader else {
            throw Problem(
                description:
                    "\(path) is not a recording: its first line names no recording (a --trace file? record with --record)"
            )
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
            self = .bridgeMessage(method: method, isRequest: message["id"] != nil)
        } else if let id = message["id"] {
            self = .response(id)
        } else {
            return nil
        }
    }

    var description: String {
        switch self {
        case .response(let id): "the answer to request \(String(decoding: JSONWriter.encode(id), as: UTF8.self))"
        case .bridgeMessage(let method, true): "the bridge's request \(method)"
        case .bridgeMessage(let method, false): "the notification \(method)"
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
                let childPath = "\(path).\(key)"
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
        let text = String(decoding: JSONWriter.encode(value), as: UTF8.self)
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
