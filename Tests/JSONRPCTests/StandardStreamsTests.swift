import Foundation
import JSONRPC
import TestSupport
import Testing

@Suite struct StandardStreamsTests {
    /// Stand-ins for descriptors 0, 1 and 2, so the test can guard them without touching the
    /// test runner's own standard streams.
    @Test func strayWritesToStdoutGoToStderrAndTheProtocolKeepsItsOwnDescriptors() throws {
        let stdin = Pipe2()
        let stdout = Pipe2()
        let stderr = Pipe2()
        let descriptors = try StandardStreams.protect(input: stdin.read, output: stdout.write, errors: stderr.write)
        defer {
            close(descriptors.input)
            close(descriptors.output)
        }
        // A careless print: it lands on stderr.
        _ = "stray\n".withCString { write(stdout.write, $0, 6) }
        // The protocol's descriptor still reaches the real stdout.
        _ = "frame\n".withCString { write(descriptors.output, $0, 6) }
        // Input sent by the client reaches the protocol's descriptor, not the old one.
        _ = "input\n".withCString { write(stdin.write, $0, 6) }

        func readSome(_ descriptor: Int32) -> String {
            var buffer = [UInt8](repeating: 0, count: 64)
            let count = read(descriptor, &buffer, 64)
            return String(decoding: buffer.prefix(max(0, count)), as: UTF8.self)
        }
        #expect(readSome(stderr.read) == "stray\n")
        #expect(readSome(stdout.read) == "frame\n")
        #expect(readSome(descriptors.input) == "input\n")
        // The old stdin now reads from /dev/null: end of file at once.
        var byte: UInt8 = 0
        #expect(read(stdin.read, &byte, 1) == 0)
        #expect(fcntl(descriptors.output, F_GETFD) & FD_CLOEXEC != 0)
    }
}
