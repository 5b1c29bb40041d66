import Dispatch
import JSONRPC
import Logging
import Synchronization

#if canImport(Glibc)
import Glibc
#endif

/// SIGTERM, SIGINT and SIGHUP end the session as end of input does: reading stops, what was
/// read is answered (bounded), events are flushed, and the process exits 0. A second signal
/// while that runs exits at once, with 128 + the signal's number.
enum SignalHandling {
    static let signals = [SIGTERM, SIGINT, SIGHUP]

    /// Installs the handlers; keep the answer alive while serving.
    static func stop(_ connection: Connection, logger: Logger) -> [any DispatchSourceSignal] {
        let received = Received()
        return signals.map { number in
            // Ignored at the process level, so only the dispatch source sees the signal.
            signal(number, SIG_IGN)
            let source = DispatchSource.makeSignalSource(signal: number, queue: .global())
            source.setEventHandler {
                if received.first() {
                    logger.notice("signal \(number): finishing what was read, then exiting")
                    connection.stopReading()
                } else {
                    _exit(128 + number)
                }
            }
            source.resume()
            return source
        }
    }

    private final class Received: Sendable {
        private let count = Mutex(0)

        /// True for the first signal only.
        func first() -> Bool {
            count.withLock { count in
                count += 1
                return count == 1
            }
        }
    }
}
