/// The user's variant in each experiment (SuperwallKit's assignments, kept by its config and
/// identity managers): as stored, how this process came by each, and the confirmations being
/// posted. Every change of them is one method here, which persists what it changed; the flows
/// that change the user (`identify`, `reset`) hand over what they already made durable.
///
/// Owned by the `Superwall` actor, which is the only one to touch it.
final class Assignments {
    /// The user's variant per experiment, as stored.
    private(set) var current: [String: Store.Assignment] = [:]
    /// How this process came by each assignment it made or took; one it has no entry for was
    /// kept from an earlier session (a decision record's `experiment` gate).
    private(set) var origins: [String: Store.AssignmentOrigin] = [:]
    /// Confirmations of assignments being posted, by experiment id.
    private(set) var confirmationsInFlight: [String: Task<Void, Never>] = [:]

    /// The assignments, by experiment id.
    func sortedByExperiment() -> [Store.Assignment] {
        Self.sortedByExperiment(current)
    }

    private static func sortedByExperiment(_ assignments: [String: Store.Assignment]) -> [Store.Assignment] {
        assignments.values.sorted { $0.experimentId < $1.experimentId }
    }

    /// A session opened on `stored`, its store's assignments.
    func sessionOpened(with stored: [Store.Assignment]) {
        current = Dictionary(stored.map { ($0.experimentId, $0) }, uniquingKeysWith: { _, last in last })
        origins = [:]
    }

    /// A config is in use: what it lacks is drawn and what is sticky kept
    /// (`AssignmentPlanner.plan`), then persisted.
    func configDidChange(_ config: Config, random: any RandomSource, store: Store) {
        let planned = AssignmentPlanner.plan(for: config, stored: Array(current.values), random: random)
        guard planned != current else { return }
        for (experimentId, assignment) in planned where current[experimentId]?.variant.id != assignment.variant.id {
            origins[experimentId] = .drawn
        }
        current = planned
        try? store.replaceAssignments(with: sortedByExperiment())
    }

    /// A new user's first assignments, drawn afresh from `config` (none without one) and
    /// written in `changes`, the transaction that makes the user; `identify` hands them over
    /// once it commits (`userChanged(to:)`).
    static func drawForNewUser(
        from config: Config?,
        random: any RandomSource,
        in changes: Store.Changes
    ) throws -> [String: Store.Assignment] {
        let drawn = config.map { AssignmentPlanner.plan(for: $0, stored: [], random: random) } ?? [:]
        try changes.replaceAssignments(with: sortedByExperiment(drawn))
        return drawn
    }

    /// The user changed, and `drawn` (nothing, after a reset) is what was persisted for them.
    func userChanged(to drawn: [String: Store.Assignment]) {
        current = drawn
        origins = drawn.mapValues { _ in .drawn }
    }

    /// Whether a confirmation of `experimentId` may start: its assignment is not yet sent and
    /// none is being posted.
    func needsConfirmation(of experimentId: String) -> Store.Assignment? {
        guard let assignment = current[experimentId], !assignment.isSentToServer,
            confirmationsInFlight[experimentId] == nil
        else { return nil }
        return assignment
    }

    func confirming(_ experimentId: String, in confirmation: Task<Void, Never>) {
        confirmationsInFlight[experimentId] = confirmation
    }

    /// A confirmation ended; the assignment is marked sent (and persisted) when the server took
    /// it and the user still has that variant.
    func confirmationFinished(_ confirmation: AssignmentConfirmation, confirmed: Bool, store: Store?) {
        confirmationsInFlight[confirmation.experimentId] = nil
        guard confirmed, var assignment = current[confirmation.experimentId],
            assignment.variant.id == confirmation.variantId
        else { return }
        assignment.isSentToServer = true
        current[confirmation.experimentId] = assignment
        try? store?.save(assignment)
    }

    /// Assignments the server holds for the user (`AssignmentPlanner.transfer`), persisted.
    func tookFromServer(_ served: [Store.Assignment], store: Store?) {
        for assignment in served {
            current[assignment.experimentId] = assignment
            origins[assignment.experimentId] = .server
            try? store?.save(assignment)
        }
    }

    /// `debug/overrideAssignment`'s assignment, already persisted.
    func overridden(_ assignment: Store.Assignment) {
        current[assignment.experimentId] = assignment
        origins[assignment.experimentId] = .override
    }
}
