import DequeModule

/// The last recorded decisions (`debug/recentDecisions`): with `options.recordDecisions`,
/// every presentation's, so that a tool that attaches after the fact finds them here. Each is
/// kept as its pipeline noted it and put into words only when asked for.
///
/// Owned by the `Superwall` actor, which is the only one to touch it.
final class RecentDecisions {
    /// The most decisions kept.
    static let capacity = PresentationDecision.keptRecently

    private var trails = Deque<DecisionTrail>()
    private var lastSequence = 0

    /// A trail for a pipeline's decision when someone will read it: the caller asked for it,
    /// the session records every decision (`recordingAll`), or the debug log prints it. Out of
    /// line, so that the pipeline's entry stays small enough to be inlined into its callers.
    @inline(never)
    func startTrail(_ kind: PipelineKind, _ placement: PlacementData, recordingAll: Bool) -> DecisionTrail? {
        guard kind.isRecorded else { return nil }
        let isLogged = DecisionLog.paywallPresentation.logLevel <= .debug
        guard isLogged || recordingAll || placement.decisionReceiver?.explain == true,
            let call = kind.recordedCall(sourceType: placement.sourceType)
        else { return nil }
        return DecisionTrail(placement: placement.name, call: call, at: placement.createdAt, isLogged: isLogged)
    }

    /// Keeps the decision, hands it to the caller that asked for it, and prints it at debug.
    @inline(never)
    func finish(_ trail: DecisionTrail, with end: PipelineEnd, for receiver: DecisionReceiver?) {
        trail.end = end
        record(trail)
        guard receiver != nil || trail.isLogged else { return }
        let decision = trail.decision
        receiver?.receive(decision)
        guard trail.isLogged else { return }
        for line in decision.lines { DecisionLog.paywallPresentation.debug("\(line)") }
    }

    /// Keeps a finished trail, dropping the oldest past `capacity`.
    private func record(_ trail: DecisionTrail) {
        lastSequence += 1
        trail.sequence = lastSequence
        if trails.count == Self.capacity { trails.removeFirst() }
        trails.append(trail)
    }

    /// The last `limit` decisions, oldest first.
    func recent(_ limit: Int) -> [PresentationDecision] {
        trails.suffix(max(0, min(limit, Self.capacity))).map(\.decision)
    }
}
