#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Keeps the protocol's descriptors out of reach of stray writes and reads.
///
/// The protocol gets private duplicates of stdin and stdout; descriptor 1 is then pointed at
/// stderr, so a `print` anywhere in the process lands in the log instead of corrupting the
/// stream, and descriptor 0 at `/dev/null`, so nothing else can steal input bytes.
/// (sourcekit-lsp does the same for stdout.)
public enum StandardStreams {
    public struct Descriptors: Sendable {
        public let input: Int32
        public let output: Int32
    }

    public struct GuardError: Error, CustomStringConvertible {
        public let operation: String
        public let code: Int32
        public var description: String { "\(operation) failed: \(String(cString: strerror(code)))" }
    }

    /// Moves the protocol to private descriptors. The parameters exist for tests; a program
    /// calls it with the defaults once, before any output.
    public static func protect(input: Int32 = 0, output: Int32 = 1, errors: Int32 = 2) throws -> Descriptors {
        let protocolInput = fcntl(input, F_DUPFD_CLOEXEC, 3)
        guard protocolInput >= 0 else { throw GuardError(operation: "dup(stdin)", code: errno) }
        let protocolOutput = fcntl(output, F_DUPFD_CLOEXEC, 3)
        guard protocolOutput >= 0 else { throw GuardError(operation: "dup(stdout)", code: errno) }
        guard dup2(errors, output) >= 0 else { throw GuardError(operation: "dup2(stderr, stdout)", code: errno) }
        let null = open("/dev/null", O_RDONLY | O_CLOEXEC)
        if null >= 0 {
            dup2(null, input)
            close(null)
        }
        return Descriptors(input: protocolInput, output: protocolOutput)
    }
}
