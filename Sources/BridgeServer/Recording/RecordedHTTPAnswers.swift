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
public final class RecordedHTTPAnswers: HTTPTransport {
    private struct Answers {
        var outcomes: [HTTPOutcome]
        var next = 0
    }

    private let answers: Mutex<[String: Answers]>

    /// The exchanges of the recording at `path`.
    public init(path: String) throws {
        guard let data = FileManager.default.contents(atPath: path) else {
            throw Problem(description: "cannot read the recording \(path)")
        }
        var byKey: [String: Answers] = [:]
        for line in data.split(separator: UInt8(ascii: "\n")) {
            guard let entry = try? JSONDecoding.decode(Array(line)), entry["direction"] == "http",
                let (key, outcome) = HTTPExchangeRecording.outcome(of: entry)
            else { continue }
            byKey[key, default: Answers(outcomes: [])].outcomes.append(outcome)
        }
        answers = Mutex(byKey)
    }

    /// How many exchanges the recording holds.
    public var count: Int { answers.withLock { $0.values.reduce(0) { $0 + $1.outcomes.count } } }

    public func send(_ attempt: HTTPAttempt) async throws -> HTTPOutcome {
        let key = HTTPExchangeRecording.matchingKey(method: attempt.method, url: attempt.url.absoluteString)
        let outcome = answers.withLock { answers -> HTTPOutcome? in
            guard var found = answers[key] else { return nil }
            let outcome = found.outcomes[min(found.next, found.outcomes.count - 1)]
            found.next += 1
            answers[key] = found
            return outcome
        }
        guard let outcome else {
            return .failed(.transport("the recording holds no answer for \(key)"))
        }
        if case .noAnswer = outcome {
            try await DeadlineTimer.sleep(for: attempt.timeout)
        }
        return outcome
    }

    public struct Problem: Error, CustomStringConvertible {
        public let description: String
    }
}
