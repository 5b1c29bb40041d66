import Foundation
import Synchronization

/// Placement-log rows made durable before their answer without a SQLite commit on the way:
/// each answered call copies its rows into a file mapped into memory, and a background
/// transfer inserts them into SQLite later (`Store`).
///
/// A commit in SQLite costs a request several writes and, about every 600 calls, a WAL
/// checkpoint with two `fsync`s: milliseconds. A copy into a shared mapping is in the
/// kernel's page cache once made, so it survives the process being killed exactly as a WAL
/// commit does; on power loss, as with `synchronous = NORMAL`, the last rows may be lost but
/// nothing else (each record carries a checksum, and reading stops at the first bad one).
///
/// Two files of `capacity` bytes beside the database, `<database>-placements-0` and
/// `<database>-placements-1`, take records in turn: records go to the active one; once every
/// record in the other has been transferred, the next append that finds the active one full
/// switches to it. A record: its payload's length (4 bytes), a checksum (4), its sequence number (8), and
/// the row. Sequence numbers rise by one from record to record across both files, so stale
/// records left past the end of a reused file are told apart from new ones.
final class PlacementJournal: Sendable {
    /// A row as the journal keeps it, with its sequence number.
    struct Record: Equatable {
        var sequence: UInt64
        var row: PlacementRow
    }

    private struct Segment {
        let base: UnsafeMutableRawPointer
        /// Where the next record goes.
        var end = 0
        /// The sequence number of its last record; 0 when empty.
        var last: UInt64 = 0
        /// Whether its pages were given back since it was last written.
        var isReleased = false
    }

    private struct State: @unchecked Sendable {
        var segments: [Segment]
        var active = 0
    }

    let capacity: Int
    private let state: Mutex<State>
    private let descriptors: [Int32]

    /// A record's length and checksum, before its payload.
    private static let headerSize = 8
    /// A payload's bytes besides the name and the params: the sequence number, the time,
    /// `queued`, the event id, and the name's and the params' lengths.
    private static let fixedPayloadSize = 8 + 8 + 1 + 16 + 4 + 4

