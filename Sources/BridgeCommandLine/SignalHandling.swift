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

    /// The longest the handlers are waited for before serving anyway.
    static let registrationBound: DispatchTimeInterval = .seconds(5)

    /// Installs the handlers, and returns once they are in place; keep the answer alive while
    /// serving. A dispatch source is registered with the system after `resume()` returns, on
    /// libdispatch's own thread: until then a signal ignored at the process level is lost, and
    /// on a loaded machine a parent that sent SIGTERM once the first answer was out (as soon as
    /// it can know we are up) was ignored for good.
    static func stop(_ connection: Connection, logger: Logger) -> [any DispatchSourceSignal] {
        let received = Received()
        let registered = DispatchGroup()
        let sources = signals.map { number in
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
            registered.enter()
            source.setRegistrationHandler { registered.leave() }
            source.resume()
            return source
        }
        if registered.wait(timeout: .now() + registrationBound) == .timedOut {
            logger.warning(
                "the signal handlers were not in place within \(registrationBound): serving anyway; a SIGTERM, SIGINT or SIGHUP until they are is ignored"
            )
        }
        return sources
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
