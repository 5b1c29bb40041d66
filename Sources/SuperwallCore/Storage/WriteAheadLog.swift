import Foundation

/// What a SQLite write-ahead log holds, read the way SQLite reads it (its file format,
/// "The WAL File Format"): a 32-byte header, then frames of a 24-byte header and a page, each
/// frame's checksum running on from the one before.
///
/// SQLite treats a frame whose checksum fails as the end of the log, without a word: every
/// commit from there on is gone. The store reads the log itself before SQLite opens it, after
/// a process that did not close cleanly, so that such a loss is reported instead of passing
/// for a fresh install.
struct WriteAheadLog {
    /// Frames whose checksum holds, in order.
    var validFrames = 0
    /// Why part of the log will be ignored although it belongs to it, if it will be.
    var damage: String?

    private static let headerSize = 32
    private static let frameHeaderSize = 24

    /// Reads the log at `path`; nil when there is no file. An empty one is a log a checkpoint
    /// emptied, with nothing written since.
    static func inspect(atPath path: String) -> WriteAheadLog? {
        guard let descriptor = try? PrivateFile.open(path, O_RDONLY) else { return nil }
        defer { close(descriptor) }
        var status = stat()
        guard fstat(descriptor, &status) == 0 else { return nil }
        guard status.st_size != 0 else { return WriteAheadLog() }
        guard status.st_size >= headerSize else {
            return WriteAheadLog(damage: "it is cut short inside its header (\(status.st_size) bytes)")
        }
        // A log is bounded by the store's checkpoints to a few megabytes; read it whole.
        var bytes = [UInt8](repeating: 0, count: Int(status.st_size))
        let count = bytes.withUnsafeMutableBytes { pread(descriptor, $0.baseAddress, $0.count, 0) }
        guard count == bytes.count else { return nil }
        return WriteAheadLog(bytes)
    }

    private init(damage: String? = nil) {
        self.damage = damage
    }

    init(_ bytes: [UInt8]) {
        let magic = Self.word(bytes, at: 0, bigEndian: true)
        guard magic & 0xFFFF_FFFE == 0x377F_0682 else {
            damage = "its header is not a write-ahead log's"
            return
        }
        let bigEndian = magic & 1 == 1
        let pageSize = Int(Self.word(bytes, at: 8, bigEndian: true))
        guard pageSize >= 512, pageSize <= 65_536, pageSize & (pageSize - 1) == 0 else {
            damage = "its header names a page size of \(pageSize)"
            return
        }
        var sums = Self.checksum(bytes[0..<24], bigEndian: bigEndian, from: (0, 0))
        guard sums == (Self.word(bytes, at: 24, bigEndian: true), Self.word(bytes, at: 28, bigEndian: true)) else {
            let frames = (bytes.count - Self.headerSize) / (Self.frameHeaderSize + pageSize)
            if frames > 0 { damage = "its header fails its checksum, so SQLite ignores all \(frames) frames after it" }
            return
        }
        let salts = (Self.word(bytes, at: 16, bigEndian: true), Self.word(bytes, at: 20, bigEndian: true))
        let frameSize = Self.frameHeaderSize + pageSize
        var offset = Self.headerSize
        while offset + frameSize <= bytes.count {
            // Frames of an earlier round of the log, past where this one reached, carry
            // other salts: the end, not damage.
            guard
                (Self.word(bytes, at: offset + 8, bigEndian: true), Self.word(bytes, at: offset + 12, bigEndian: true))
                    == salts
            else { return }
            sums = Self.checksum(bytes[offset..<(offset + 8)], bigEndian: bigEndian, from: sums)
            sums = Self.checksum(
                bytes[(offset + Self.frameHeaderSize)..<(offset + frameSize)],
                bigEndian: bigEndian,
                from: sums
            )
            guard
                sums == (
                    Self.word(bytes, at: offset + 16, bigEndian: true),
                    Self.word(bytes, at: offset + 20, bigEndian: true)
                )
            else {
                let remaining = (bytes.count - offset) / frameSize
                damage =
                    "frame \(validFrames + 1) fails its checksum, so SQLite ignores it and the \(remaining - 1) after it"
                return
            }
            validFrames += 1
            offset += frameSize
        }
    }

    private static func word(_ bytes: [UInt8], at offset: Int, bigEndian: Bool) -> UInt32 {
        let value = bytes[offset..<(offset + 4)].reduce(UInt32(0)) { $0 << 8 | UInt32($1) }
        return bigEndian ? value : value.byteSwapped
    }

    /// SQLite's log checksum over `bytes` (a multiple of eight), continuing from `start`.
    private static func checksum(
        _ bytes: ArraySlice<UInt8>,
        bigEndian: Bool,
        from start: (UInt32, UInt32)
    ) -> (UInt32, UInt32) {
        var (first, second) = start
        bytes.withUnsafeBytes { raw in
            var offset = 0
            while offset + 8 <= raw.count {
                var x0 = raw.loadUnaligned(fromByteOffset: offset, as: UInt32.self)
                var x1 = raw.loadUnaligned(fromByteOffset: offset + 4, as: UInt32.self)
                if bigEndian {
                    x0 = UInt32(bigEndian: x0)
                    x1 = UInt32(bigEndian: x1)
                } else {
                    x0 = UInt32(littleEndian: x0)
                    x1 = UInt32(littleEndian: x1)
                }
                first = first &+ x0 &+ second
                second = second &+ x1 &+ first
                offset += 8
            }
        }
        return (first, second)
    }
}