    /// Opens (creating) the two files beside the database at `databasePath`.
    init(besideDatabaseAt databasePath: String, capacity: Int = 2 << 20) throws {
        self.capacity = capacity
        var descriptors: [Int32] = []
        var segments: [Segment] = []
        for index in 0..<2 {
            let path = databasePath + "-placements-\(index)"
            let descriptor = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0o644)
            // Sparse: a file takes disk space as records reach it.
            guard descriptor >= 0, ftruncate(descriptor, off_t(capacity)) == 0 else {
                let reason = String(cString: strerror(errno))
                for descriptor in descriptors { close(descriptor) }
                throw StoreFault.journal("cannot open \(path): \(reason)")
            }
            guard let base = mmap(nil, capacity, PROT_READ | PROT_WRITE, MAP_SHARED, descriptor, 0), base != MAP_FAILED else {
                let reason = String(cString: strerror(errno))
                close(descriptor)
                for descriptor in descriptors { close(descriptor) }
                throw StoreFault.journal("cannot map \(path): \(reason)")
            }
            descriptors.append(descriptor)
            segments.append(Segment(base: base))
        }
        self.descriptors = descriptors
        state = Mutex(State(segments: segments))
    }

    deinit {
        state.withLock { state in
            for segment in state.segments { munmap(segment.base, capacity) }
        }
        for descriptor in descriptors { close(descriptor) }
    }

    /// Every whole record in the files, in sequence order. Reading a file stops at its first
    /// record that is cut short, fails its checksum or does not follow the one before it.
    /// The files are then treated as holding these records.
    func recover() -> [Record] {
        state.withLock { state in
            var found: [[Record]] = []
            for index in state.segments.indices {
                var records: [Record] = []
                var offset = 0
                while let (record, next) = Self.read(at: offset, in: state.segments[index].base, capacity: capacity),
                      records.last.map({ record.sequence == $0.sequence + 1 }) ?? true {
                    records.append(record)
                    offset = next
                }
                state.segments[index].end = offset
                state.segments[index].last = records.last?.sequence ?? 0
                found.append(records)
            }
            state.active = state.segments[0].last >= state.segments[1].last ? 0 : 1
            return found.flatMap { $0 }.sorted { $0.sequence < $1.sequence }
        }
    }

    /// Copies `rows`, numbered from `firstSequence`, into the active file, or into the other
    /// one if the active one is full and the other holds nothing untransferred (`transferred`
    /// is the sequence number SQLite holds every record up to). False when neither has room:
    /// the caller transfers first.
    func append(_ rows: [PlacementRow], from firstSequence: UInt64, transferred: UInt64) -> Bool {
        let bytes = rows.reduce(0) { $0 + Self.size(of: $1) }
        return state.withLock { state in
            if state.segments[state.active].end + bytes > capacity {
                let other = 1 - state.active
                guard state.segments[other].last <= transferred, bytes <= capacity else { return false }
                state.segments[other].end = 0
                state.active = other
            }
            var segment = state.segments[state.active]
            segment.isReleased = false
            for (offset, row) in rows.enumerated() {
                let sequence = firstSequence + UInt64(offset)
                segment.end = Self.write(row, numbered: sequence, at: segment.end, in: segment.base)
                segment.last = sequence
            }
            state.segments[state.active] = segment
            return true
        }
    }

    /// Forgets what SQLite now holds: a file all of whose records are transferred is reused
    /// from its start by the next append that switches to it, and the active one at once
    /// when everything in it is transferred.
    func discard(through transferred: UInt64) {
        state.withLock { state in
            if state.segments[state.active].last <= transferred {
                state.segments[state.active].end = 0
            }
            // A file with nothing to keep gives its pages back: the process's resident memory
            // does not keep what a burst wrote (the data stays in the file).
            for index in state.segments.indices where state.segments[index].last <= transferred && !state.segments[index].isReleased {
                guard index != state.active || state.segments[index].end == 0 else { continue }
                madvise(state.segments[index].base, capacity, MADV_DONTNEED)
                state.segments[index].isReleased = true
            }
        }
    }

    // MARK: Records

    private static func size(of row: PlacementRow) -> Int {
        headerSize + fixedPayloadSize + row.name.utf8.count + row.params.count
    }

    /// Writes the record of `row` at `offset`, straight into the mapping; the offset past it.
    private static func write(_ row: PlacementRow, numbered sequence: UInt64, at offset: Int, in base: UnsafeMutableRawPointer) -> Int {
        let payload = base + offset + headerSize
        var cursor = 0
        func put<Value>(_ value: Value) {
            withUnsafeBytes(of: value) { (payload + cursor).copyMemory(from: $0.baseAddress!, byteCount: $0.count) }
            cursor += MemoryLayout<Value>.size
        }
        func put(_ bytes: UnsafeRawBufferPointer) {
            if let source = bytes.baseAddress { (payload + cursor).copyMemory(from: source, byteCount: bytes.count) }
            cursor += bytes.count
        }
        put(sequence.littleEndian)
        put(row.createdAtMs.bitPattern.littleEndian)
        put(UInt8(row.queued ? 1 : 0))
        put(row.eventId?.uuid ?? UUID.nilBytes)
        var name = row.name
        name.withUTF8 { text in
            put(UInt32(text.count).littleEndian)
            put(UnsafeRawBufferPointer(text))
        }
        put(UInt32(row.params.count).littleEndian)
        row.params.withUnsafeBytes { put($0) }
        // The sequence number is in the payload, so the checksum covers it.
        let written = UnsafeRawBufferPointer(start: payload, count: cursor)
        (base + offset).storeBytes(of: UInt32(cursor).littleEndian, toByteOffset: 0, as: UInt32.self)
        (base + offset).storeBytes(of: checksum(written).littleEndian, toByteOffset: 4, as: UInt32.self)
        return offset + headerSize + cursor
    }

    /// The record at `offset` and the offset past it, if one is whole there.
    private static func read(at offset: Int, in base: UnsafeMutableRawPointer, capacity: Int) -> (Record, Int)? {
        guard offset + headerSize <= capacity else { return nil }
        let length = Int(UInt32(littleEndian: base.loadUnaligned(fromByteOffset: offset, as: UInt32.self)))
        let sum = UInt32(littleEndian: base.loadUnaligned(fromByteOffset: offset + 4, as: UInt32.self))
        guard length >= fixedPayloadSize, offset + headerSize + length <= capacity else { return nil }
        let payload = UnsafeRawBufferPointer(start: base + offset + headerSize, count: length)
        guard checksum(payload) == sum else { return nil }
        var cursor = 0
        func take(_ count: Int) -> UnsafeRawBufferPointer? {
            guard cursor + count <= payload.count else { return nil }
            defer { cursor += count }
            return UnsafeRawBufferPointer(rebasing: payload[cursor..<(cursor + count)])
        }
        guard let sequence = take(8)?.loadUnaligned(as: UInt64.self), let time = take(8)?.loadUnaligned(as: UInt64.self),
              let queued = take(1)?.first, let id = take(16), let nameLength = take(4)?.loadUnaligned(as: UInt32.self),
              let name = take(Int(UInt32(littleEndian: nameLength))), let paramsLength = take(4)?.loadUnaligned(as: UInt32.self),
              let params = take(Int(UInt32(littleEndian: paramsLength))), cursor == payload.count else { return nil }
        var uuid = UUID.nilBytes
        withUnsafeMutableBytes(of: &uuid) { $0.copyMemory(from: id) }
        let row = PlacementRow(
            name: String(decoding: name, as: UTF8.self), createdAtMs: Double(bitPattern: UInt64(littleEndian: time)),
            params: Array(params), eventId: id.allSatisfy { $0 == 0 } ? nil : UUID(uuid: uuid), queued: queued == 1)
        return (Record(sequence: UInt64(littleEndian: sequence), row: row), offset + headerSize + length)
    }

    /// A multiply-and-fold hash of the payload eight bytes at a time: enough to tell a record
    /// cut short or half written from a whole one.
    private static func checksum(_ bytes: UnsafeRawBufferPointer) -> UInt32 {
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

/// Why the store's files could not be used.
enum StoreFault: Error, CustomStringConvertible {
    case journal(String)

    var description: String {
        switch self {
        case .journal(let reason): "placement journal: \(reason)"
        }
    }
}
