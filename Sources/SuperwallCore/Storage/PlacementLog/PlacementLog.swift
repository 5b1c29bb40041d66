import DequeModule
import Foundation
import Synchronization

/// The placement log between a row's acceptance and SQLite: the rows accepted and not yet
/// committed, the times rules read (`PlacementTimeline`), the journal that makes an answered
/// call's rows durable without a SQLite commit, and the worker that moves them into SQLite.
///
/// It keeps the log's books; the store, which owns it, does the SQLite side
/// (`Store+PlacementLog.swift`): each method here is one step of that under one lock.
final class PlacementLog: Sendable {
    /// Rows made durable in `journal` and not yet in SQLite come first, in `journaled`; then
    /// rows accepted since the last commit, in `rows`.
    struct Unwritten {
        var journaled = Deque<PlacementJournal.Record>()
        var rows: [PlacementRow] = []
        var commitScheduled = false
        /// The next record's sequence number.
        var nextSequence: UInt64 = 1
        /// `nextSequence` when the worker last stepped.
        var nextSequenceAtLastStep: UInt64 = 1
        /// Every record up to this one is in SQLite.
        var transferred: UInt64 = 0
        /// Write transactions that took accepted rows not journaled and have not ended yet.
        /// An answer waits for them: its rows may be among theirs.
        var transactionsHoldingRows = 0

        /// True when the commit timer was not running: the caller starts it.
        mutating func claimCommitTimer() -> Bool {
            guard !commitScheduled else { return false }
            commitScheduled = true
            return true
        }
    }

    /// What `makeDurable()` did with the accepted rows.
    enum Durability: Equatable {
        /// They are in the journal (or there were none): this many journaled rows wait for
        /// SQLite now. `rowsInFlight`: another write's transaction took rows accepted before.
        case journaled(backlog: Int, rowsInFlight: Bool)
        /// The journal refused them (`PlacementJournal.Appended`): they go to SQLite.
        case refused(PlacementJournal.Appended)
    }

    private let unwritten = Mutex(Unwritten())
    /// The log's times by name, committed or not: what rules read.
    let timeline = Mutex(PlacementTimeline())
    /// Where an answered call's rows are made durable without a SQLite commit; nil for a
    /// store in memory, which commits them to SQLite.
    let journal: PlacementJournal?
    /// Moves journaled rows into SQLite, a bounded step at a time, when the CPU is idle.
    let transfers: IdleWorker?
    /// Asks the worker for the WAL's checkpoints; nil for a store in memory, which has no WAL.
    let checkpoints: CheckpointRequests?
    /// Where the worker runs beside the calls, as whoever opened the store said.
    let worker: Store.WorkerPlacement
    /// Set by a call that found the backlog past `Store.backlogLimit`, on one CPU.
    private let backlogMoveAsked = Atomic(false)
    private let journalDamageReported = Mutex(false)

    init(
        journal: PlacementJournal?,
        transfers: IdleWorker?,
        checkpoints: CheckpointRequests?,
        worker: Store.WorkerPlacement
    ) {
        self.journal = journal
        self.transfers = transfers
        self.checkpoints = checkpoints
        self.worker = worker
    }

    /// Whether the worker has no CPU of its own to move rows on while the calls keep one busy.
    private var sharesOneCPU: Bool { worker == .sharingTheCallsCPU }

    /// A call found the backlog past `Store.backlogLimit`: the worker is hurried to move it on
    /// its own CPU, or, sharing the calls' one, the host is asked to when it is next idle.
    func askForTheBacklogToMove() {
        if sharesOneCPU {
            backlogMoveAsked.store(true, ordering: .releasing)
        } else {
            transfers?.hurry()
        }
    }

    /// Whether a call asked for the backlog to move when the host is idle; the request is taken.
    func takeBacklogMoveRequest() -> Bool {
        backlogMoveAsked.load(ordering: .acquiring)
            && backlogMoveAsked.exchange(false, ordering: .acquiringAndReleasing)
    }

    /// How many accepted rows are not yet in SQLite.
    var unwrittenCount: Int { unwritten.withLock { $0.rows.count + $0.journaled.count } }

    /// How many accepted rows not yet in SQLite go out as events.
    var queuedUnwrittenCount: Int {
        unwritten.withLock { unwritten in
            unwritten.journaled.count(where: \.row.queued) + unwritten.rows.count(where: \.queued)
        }
    }

    /// Whether anything waits for SQLite: journaled rows, or accepted ones unless only
    /// journaled ones are asked for.
    func hasRowsToWrite(journaledOnly: Bool) -> Bool {
        unwritten.withLock { (!$0.rows.isEmpty && !journaledOnly) || !$0.journaled.isEmpty }
    }

    /// Takes `row` in, seen by rules at once. True when the commit timer was not running: the
    /// caller starts it.
    func accept(_ row: PlacementRow) -> Bool {
        timeline.withLock { $0.insert(row.name, atMs: row.createdAtMs) }
        return unwritten.withLock { unwritten in
            unwritten.rows.append(row)
            return unwritten.claimCommitTimer()
        }
    }

