import Foundation
import JSONRPC
import Synchronization

/// A fresh bridge, this same executable serving newline-delimited JSON on pipes, that a replay
/// feeds the recorded client's frames and whose own frames it collects. Its HTTP requests are
/// answered from the recording, never by the network.
final class ReplayedBridge: Sendable {
    private let process: Process
    private let input: FileHandle
    /// The frames the bridge sent that a replay has not matched yet, in the order they came.
    private let unmatched = Mutex<[JSONValue]>([])
    private let arrived = DispatchSemaphore(value: 0)
    private let ended = Atomic(false)

    /// A bridge answered from `recording` (of at most `limit` bytes), whose every session
    /// keeps its data in `dataDirectory`, whatever its `configure` names.
    init(answeringHTTPFrom recording: String, limit: Int, dataDirectory: String) throws {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: Self.executable)
        process.arguments = [
            "serve", "--framing", "ndjson", "--answer-http-from", recording, "--answer-http-limit", String(limit),
            "--replay-data-directory", dataDirectory,
        ]
        let toBridge = Pipe()
        let fromBridge = Pipe()
        process.standardInput = toBridge
        process.standardOutput = fromBridge
        process.standardError = FileHandle.nullDevice
        try process.run()
        self.process = process
        input = toBridge.fileHandleForWriting
        let output = fromBridge.fileHandleForReading
        let reader = Thread { [self] in readFrames(from: output) }
        reader.name = "replay reader"
        reader.start()
    }

    /// This executable, wherever it was started from.
    private static var executable: String {
        (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe")) ?? CommandLine.arguments[0]
    }

    private func readFrames(from output: FileHandle) {
        var pending: [UInt8] = []
        while true {
            let data = output.availableData
            if data.isEmpty { break }
            pending.append(contentsOf: data)
            while let newline = pending.firstIndex(of: 0x0A) {
                let line = Array(pending[..<newline])
                pending.removeSubrange(...newline)
                guard let message = try? JSONDecoding.decode(line) else { continue }
                unmatched.withLock { $0.append(message) }
                arrived.signal()
            }
        }
        ended.store(true, ordering: .releasing)
        arrived.signal()
    }

    func send(_ text: String) {
        input.write(Data((text + "\n").utf8))
    }

    func send(_ message: JSONValue) {
        send(String(decoding: JSONWriter.encode(message), as: UTF8.self))
    }

    /// The first unmatched frame `matches` accepts, waiting up to `limit` for it.
    func take(within limit: Duration, where matches: (JSONValue) -> Bool) -> JSONValue? {
        let deadline = ContinuousClock.now + limit
        while true {
            let found = unmatched.withLock { frames -> JSONValue? in
                guard let index = frames.firstIndex(where: matches) else { return nil }
                return frames.remove(at: index)
            }
            if let found { return found }
            let left = deadline - .now
            guard left > .zero, !ended.load(ordering: .acquiring) || hasMatch(matches) else { return nil }
            let (seconds, attoseconds) = left.components
            _ = arrived.wait(
                timeout: .now() + .nanoseconds(Int(seconds) * 1_000_000_000 + Int(attoseconds / 1_000_000_000))
            )
        }
    }

    private func hasMatch(_ matches: (JSONValue) -> Bool) -> Bool {
        unmatched.withLock { $0.contains(where: matches) }
    }

    /// Closes the bridge's input, waits for it to exit (within `limit`, or ends it), and
    /// answers the frames it sent that were never matched.
    func finish(within limit: Duration) -> [JSONValue] {
        try? input.close()
        let exited = DispatchSemaphore(value: 0)
        let waiter = Thread { [process] in
            process.waitUntilExit()
            exited.signal()
        }
        waiter.start()
        if exited.wait(timeout: .now() + .seconds(Int(limit.components.seconds))) == .timedOut {
            process.terminate()
            exited.wait()
        }
        // Its output ends with it; every frame it sent is read by then.
        while !ended.load(ordering: .acquiring) { _ = arrived.wait(timeout: .now() + .milliseconds(100)) }
        return unmatched.withLock { $0 }
    }
}
