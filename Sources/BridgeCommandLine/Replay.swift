import ArgumentParser
import BridgeServer
import Foundation
import JSONRPC

struct Replay: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Replay a session recorded with --record, and say whether the bridge still does the same.",
        discussion: """
            Feeds the recorded client's frames to a fresh bridge in a new data directory, answers the bridge's own \
            requests (purchases, presentations, callbacks) with the recorded replies, moves its clock as the \
            recording's did and draws from the recorded seed, and compares every frame the bridge sends with the \
            recorded one. Times (ISO 8601 strings and the members that hold times or durations) and the bridge's \
            request ids are not compared, nor delegate/handleLog. Prints "identical" and exits 0, or prints the \
            first difference (the frame, the JSON path, the recorded and the replayed value) and exits 1. With \
            --config, the session is replayed against that config file instead of the recorded config source: \
            what would this user have seen with the edit? Exits 2 when the recording cannot be replayed.
            """
    )

    @Argument(help: "The recording (superwall-bridge --record FILE).")
    var recording: String

    @Option(name: .long, help: "Replay against this config file (a static_config response body).")
    var config: String?

    @Flag(name: .long, help: "Fail (exit 2) when the recording was made by another version of the bridge.")
    var bridgeVersionCheck = false

    @Option(name: .long, help: "How long to wait for each frame the recording says the bridge sent, in seconds.")
    var frameTimeout: Double = 10

    @Option(name: .long, help: "The largest recording replayed, in bytes; a larger one is refused before it is read.")
    var maxRecordingSize = RecordingLines.defaultLimit

    func validate() throws {
        guard frameTimeout > 0, frameTimeout <= 3600 else {
            throw ValidationError("--frame-timeout must be more than 0 and at most 3600 seconds.")
        }
        guard maxRecordingSize > 0 else { throw ValidationError("--max-recording-size must be positive.") }
    }

    func run() throws {
        let session: RecordedSession
        do {
            session = try RecordedSession(path: recording, limit: maxRecordingSize)
        } catch {
            FileHandle.standardError.write(Data("replay: \(TerminalText.escapedLines("\(error)"))\n".utf8))
            throw ExitCode(2)
        }
        var replay = SessionReplay(
            session: session,
            config: config.map { URL(fileURLWithPath: $0).path },
            checksVersion: bridgeVersionCheck,
            frameTimeout: .milliseconds(Int(frameTimeout * 1000))
        )
        switch replay.run() {
        case .identical(let compared):
            print("identical: \(compared) frames from the bridge compared, \(session.frameCount) frames in all")
        case .different(let report):
            print(TerminalText.escapedLines(report))
            throw ExitCode(1)
        case .unplayable(let reason):
            FileHandle.standardError.write(Data("replay: \(TerminalText.escapedLines(reason))\n".utf8))
            throw ExitCode(2)
        }
    }
}

/// One replay of a recorded session against a fresh bridge.
struct SessionReplay {
    enum Outcome {
        case identical(compared: Int)
        case different(String)
        case unplayable(String)
    }

    let session: RecordedSession
    let config: String?
    let checksVersion: Bool
    let frameTimeout: Duration

    /// The bridge's request ids as recorded, by the replayed bridge's ids.
    private var bridgeRequestIds: [JSONValue: JSONValue] = [:]
    /// The clock's reading at the last frame fed, once `configure` has made it manual.
    private var lastClockReading: Date?
    private var clockAdvances = 0

    /// The least lag of the replayed clock behind the recorded one that a replay catches up.
    static let clockStep: TimeInterval = 0.05

    init(session: RecordedSession, config: String?, checksVersion: Bool, frameTimeout: Duration) {
        self.session = session
        self.config = config
        self.checksVersion = checksVersion
        self.frameTimeout = frameTimeout
    }

    mutating func run() -> Outcome {
        let directory: String
        do {
            directory = try Self.privateDirectory()
        } catch {
            return .unplayable("cannot make a data directory for the replay: \(error)")
        }
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let bridge: ReplayedBridge
        do {
            bridge = try ReplayedBridge(
                answeringHTTPFrom: session.path,
                limit: session.limit,
                dataDirectory: directory + "/data"
            )
        } catch {
            return .unplayable("cannot start a bridge: \(error)")
        }
        var outcome = feed(bridge, dataDirectory: directory + "/data")
        let leftovers = bridge.finish(within: .seconds(10))
        if case .identical = outcome, let extra = leftovers.first(where: Self.isCompared) {
            let text = String(decoding: JSONWriter.encode(extra), as: UTF8.self)
            outcome = .different(
                "after the last frame: the bridge sent a frame the recording does not have: \(text.prefix(300))"
            )
        }
        return outcome
    }

