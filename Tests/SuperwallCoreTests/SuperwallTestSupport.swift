import Foundation
import Testing

@testable import SuperwallCore

/// A clock that stands still unless moved.
final class FakeClock: WallClock, @unchecked Sendable {
    private let lock = NSLock()
    private var current: Date
    init(_ start: Date = Date(timeIntervalSince1970: 1_790_000_000)) { current = start }
    func now() -> Date { lock.withLock { current } }
    func advance(by seconds: TimeInterval) { lock.withLock { current += seconds } }
}

/// Counts UUIDs so each alias is distinct and predictable.
final class CountingRandomSource: RandomSource, @unchecked Sendable {
    private let lock = NSLock()
    private var count = 0
    func uuid() -> UUID {
        lock.withLock {
            count += 1
            return UUID(uuidString: String(format: "00000000-0000-4000-8000-%012d", count))!
        }
    }
    func int(in range: Range<Int>) -> Int { range.lowerBound + 7 % range.count }
}

final class RecordingDelegate: SuperwallDelegate, @unchecked Sendable {
    private let lock = NSLock()
    private var recorded: [TrackedEvent] = []
    func handleSuperwallEvent(_ event: TrackedEvent) { lock.withLock { recorded.append(event) } }
    var names: [String] { lock.withLock { recorded.map(\.name) } }
    var events: [TrackedEvent] { lock.withLock { recorded } }
    func clear() { lock.withLock { recorded.removeAll() } }
}

struct InMemoryConfigSource: ConfigSource {
    var body: String
    func fetchConfig(_ request: ConfigRequest) async throws -> Data { Data(body.utf8) }
    var description: String { "test config" }
}

func temporaryDirectory() -> String {
    FileManager.default.temporaryDirectory.appendingPathComponent("superwall-\(UUID().uuidString)").path
}

func makeSuperwall(
    _ delegate: RecordingDelegate = RecordingDelegate(),
    clock: FakeClock = FakeClock()
) -> Superwall {
    Superwall(clock: clock, random: CountingRandomSource(), delegate: delegate)
}

/// Configures an instance and lets it go once its launch events' implicit triggers have
/// settled (until then they hold it, and its data directory).
func configureOnce(apiKey: String, options: Superwall.ConfigureOptions) async throws {
    let superwall = makeSuperwall()
    _ = try await superwall.configure(apiKey: apiKey, options: options)
    await superwall.awaitPresentationQueue()
}

func options(
    _ directory: String,
    source: any ConfigSource = EmbeddedConfigSource(),
    device: [String: JSON] = [:]
) -> Superwall.ConfigureOptions {
    Superwall.ConfigureOptions(configSource: source, dataDirectory: directory, device: device, shouldPreload: false)
}
