import Dispatch
import Synchronization

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Owns the output descriptor. Frames are queued without waiting and written, whole and in
/// order, by one serial queue, so a client that is slow to read never stalls the reader.
final class FrameWriter: Sendable {
    private let descriptor: Int32
    private let queue = DispatchQueue(label: "jsonrpc.writer")
    /// Set once a write fails (the client closed its end); later frames are dropped.
    private let broken = Atomic<Bool>(false)

    init(descriptor: Int32) {
        self.descriptor = descriptor
    }

    var isBroken: Bool { broken.load(ordering: .relaxed) }

    func enqueue(_ frame: [UInt8]) {
        queue.async { [self] in
            guard !isBroken else { return }
            if !Self.writeAll(frame, to: descriptor) {
                broken.store(true, ordering: .relaxed)
            }
        }
    }

    /// Waits until every frame queued so far is written, or `timeout` passes (a client that
    /// has stopped reading must not hold the process open). Returns whether it drained.
    @discardableResult
    func flush(timeout: Duration) -> Bool {
        let drained = DispatchSemaphore(value: 0)
        queue.async { drained.signal() }
        return drained.wait(timeout: .now() + .milliseconds(Int(timeout.milliseconds))) == .success
    }

    private static func writeAll(_ frame: [UInt8], to descriptor: Int32) -> Bool {
        frame.withUnsafeBytes { buffer in
            var offset = 0
            while offset < buffer.count {
                let written = write(descriptor, buffer.baseAddress! + offset, buffer.count - offset)
                if written >= 0 {
                    offset += written
                } else if errno == EINTR {
                    continue
                } else if errno == EAGAIN || errno == EWOULDBLOCK {
                    var pollDescriptor = pollfd(fd: descriptor, events: Int16(POLLOUT), revents: 0)
                    _ = poll(&pollDescriptor, 1, -1)
                } else {
                    return false
                }
            }
            return true
        }
    }
}