    /// A new directory only this user can open, for the replayed bridge's data: never the
    /// default one, nor one the recording names.
    private static func privateDirectory() throws -> String {
        var template = Array((FileManager.default.temporaryDirectory.path + "/replay-XXXXXX").utf8CString)
        guard let made = mkdtemp(&template) else { throw POSIXError(POSIXErrorCode(rawValue: errno) ?? .EIO) }
        return String(cString: made)
    }

    private mutating func feed(_ bridge: ReplayedBridge, dataDirectory: String) -> Outcome {
        var compared = 0
        var configureId: JSONValue?
        var frames = session.frames()
        while let frame = frames.next() {
            switch frame.direction {
            case .incoming:
                guard let message = frame.message else {
                    bridge.send(frame.text)
                    continue
                }
                // A batch's members are read as the bridge reads them, one by one.
                let members: [JSONValue] = if case .array(let members) = message { members } else { [message] }
                var sent: [JSONValue] = []
                for var member in members {
                    if case .string("configure") = member["method"] {
                        guard let rewritten = rewrittenConfigure(member, dataDirectory: dataDirectory) else {
                            return .unplayable(
                                "line \(frame.line): the session's config came from the Superwall API, and the recording holds none of its HTTP exchanges; replay it with --config FILE"
                            )
                        }
                        member = rewritten
                        configureId = member["id"]
                    } else if case .string("shutdown") = member["method"] {
                        // The bridge refuses other requests from now on, the clock's included.
                        lastClockReading = nil
                    }
                    if member["method"] == nil, let id = member["id"], let replayed = bridgeRequestIds[id] {
                        member = member.setting("id", to: replayed)
                    }
                    sent.append(member)
                }
                let holdsConfigureOrShutdown = members.contains {
                    $0["method"] == "configure" || $0["method"] == "shutdown"
                }
                if !holdsConfigureOrShutdown, let reading = frame.time {
                    if let outcome = advanceClock(of: bridge, to: reading) { return outcome }
                }
                bridge.send(message.isBatch ? .array(sent) : sent[0])
            case .outgoing:
                guard let recorded = frame.message, let identity = MessageIdentity(recorded) else { continue }
                if case .bridgeMessage("delegate/handleLog", _) = identity { continue }
                guard let replayed = bridge.take(within: frameTimeout, where: { MessageIdentity($0) == identity })
                else {
                    let missing = "line \(frame.line): the bridge did not send \(identity) the recording has"
                    return .different(missing + divergence(in: &frames, of: bridge))
                }
                if case .bridgeMessage(_, true) = identity, let recordedId = recorded["id"], let id = replayed["id"] {
                    bridgeRequestIds[recordedId] = id
                }
                if let outcome = versionCheck(recorded, replayed) { return outcome }
                if let difference = ReplayNormalization.firstDifference(
                    ReplayNormalization.normalized(Self.withoutBuild(recorded)),
                    ReplayNormalization.normalized(Self.withoutBuild(replayed))
                ) {
                    return .different(
                        """
                        line \(frame.line): \(identity) differs at \(difference.path)
                          recorded: \(difference.recorded)
                          replayed: \(difference.replayed)
                        """
                    )
                }
                compared += 1
                if case .response(let id) = identity, id == configureId {
                    lastClockReading = frame.time
                }
            }
        }
        return .identical(compared: compared)
    }

    /// The frame without what describes the bridge's build rather than its behaviour:
    /// `initialize`'s server, SDK version and method list (`--bridge-version-check` compares
    /// the version).
    private static func withoutBuild(_ frame: JSONValue) -> JSONValue {
        guard case .object(var result)? = frame["result"], result["protocolVersion"] != nil else { return frame }
        for key in ["server", "sdkVersion", "methods"] { result[key] = nil }
        return frame.setting("result", to: .object(result))
    }

    /// Whether a frame the bridge sent is one a replay compares: not a log line, not the
    /// answer to the replay's own clock requests.
    private static func isCompared(_ frame: JSONValue) -> Bool {
        guard let identity = MessageIdentity(frame) else { return true }
        if case .bridgeMessage("delegate/handleLog", _) = identity { return false }
        if case .response(.string(let id)) = identity, id.hasPrefix("replay-") { return false }
        return true
    }

