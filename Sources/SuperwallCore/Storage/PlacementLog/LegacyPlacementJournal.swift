import Foundation

/// The placement journal of earlier versions, read once to recover what it holds.
///
/// Earlier versions made an answered call's placement rows durable in two files beside the
/// database, `<database>-placements-0` and `-placements-1`, and moved them into SQLite later,
/// noting in the database the last one moved (`transferredKey`). A process of such a version
/// that was killed may have left rows in the files that SQLite does not hold: the first open by
/// this version inserts them, then removes the files (`Store.recoverLegacyJournal`).
///
/// A record: its payload's length (4 bytes), a checksum (4), then the payload: its sequence
/// number (8), the time (8), `queued` (1), the event id (16), the name's length (4) and the
/// name, the params' length (4) and the params. Sequence numbers rise by one from record to
/// record across both files; reading a file stops at its first record that is cut short,
/// fails its checksum or does not follow the one before it. Every byte is untrusted: a record
/// whose checksum holds but whose fields cannot be ends the reading of its file like a torn
/// one, and is named in `rejected`.
enum LegacyPlacementJournal {
    /// A row as the journal kept it, with its sequence number.
    struct Record: Equatable {
        var sequence: UInt64
        var row: PlacementRow
    }

    /// What `read` found.
    struct Recovery {
        var records: [Record] = []
        /// Why a file's reading stopped before its end, for records whose checksum holds.
        var rejected: [String] = []
    }

    /// Where the database kept the sequence number of the last record it held.
    static let transferredKey = "placementJournal.transferred"

    /// The files' paths beside the database at `databasePath`.
    static func paths(besideDatabaseAt databasePath: String) -> [String] {
        (0..<2).map { databasePath + "-placements-\($0)" }
    }

    /// Earlier versions' files were 2 MiB; a file is read no further than this.
    static let largestFile = 16 << 20

    /// A record's length and checksum, before its payload.
    private static let headerSize = 8
    /// A payload's bytes besides the name and the params.
    private static let fixedPayloadSize = 8 + 8 + 1 + 16 + 4 + 4

    /// Every whole record in the files at `paths`, in sequence order; a file that cannot be
    /// read holds none, and says why in `rejected`.
    static func read(_ paths: [String]) -> Recovery {
        var recovery = Recovery()
        for (index, path) in paths.enumerated() {
            let bytes: Data
            do {
                let descriptor = try PrivateFile.open(path, O_RDONLY)
                defer { close(descriptor) }
                bytes = try PrivateFile.readAll(descriptor, path: path, atMost: largestFile)
            } catch let error as PrivateFile.OpenError where error.code == ENOENT {
                continue
            } catch {
                recovery.rejected.append("file \(index): \(error)")
                continue
            }
            bytes.withUnsafeBytes { raw in
                guard let base = raw.baseAddress else { return }
                var offset = 0
                var last: UInt64?
                reading: while true {
                    switch Self.read(at: offset, in: base, capacity: raw.count) {
                    case .record(let record, let next) where last.map({ record.sequence == $0 + 1 }) ?? true:
                        recovery.records.append(record)
                        last = record.sequence
                        offset = next
                    case .rejected(let reason):
                        recovery.rejected.append("file \(index), offset \(offset): \(reason)")
                        break reading
                    case .record, .none:
                        break reading
                    }
                }
            }
        }
        recovery.records.sort { $0.sequence < $1.sequence }
        return recovery
    }

    /// What is at an offset of a file.
    private enum Read {
        case record(Record, next: Int)
        /// Whole by its checksum, but not a record this journal could have written.
        case rejected(String)
        /// Nothing whole: the end of the records, a torn one, or stale bytes.
        case none
    }

    /// The highest sequence number read as valid: far past any a journal reaches, and low
    /// enough that the next one and its conversion to SQLite's Int64 cannot overflow.
    static let largestSequence = UInt64(Int64.max) >> 1

    /// The record at `offset` and the offset past it, if one is whole there.
    private static func read(at offset: Int, in base: UnsafeRawPointer, capacity: Int) -> Read {
        guard offset + headerSize <= capacity else { return .none }
        let length = Int(UInt32(littleEndian: base.loadUnaligned(fromByteOffset: offset, as: UInt32.self)))
        let sum = UInt32(littleEndian: base.loadUnaligned(fromByteOffset: offset + 4, as: UInt32.self))
        guard length >= fixedPayloadSize, length <= capacity - offset - headerSize else { return .none }
        let payload = UnsafeRawBufferPointer(start: base + offset + headerSize, count: length)
        guard checksum(payload) == sum else { return .none }
        var cursor = 0
        func take(_ count: Int) -> UnsafeRawBufferPointer? {
            guard cursor + count <= payload.count else { return nil }
            defer { cursor += count }
            return UnsafeRawBufferPointer(rebasing: payload[cursor..<(cursor + count)])
        }
        guard let sequence = take(8)?.loadUnaligned(as: UInt64.self),
            let time = take(8)?.loadUnaligned(as: UInt64.self),
            let queued = take(1)?.first, let id = take(16), let nameLength = take(4)?.loadUnaligned(as: UInt32.self),
            let name = take(Int(UInt32(littleEndian: nameLength))),
            let paramsLength = take(4)?.loadUnaligned(as: UInt32.self),
            let params = take(Int(UInt32(littleEndian: paramsLength))), cursor == payload.count
        else {
            return .rejected("its lengths do not add up to its size")
        }
        let number = UInt64(littleEndian: sequence)
        guard number > 0, number <= largestSequence else {
            return .rejected("sequence number \(number) is out of range")
        }
        let createdAtMs = Double(bitPattern: UInt64(littleEndian: time))
        guard createdAtMs.isFinite else { return .rejected("its time is not a finite number") }
        guard queued <= 1 else { return .rejected("its queued flag is \(queued)") }
        var uuid = UUID.nilBytes
        withUnsafeMutableBytes(of: &uuid) { $0.copyMemory(from: id) }
        let row = PlacementRow(
            name: String(decoding: name, as: UTF8.self),
            createdAtMs: createdAtMs,
            params: Array(params),
            eventId: id.allSatisfy { $0 == 0 } ? nil : UUID(uuid: uuid),
            queued: queued == 1
        )
        return .record(Record(sequence: number, row: row), next: offset + headerSize + length)
    }

    /// A multiply-and-fold hash of the payload eight bytes at a time: enough to tell a record
    /// cut short or half written from a whole one.
    static func checksum(_ bytes: UnsafeRawBufferPointer) -> UInt32 {
        var hash: UInt64 = 0x9E37_79B9_7F4A_7C15 ^ UInt64(bytes.count)
        var offset = 0
        while offset + 8 <= bytes.count {
            hash = (hash ^ bytes.loadUnaligned(fromByteOffset: offset, as: UInt64.self)) &* 0xFF51_AFD7_ED55_8CCD
            hash ^= hash >> 29
            offset += 8
        }
        while offset < bytes.count {
            hash = (hash ^ UInt64(bytes[offset])) &* 0xC4CE_B9FE_1A85_EC53
            offset += 1
        }
        hash ^= hash >> 32
        return UInt32(truncatingIfNeeded: hash)
    }
}
