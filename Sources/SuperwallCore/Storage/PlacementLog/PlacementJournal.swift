import CGuardedCopy
import Foundation
import GRDB
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
///
/// A file's blocks are reserved before records are written into them (`posix_fallocate`): a
/// page of a sparse file that cannot be allocated when it is first written raises SIGBUS. The
/// first file's first `reservationStep` is reserved when it opens, so a disk that is full is
/// found by `init`; after that a file grows a step at a time, always a step ahead of its
/// records, so that a disk that fills leaves a step of rows to go on with, and a data
/// directory costs what its journal has held (a file of `capacity` reserved at once made every
/// data directory 4 MiB). A step that cannot be reserved makes the append `.full`, and the
/// caller commits its rows to SQLite. A file cut short under the mapping by another process
/// faults all the same; records are copied in by `guarded_copy`, which turns that fault into
/// an error, and the journal is then out of use (`isDamaged`).
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
        /// The bytes from its start whose blocks are reserved: the file is this long, and
        /// nothing past it is read or written.
        var reserved: Int
    }

    private struct State: @unchecked Sendable {
        var segments: [Segment]
        var active = 0
        /// Set when a copy into a file faulted: nothing is appended after it.
        var damage: String?
        /// Set by `close()`: the files are unmapped and closed.
        var isClosed = false
        /// Where records are written before their guarded copy into a file; kept from one
        /// append to the next (a buffer a call cost a malloc and a free).
        var scratch: UnsafeMutableRawPointer?
        var scratchCapacity = 0

        mutating func scratch(holding bytes: Int) -> UnsafeMutableRawPointer {
            if let scratch, scratchCapacity >= bytes { return scratch }
            scratchCapacity = max(bytes, 4096)
            scratch = realloc(scratch, scratchCapacity)
            return scratch!
        }
    }

    /// What `append` did.
    enum Appended: Equatable {
        case appended
        /// Neither file has room until the other's records are transferred.
        case full
        /// The copy faulted (a file was cut short under the mapping); the journal is out of use.
        case damaged
        /// The journal was closed with its store.
        case closed
    }

    /// What `recover` found.
    struct Recovery {
        var records: [Record]
        /// Records whose checksum holds but whose fields cannot be: each stopped the reading of
        /// its file there.
        var rejected: [String]
    }

    let capacity: Int
    private let state: Mutex<State>
    private let descriptors: [Int32]

    /// A record's length and checksum, before its payload.
    private static let headerSize = 8
    /// A payload's bytes besides the name and the params: the sequence number, the time,
    /// `queued`, the event id, and the name's and the params' lengths.
    private static let fixedPayloadSize = 8 + 8 + 1 + 16 + 4 + 4

    /// How much a file grows by, and how far ahead of its records it is reserved.
    static let reservationStep = 16 << 10

    /// Opens (creating) the two files beside the database at `databasePath`.
    init(besideDatabaseAt databasePath: String, capacity: Int = 2 << 20) throws {
        self.capacity = capacity
        var descriptors: [Int32] = []
        var segments: [Segment] = []
        for index in 0..<2 {
            let path = databasePath + "-placements-\(index)"
            let descriptor: Int32
            do {
                descriptor = try PrivateFile.open(path, O_RDWR | O_CREAT)
            } catch {
                for descriptor in descriptors { close(descriptor) }
                throw StoreFault.journal("\(error)")
            }
            // What the file holds stays reserved (a file an earlier run left, or one another
            // process made sparse, has every block allocated again); the first file has at
            // least a step.
            var status = stat()
            let length = fstat(descriptor, &status) == 0 ? min(Int(status.st_size), capacity) : 0
            let reserved = index == 0 ? max(length, min(Self.reservationStep, capacity)) : length
            let code = reserved == 0 ? 0 : posix_fallocate(descriptor, 0, off_t(reserved))
            guard code == 0 else {
                close(descriptor)
                for descriptor in descriptors { close(descriptor) }
                let reason = String(cString: strerror(code))
                throw code == ENOSPC || code == EFBIG || code == EDQUOT
                    ? StoreFault.full("cannot reserve \(reserved) bytes for \(path): \(reason)")
                    : StoreFault.journal("cannot reserve \(reserved) bytes for \(path): \(reason)")
            }
            guard let base = mmap(nil, capacity, PROT_READ | PROT_WRITE, MAP_SHARED, descriptor, 0), base != MAP_FAILED
            else {
                let reason = String(cString: strerror(errno))
                close(descriptor)
                for descriptor in descriptors { close(descriptor) }
                throw StoreFault.journal("cannot map \(path): \(reason)")
            }
            descriptors.append(descriptor)
            segments.append(Segment(base: base, reserved: reserved))
        }
        self.descriptors = descriptors
        state = Mutex(State(segments: segments))
    }

    deinit {
        closeFiles()
    }

    /// Unmaps and closes the files; every later append answers `.closed`.
    func closeFiles() {
        state.withLock { state in
            guard !state.isClosed else { return }
            state.isClosed = true
            for segment in state.segments { munmap(segment.base, capacity) }
            free(state.scratch)
            state.scratch = nil
            state.scratchCapacity = 0
            for descriptor in descriptors { close(descriptor) }
        }
    }

    /// Every whole record in the files, in sequence order. Reading a file stops at its first
    /// record that is cut short, fails its checksum or does not follow the one before it.
    /// The files are then treated as holding these records. Every byte read is untrusted: a
    /// record whose checksum holds but whose fields do not (a sequence number past any this
    /// journal hands out, a time that is not a number, lengths that do not add up) ends the
    /// reading of its file like a torn one, and is named in `rejected`.
    func recover() -> Recovery {
        state.withLock { state in
            var found: [[Record]] = []
            var rejected: [String] = []
            for index in state.segments.indices {
                var records: [Record] = []
                var offset = 0
                reading: while true {
                    let segment = state.segments[index]
                    switch Self.read(at: offset, in: segment.base, capacity: segment.reserved) {
                    case .record(let record, let next)
                    where records.last.map({ record.sequence == $0.sequence + 1 }) ?? true:
                        records.append(record)
                        offset = next
                    case .rejected(let reason):
                        rejected.append("file \(index), offset \(offset): \(reason)")
                        break reading
                    case .record, .none:
                        break reading
                    }
                }
                state.segments[index].end = offset
                state.segments[index].last = records.last?.sequence ?? 0
                found.append(records)
            }
            state.active = state.segments[0].last >= state.segments[1].last ? 0 : 1
            return Recovery(records: found.flatMap { $0 }.sorted { $0.sequence < $1.sequence }, rejected: rejected)
        }
    }

    /// Why the journal went out of use, if it did.
    var damage: String? { state.withLock { $0.damage } }

    /// Copies `rows`, numbered from `firstSequence`, into the active file, or into the other
    /// one if the active one is full and the other holds nothing untransferred (`transferred`
    /// is the sequence number SQLite holds every record up to). `.full` when neither has room:
    /// the caller transfers first.
    ///
    /// The records are written into memory of the call's own and copied into the file in one
    /// guarded copy: a write straight into the mapping would die of SIGBUS if the file were
    /// cut short under it.
    func append(_ rows: [PlacementRow], from firstSequence: UInt64, transferred: UInt64) -> Appended {
        guard !rows.isEmpty else { return .appended }
        let bytes = rows.reduce(0) { $0 + Self.size(of: $1) }
        return state.withLock { state -> Appended in
            guard !state.isClosed else { return .closed }
            guard state.damage == nil else { return .damaged }
            if state.segments[state.active].end + bytes > capacity {
                let other = 1 - state.active
                guard state.segments[other].last <= transferred, bytes <= capacity else { return .full }
                state.segments[other].end = 0
                state.active = other
            }
            guard reserve(through: state.segments[state.active].end + bytes, in: &state) else { return .full }
            let scratch = state.scratch(holding: bytes)
            var written = 0
            for (offset, row) in rows.enumerated() {
                written = Self.write(row, numbered: firstSequence + UInt64(offset), at: written, in: scratch)
            }
            var segment = state.segments[state.active]
            guard guarded_copy(segment.base + segment.end, scratch, bytes) == 0 else {
                state.damage =
                    "a copy into placement file \(state.active) faulted: the file was cut short or its blocks released under the bridge"
                return .damaged
            }
            segment.isReleased = false
            segment.end += bytes
            segment.last = firstSequence + UInt64(rows.count - 1)
            state.segments[state.active] = segment
            return .appended
        }
    }

    /// Reserves the active file's blocks a step past `end` (at most `capacity`), if they are
    /// not yet; false when the file cannot grow that far.
    private func reserve(through end: Int, in state: inout State) -> Bool {
        let active = state.active
        guard end > state.segments[active].reserved - Self.reservationStep, state.segments[active].reserved < capacity
        else { return end <= state.segments[active].reserved }
        let step = Self.reservationStep
        let target = min(capacity, (end + step + step - 1) / step * step)
        let from = state.segments[active].reserved
        guard posix_fallocate(descriptors[active], off_t(from), off_t(target - from)) == 0 else {
            return end <= state.segments[active].reserved
        }
        state.segments[active].reserved = target
        return true
    }

    /// Forgets what SQLite now holds: a file all of whose records are transferred is reused
    /// from its start by the next append that switches to it, and the active one at once
    /// when everything in it is transferred.
    func discard(through transferred: UInt64) {
        state.withLock { state in
            guard !state.isClosed else { return }
            if state.segments[state.active].last <= transferred {
                state.segments[state.active].end = 0
            }
        }
    }

    /// Unmaps the pages of the files with nothing to keep: the process's resident memory does
    /// not keep what a burst wrote (the data stays in the file). Not while calls are coming:
    /// each page given back costs the next append to it a page fault, and those faults were
    /// most of the calls that took several times their usual time (Benchmarks/README, B9).
    func releasePages(through transferred: UInt64) {
        state.withLock { state in
            guard !state.isClosed else { return }
            for index in state.segments.indices
            where state.segments[index].last <= transferred && !state.segments[index].isReleased && state.damage == nil
            {
                guard index != state.active || state.segments[index].end == 0 else { continue }
                madvise(state.segments[index].base, state.segments[index].reserved, MADV_DONTNEED)
                state.segments[index].isReleased = true
            }
        }
    }

    // MARK: Records

    private static func size(of row: PlacementRow) -> Int {
        headerSize + fixedPayloadSize + row.name.utf8.count + row.params.count
    }

    /// Writes the record of `row` at `offset`, straight into the mapping; the offset past it.
    private static func write(
        _ row: PlacementRow,
        numbered sequence: UInt64,
        at offset: Int,
        in base: UnsafeMutableRawPointer
    ) -> Int {
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
    private static func read(at offset: Int, in base: UnsafeMutableRawPointer, capacity: Int) -> Read {
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
public enum StoreFault: Error, CustomStringConvertible {
    case journal(String)
    /// The disk (or the process's file-size limit) has no room for what must be written.
    case full(String)
    /// The store was closed with its data directory, at the end of its session.
    case closed

    public var description: String {
        switch self {
        case .journal(let reason): "placement journal: \(reason)"
        case .full(let reason): "no space left: \(reason)"
        case .closed: "the data directory was closed at the end of its session"
        }
    }

    /// Whether `error` says the disk, or the file-size limit, had no room. SQLite reports a
    /// write the file-size limit refuses (`EFBIG`) as an I/O error, not `SQLITE_FULL`: in a
    /// process with a limit, a failed write is taken for it.
    static func isFull(_ error: any Error) -> Bool {
        if case StoreFault.full = error { return true }
        guard let error = error as? DatabaseError else { return false }
        return error.resultCode == .SQLITE_FULL
            || (error.extendedResultCode == .SQLITE_IOERR_WRITE && processLimitsFileSizes)
    }

    /// Whether `ulimit -f` limits this process's files.
    private static let processLimitsFileSizes: Bool = {
        var limit = rlimit()
        return getrlimit(__rlimit_resource_t(RLIMIT_FSIZE.rawValue), &limit) == 0 && limit.rlim_cur != rlim_t.max
    }()
}