    /// What the bridge answered instead: the first later answer the recording has that the
    /// bridge already sent, and where it differs (a decision, most often).
    private func divergence(in later: inout RecordedSession.Frames, of bridge: ReplayedBridge) -> String {
        while let frame = later.next() {
            guard frame.direction == .outgoing else { continue }
            guard let recorded = frame.message, let identity = MessageIdentity(recorded),
                case .response = identity,
                let replayed = bridge.take(within: .zero, where: { MessageIdentity($0) == identity })
            else { continue }
            guard
                let difference = ReplayNormalization.firstDifference(
                    ReplayNormalization.normalized(recorded),
                    ReplayNormalization.normalized(replayed)
                )
            else { continue }
            return """
                ; instead, \(identity) (line \(frame.line)) came and differs at \(difference.path)
                  recorded: \(difference.recorded)
                  replayed: \(difference.replayed)
                """
        }
        return ""
    }

    /// `configure` as the replay sends it: a new data directory, the manual clock, the recorded
    /// seed, and the config file given instead of the recorded source. Nil when the source is
    /// the Superwall API and no file was given.
    private func rewrittenConfigure(_ message: JSONValue, dataDirectory: String) -> JSONValue? {
        guard case .object(let params)? = message["params"] else { return message }
        var options: JSONObject = if case .object(let options)? = params["options"] { options } else { [:] }
        if let config {
            options["configSource"] = ["type": "file", "path": .string(config), "watch": false]
        } else {
            let type: JSONValue? =
                if case .object(let source)? = options["configSource"] { source["type"] } else { nil }
            guard type == "file" || type == "embedded" || session.httpExchanges > 0 else { return nil }
        }
        options["dataDirectory"] = .string(dataDirectory)
        options["clock"] = "manual"
        if options["randomSeed"] == nil, let seed = session.randomSeed {
            options["randomSeed"] = .int(Int64(bitPattern: seed))
        }
        var rewritten = params
        rewritten["options"] = .object(options)
        return message.setting("params", to: .object(rewritten))
    }

    /// Moves the replayed bridge's clock on to where the recorded one read `reading`, once it
    /// is `clockStep` or more behind: what a session decides by the clock (occurrence windows,
    /// session timeouts, expiries) is in seconds and minutes, and a round trip for every frame
    /// would make a replay as slow as the session.
    private mutating func advanceClock(of bridge: ReplayedBridge, to reading: Date) -> Outcome? {
        guard let last = lastClockReading else { return nil }
        let seconds = reading.timeIntervalSince(last)
        guard seconds >= Self.clockStep else { return nil }
        lastClockReading = reading
        clockAdvances += 1
        let id = JSONValue.string("replay-\(clockAdvances)")
        bridge.send([
            "jsonrpc": "2.0", "id": id, "method": "debug/advanceClock", "params": ["seconds": .double(seconds)],
        ])
        guard let answer = bridge.take(within: frameTimeout, where: { MessageIdentity($0) == .response(id) }) else {
            return .unplayable("the replayed bridge did not answer debug/advanceClock")
        }
        if let error = answer["error"] {
            let text = String(decoding: JSONWriter.encode(error), as: UTF8.self)
            return .unplayable("the replayed bridge's clock could not be moved on: \(text)")
        }
        return nil
    }

    /// With `--bridge-version-check`, a recording made by another version cannot be replayed.
    private func versionCheck(_ recorded: JSONValue, _ replayed: JSONValue) -> Outcome? {
        guard checksVersion, case .object(let result)? = recorded["result"], result["protocolVersion"] != nil,
            case .object(let server)? = result["server"], case .object(let now)? = replayed["result"]?["server"]
        else { return nil }
        guard server["version"] == now["version"] else {
            return .unplayable(
                "the recording was made by bridge \(server["version"].map { "\($0)" } ?? "?"), this is \(now["version"].map { "\($0)" } ?? "?")"
            )
        }
        return nil
    }
}

extension JSONValue {
    fileprivate var isBatch: Bool {
        if case .array = self { return true }
        return false
    }

    fileprivate func setting(_ key: String, to value: JSONValue) -> JSONValue {
        guard case .object(var members) = self else { return self }
        members[key] = value
        return .object(members)
    }
}
