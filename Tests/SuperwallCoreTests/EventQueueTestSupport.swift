import Executors
import Foundation
import Testing

@testable import SuperwallCore

/// A sink that keeps what it is given, refusing some indexes or failing when told to.
final class RecordingSink: EventSink, @unchecked Sendable {
    private let lock = NSLock()
    private var batches: [[String]] = []
    var refuse: Set<Int> = []
    var failing = false
    func deliver(_ events: [[UInt8]]) async throws -> Set<Int> {
        try lock.withLock {
            if failing { throw URLError(.notConnectedToInternet) }
            batches.append(events.map { String(decoding: $0, as: UTF8.self) })
            return refuse
        }
    }
    var delivered: [[String]] { lock.withLock { batches } }
    var names: [String] {
        delivered.joined().compactMap { text in
            (try? JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: Any])?["event_name"] as? String
        }
    }
}

/// A sink whose first delivery waits until `release()`; it records what it delivers.
final class HeldSink: EventSink, @unchecked Sendable {
    let firstBatchArrived = OneShot<Void>()
    private let released = OneShot<Void>()
    private let recording = RecordingSink()

    func deliver(_ events: [[UInt8]]) async throws -> Set<Int> {
        firstBatchArrived.resolve(())
        await released.value
        return try await recording.deliver(events)
    }

    func release() { released.resolve(()) }
    var names: [String] { recording.names }
}
