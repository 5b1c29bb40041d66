import Executors
import Foundation
import JSONRPC
import SuperwallCore
import Synchronization

/// The HTTP exchanges of a recording, answering a replayed bridge's requests in their stead:
/// each attempt gets the next recorded outcome of the same method and URL (`matchingKey`),
/// in the order they were recorded. Past the last, the last is given again (a replay may
/// flush or poll once more than the session did); a request the recording never made fails
/// as a transport failure that says so. A recorded attempt that got no answer waits out the
/// attempt's time, as it did.
///
/// An answer comes no earlier, among the client's frames, than it came in the session: it
/// waits until the bridge has read as many of them as the recording has before the exchange
/// (`clientSent`), or until the attempt's time is out. A background request (the user's
/// assignments after `identify`, a poll of web entitlements) then lands between the same two
/// calls in every replay, instead of as soon as it is asked.
public final class RecordedHTTPAnswers: HTTPTransport {
    private struct Recorded {
        var outcome: HTTPOutcome
        /// How many of the client's frames the recording has before the exchange.
        var afterFrames: Int
    }

    private struct Answers {
        var recorded: [Recorded]
        var next = 0
    }

    /// The client's frames read so far, and the answers waiting for more of them.
    private struct Progress {
        var framesRead = 0
        var waiting: [(framesNeeded: Int, wake: OneShot<Void>)] = []
    }

    private let answers: Mutex<[String: Answers]>
    private let progress = Mutex(Progress())

    /// The exchanges of the recording at `path`, read a line at a time (`RecordingLines`),
    /// of a file of at most `limit` bytes.
    public init(path: String, limit: Int = RecordingLines.defaultLimit) throws {
        let lines = RecordingLines(path: path, limit: limit)
        try lines.check()
        var byKey: [String: Answers] = [:]
        var framesBefore = 0
        var reading = lines.makeIterator()
        while let line = reading.next() {
            guard let entry = try? JSONDecoding.decode(line) else { continue }
            if entry["direction"] == "in" {
                framesBefore += 1
                continue
            }
            guard entry["direction"] == "http", let (key, outcome) = HTTPExchangeRecording.outcome(of: entry)
            else { continue }
            byKey[key, default: Answers(recorded: [])].recorded.append(
                Recorded(outcome: outcome, afterFrames: framesBefore)
            )
        }
        if let failure = reading.failure { throw Problem(description: "\(failure)") }
        answers = Mutex(byKey)
    }

    /// How many answers wait for frames the bridge has not read yet.
    var answersWaiting: Int { progress.withLock { $0.waiting.count } }

    /// How many exchanges the recording holds.
    public var count: Int { answers.withLock { $0.values.reduce(0) { $0 + $1.recorded.count } } }

    /// The bridge has read `frame` from its client. The replay's own requests (ids
    /// `replay-N`, which move the clock) are not the session's and are not counted.
    public func clientSent(_ frame: [UInt8]) {
        if case .string(let id)? = (try? JSONDecoding.decode(frame))?["id"], id.hasPrefix("replay-") { return }
        let woken = progress.withLock { progress -> [OneShot<Void>] in
            progress.framesRead += 1
            let read = progress.framesRead
            let due = progress.waiting.filter { $0.framesNeeded <= read }.map(\.wake)
            progress.waiting.removeAll { $0.framesNeeded <= read }
            return due
        }
        for wake in woken { wake.resolve(()) }
    }

    public func send(_ attempt: HTTPAttempt) async throws -> HTTPOutcome {
        let key = HTTPExchangeRecording.matchingKey(method: attempt.method, url: attempt.url.absoluteString)
        let found = answers.withLock { answers -> Recorded? in
            guard var found = answers[key] else { return nil }
            let index = found.next
            found.next += 1
            answers[key] = found
            // An attempt past the recorded ones is not placed among the frames.
            guard index < found.recorded.count else {
                return Recorded(outcome: found.recorded[found.recorded.count - 1].outcome, afterFrames: 0)
            }
            return found.recorded[index]
        }
        guard let found else {
            return .failed(.transport("the recording holds no answer for \(key)"))
        }
        await waitForFrames(found.afterFrames, within: attempt.timeout)
        if case .noAnswer = found.outcome {
            try await DeadlineTimer.sleep(for: attempt.timeout)
        }
        return found.outcome
    }

    private func waitForFrames(_ needed: Int, within limit: Duration) async {
        let wake = OneShot<Void>()
        let isRead = progress.withLock { progress -> Bool in
            guard progress.framesRead < needed else { return true }
            progress.waiting.append((needed, wake))
            return false
        }
        guard !isRead else { return }
        let timer = DeadlineTimer(after: limit) { wake.resolve(()) }
        defer { timer.cancel() }
        await wake.value
    }

    public struct Problem: Error, CustomStringConvertible {
        public let description: String
    }
}