    /// The commit timer fired on a store in memory.
    func commitTimerFired() {
        unwritten.withLock { $0.commitScheduled = false }
    }

    /// Copies the accepted rows into the journal, where an answered call's rows are durable;
    /// without a journal (a store in memory) they are refused, for SQLite.
    func makeDurable() -> Durability {
        guard let journal else { return .refused(.full) }
        return unwritten.withLock { unwritten in
            let rowsInFlight = unwritten.transactionsHoldingRows > 0
            guard !unwritten.rows.isEmpty else {
                return .journaled(backlog: 0, rowsInFlight: rowsInFlight)
            }
            let appended = journal.append(
                unwritten.rows,
                from: unwritten.nextSequence,
                transferred: unwritten.transferred
            )
            guard appended == .appended else { return .refused(appended) }
            for row in unwritten.rows {
                unwritten.journaled.append(PlacementJournal.Record(sequence: unwritten.nextSequence, row: row))
                unwritten.nextSequence += 1
            }
            unwritten.rows.removeAll(keepingCapacity: true)
            return .journaled(backlog: unwritten.journaled.count, rowsInFlight: rowsInFlight)
        }
    }

    /// True the first time the journal is found damaged: the store reports it once.
    func isFirstSignOfDamage() -> Bool {
        journalDamageReported.withLock { reported in
            defer { reported = true }
            return !reported
        }
    }

    /// The rows a transaction inserts, journaled ones first: `limit` journaled ones alone
    /// (a background step), else every row. `tookRows` is set when it took rows that were
    /// not journaled: the transaction then holds their only copy, and counts in
    /// `transactionsHoldingRows` until `transactionEnded()`.
    func take(journaledAtMost limit: Int?, tookRows: inout Bool) -> ([PlacementJournal.Record], [PlacementRow]) {
        unwritten.withLock { unwritten in
            if let limit {
                let records = Array(unwritten.journaled.prefix(limit))
                unwritten.journaled.removeFirst(records.count)
                return (records, [])
            }
            defer {
                unwritten.journaled.removeAll()
                unwritten.rows.removeAll(keepingCapacity: true)
            }
            if !unwritten.rows.isEmpty, !tookRows {
                tookRows = true
                unwritten.transactionsHoldingRows += 1
            }
            return (Array(unwritten.journaled), unwritten.rows)
        }
    }

    /// Rows taken by a transaction that failed, back at the front for the next commit.
    func putBack(_ records: [PlacementJournal.Record], _ rows: [PlacementRow]) {
        unwritten.withLock {
            $0.journaled.prepend(contentsOf: records)
            $0.rows.insert(contentsOf: rows, at: 0)
        }
    }

    /// A transaction that took rows not journaled (`take`) has ended.
    func transactionEnded() {
        unwritten.withLock { $0.transactionsHoldingRows -= 1 }
    }

    /// After a commit that took the journaled records up to `transferred`.
    func forget(through transferred: UInt64?) {
        guard let transferred else { return }
        unwritten.withLock { $0.transferred = max($0.transferred, transferred) }
        journal?.discard(through: transferred)
    }

    /// The journaled records found on opening that SQLite lacks, after those up to `transferred`.
    func recovered(_ missing: [PlacementJournal.Record], lastInJournal: UInt64?, transferred: UInt64) {
        unwritten.withLock { unwritten in
            unwritten.journaled = Deque(missing)
            unwritten.transferred = transferred
            unwritten.nextSequence = max(transferred, lastInJournal ?? 0) + 1
            unwritten.nextSequenceAtLastStep = unwritten.nextSequence
        }
    }

    /// The start of the worker's step: the commit timer is free again. Answers how many rows
    /// are journaled.
    func stepStarts() -> Int {
        unwritten.withLock { unwritten in
            unwritten.commitScheduled = false
            return unwritten.journaled.count
        }
    }

    /// The end of the worker's step of `count`: whether a full step's worth is left, whether
    /// the caller starts the commit timer for the rest, and the journal's transferred mark.
    func stepEnds(count: Int) -> (fullStepLeft: Bool, startTimer: Bool, transferred: UInt64) {
        unwritten.withLock { unwritten in
            let remaining = unwritten.journaled.count
            let startTimer = remaining > 0 && remaining < count && unwritten.claimCommitTimer()
            return (remaining >= count, startTimer, unwritten.transferred)
        }
    }

    /// Whether the calls are busy, by the worker's measure: sharing their one CPU and more
    /// than a `step` of rows came since it last asked. Then the commit timer is claimed for
    /// what waits (`startTimer`), as the step is put off.
    func callsAreBusy(step: Int) -> (busy: Bool, startTimer: Bool) {
        unwritten.withLock { unwritten in
            let arrived = unwritten.nextSequence - unwritten.nextSequenceAtLastStep
            unwritten.nextSequenceAtLastStep = unwritten.nextSequence
            guard arrived > UInt64(step), sharesOneCPU else { return (false, false) }
            unwritten.commitScheduled = false
            let waiting = !unwritten.journaled.isEmpty || !unwritten.rows.isEmpty
            return (true, waiting && unwritten.claimCommitTimer())
        }
    }
}
