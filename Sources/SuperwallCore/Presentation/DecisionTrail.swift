import Foundation

/// What a presentation's pipeline noted as it ran: the values it already held, and the time
/// of each wait. Made only when someone will read the decision (`RecentDecisions.startTrail`),
/// and put into words (`PresentationDecision`) only when it is read.
///
/// Owned by the `Superwall` actor, like the pipeline that writes it.
final class DecisionTrail {
    /// A paywall that was on screen.
    struct OnScreen {
        let identifier: String
        let sessionId: String

        init(_ paywall: PresentedPaywall) {
            identifier = paywall.info.identifier
            sessionId = paywall.id
        }
    }

    /// The paywall looked up for the variant.
    struct PaywallLookup {
        let identifier: String?
        let error: PresentationError?
    }

    /// The waits, each set when the pipeline waited.
    struct Waits {
        var config: Duration?
        var status: Duration?
        var statusBound: Duration?
        var paywall: Duration?
        var presentation: Duration?
    }

    let placement: String
    let call: String
    let at: Date
    /// Whether the debug log prints it.
    let isLogged: Bool
    var sequence = 0
    var waits = Waits()
    var configError: PresentationError?
    var statusAtStart: SubscriptionStatus?
    var statusAfterWait: SubscriptionStatus?
    var triggerResult: TriggerResult?
    var end: PipelineEnd?
    var paywallOnScreenAtCall: OnScreen?
    /// The config's placements, for the nearest name to one it does not have.
    var knownPlacements: [Trigger]?
    var matchedOccurrence: Occurrence?
    /// Whether the matched experiment's assignment had been confirmed with the server.
    var assignmentWasConfirmed: Bool?
    var assignmentOrigin: Store.AssignmentOrigin?
    /// The rules' values as the pipeline decided.
    var explanation: PlacementExplanation?
    var paywallLookup: PaywallLookup?
    var presenterDeclared: Bool?
    var paywallOnScreenAtShow: OnScreen?

    init(placement: String, call: String, at: Date, isLogged: Bool) {
        self.placement = placement
        self.call = call
        self.at = at
        self.isLogged = isLogged
    }

    /// When the wait under way started.
    private var waitStart: ContinuousClock.Instant?

    func startWait() {
        waitStart = .now
    }

    /// How long the wait under way has lasted, which ends it; nil when none was under way.
    func endWait() -> Duration? {
        guard let waitStart else { return nil }
        self.waitStart = nil
        return .now - waitStart
    }

    func configFailed(_ error: PresentationError) {
        waits.config = endWait()
        configError = error
    }

    /// The wait for a known status ended (if one was under way) with `status`.
    func statusWaitEnded(with status: SubscriptionStatus?, bound: Duration) {
        guard let wait = endWait() else { return }
        waits.status = wait
        waits.statusBound = bound
        statusAfterWait = status
    }

    func paywallLookedUp(_ identifier: String?, _ lookup: Result<LoadedPaywall, PresentationError>) {
        let error: PresentationError? = if case .failure(let error) = lookup { error } else { nil }
        waits.paywall = endWait()
        paywallLookup = PaywallLookup(identifier: identifier, error: error)
    }

    var decision: PresentationDecision {
        var gates: [PresentationDecision.Gate] = []
        func gate(
            _ name: PresentationDecision.Gate.Name,
            _ passed: Bool,
            _ detail: String,
            _ read: [String: JSON] = [:],
            waited: Duration? = nil
        ) {
            gates.append(.init(name: name, passed: passed, detail: detail, read: read, waited: waited))
        }
        if let onScreen = paywallOnScreenAtCall {
            gate(
                .paywallOnScreen,
                false,
                "paywall \(onScreen.identifier) was on screen when it was called (session \(onScreen.sessionId))",
                ["paywallIdentifier": .string(onScreen.identifier), "sessionId": .string(onScreen.sessionId)]
            )
        }
        appendConfigAndStatusGates(gate)
        appendAudienceGates(gate)
        appendPaywallGates(gate)
        let (outcome, reason) = self.outcome
        return PresentationDecision(
            sequence: sequence,
            placement: placement,
            call: call,
            at: at,
            gates: gates,
            outcome: outcome,
            reason: reason,
            audiences: explanation?.audiences
        )
    }

    /// Adds a gate: its name, whether it let the presentation go on, what it found, the values
    /// it read and its wait.
    private typealias AddGate = (PresentationDecision.Gate.Name, Bool, String, [String: JSON], Duration?) -> Void

    private func appendConfigAndStatusGates(
        _ gate: AddGate
    ) {
        guard paywallOnScreenAtCall == nil else { return }
        if let configError {
            gate(.config, false, "no config: \(configError.message)", [:], waits.config)
            return
        }
        gate(.config, true, waits.config == nil ? "already loaded" : "loaded while the call waited", [:], waits.config)
        guard let statusAtStart else { return }
        var read: [String: JSON] = ["status": .string(statusAtStart.wireName)]
        guard let statusWait = waits.status else {
            gate(.subscriptionStatus, true, "\(statusAtStart.wireName), known at once", read, nil)
            return
        }
        let after = statusAfterWait ?? .unknown
        read["statusAfterWait"] = .string(after.wireName)
        if after == .unknown {
            let bound = waits.statusBound.map { " within \(Self.text($0))" } ?? ""
            gate(
                .subscriptionStatus,
                false,
                "UNKNOWN: the host did not set it\(bound), so the wait gave up",
                read,
                statusWait
            )
        } else {
            gate(
                .subscriptionStatus,
                true,
                "UNKNOWN, then \(after.wireName): the host set it while the call waited",
                read,
                statusWait
            )
        }
    }

    private func appendAudienceGates(_ gate: AddGate) {
        guard let triggerResult else { return }
        switch triggerResult {
        case .placementNotFound:
            let nearest = knownPlacements.flatMap {
                NearestName.among($0.lazy.map(\.placementName), to: placement)
            }
            gate(
                .placement,
                false,
                "no campaign has this placement\(nearest.map { "; did you mean \($0)?" } ?? "")",
                nearest.map { ["nearestPlacement": .string($0)] } ?? [:],
                nil
            )
            return
        case .noAudienceMatch(let unmatched):
            gate(.placement, true, "found", [:], nil)
            let why = unmatched.map {
                "experiment \($0.experimentId) \($0.source == .occurrence ? "over its occurrence limit" : "rule not true")"
            }
            gate(
                .audiences,
                false,
                "no audience matched (\(why.isEmpty ? "none" : why.joined(separator: ", ")))",
                [
                    "unmatched": .array(
                        unmatched.map {
                            ["experimentId": .string($0.experimentId), "source": .string($0.source.rawValue)]
                        }
                    )
                ],
                nil
            )
        case .paywall(let experiment), .holdout(let experiment):
            gate(.placement, true, "found", [:], nil)
            appendMatchedAudience(experiment.id, campaign: experiment.groupId, gate)
            let confirmed = assignmentWasConfirmed == true
            let origin = assignmentOrigin ?? .sticky
            let kind = experiment.variant.kind == .holdout ? "a holdout" : "a treatment"
            gate(
                .experiment,
                experiment.variant.kind != .holdout,
                "variant \(experiment.variant.id) of experiment \(experiment.id), \(kind), "
                    + Self.describe(origin, confirmed: confirmed),
                [
                    "experimentId": .string(experiment.id), "variantId": .string(experiment.variant.id),
                    "variantType": .string(experiment.variant.kind.rawValue),
                    "assignment": .string(origin.rawValue), "confirmed": .bool(confirmed),
                    "paywallIdentifier": .optional(experiment.variant.paywallIdentifier),
                ],
                nil
            )
        case .noAssignment(let experimentId):
            gate(.placement, true, "found", [:], nil)
            appendMatchedAudience(experimentId, campaign: nil, gate)
            gate(
                .experiment,
                false,
                "the user has no assignment in experiment \(experimentId)",
                ["experimentId": .string(experimentId)],
                nil
            )
        }
    }

    private func appendMatchedAudience(_ experimentId: String, campaign: String?, _ gate: AddGate) {
        var read: [String: JSON] = ["experimentId": .string(experimentId)]
        var detail = "the audience of experiment \(experimentId)"
        if let campaign {
            read["campaignId"] = .string(campaign)
            detail += " (campaign \(campaign))"
        }
        detail += " matched"
        if let occurrence = matchedOccurrence {
            read["occurrenceKey"] = .string(occurrence.key)
            read["occurrenceLimit"] = .int(Int64(occurrence.maxCount))
            detail += "; its occurrence limit (\(occurrence.maxCount)) allows another"
        }
        gate(.audiences, true, detail, read, nil)
    }

    private func appendPaywallGates(_ gate: AddGate) {
        guard let lookup = paywallLookup else { return }
        let identifier: JSON = .optional(lookup.identifier)
        if let error = lookup.error {
            gate(.paywall, false, error.message, ["paywallIdentifier": identifier], waits.paywall)
            return
        }
        gate(
            .paywall,
            true,
            "paywall \(lookup.identifier ?? "") found",
            ["paywallIdentifier": identifier],
            waits.paywall
        )
        if let presenterDeclared {
            gate(
                .presenter,
                presenterDeclared,
                presenterDeclared ? "the host declared one" : "the host declared no presenter that can show it",
                [:],
                nil
            )
        }
        if let onScreen = paywallOnScreenAtShow {
            gate(
                .paywallOnScreen,
                false,
                "paywall \(onScreen.identifier) came on screen first (session \(onScreen.sessionId))",
                ["paywallIdentifier": .string(onScreen.identifier), "sessionId": .string(onScreen.sessionId)],
                nil
            )
        }
        guard let presentationWait = waits.presentation else { return }
        if case .failed(let error) = end {
            gate(.presentation, false, error.message, [:], presentationWait)
        } else {
            gate(.presentation, true, "the host showed it", [:], presentationWait)
        }
    }

    private var outcome: (String, String?) {
        switch end {
        case .skipped(let reason):
            switch reason {
            case .holdout: ("skipped", "holdout")
            case .noAudienceMatch: ("skipped", "noAudienceMatch")
            case .placementNotFound: ("skipped", "placementNotFound")
            }
        case .failed(let error): ("failed", error.code.kind)
        case .reached: ("paywall", nil)
        case .presented: ("presented", nil)
        case .confirmed: ("confirmed", nil)
        case nil: ("unfinished", nil)
        }
    }

    /// How the user came by the variant, in words.
    private static func describe(_ origin: Store.AssignmentOrigin, confirmed: Bool) -> String {
        let confirmation = confirmed ? ", confirmed with the server" : ""
        return switch origin {
        case .sticky: "kept from an earlier session (sticky)" + confirmation
        case .drawn: "drawn on this device" + confirmation
        case .server: "assigned by the server"
        case .override: "set by debug/overrideAssignment"
        }
    }

    /// `120 ms`, `1.5 ms`, `0 ms`.
    static func text(_ duration: Duration) -> String {
        let milliseconds = Double(duration.components.seconds) * 1000 + Double(duration.components.attoseconds) / 1e15
        if milliseconds >= 10 || milliseconds == 0 { return "\(Int(milliseconds.rounded())) ms" }
        return "\((milliseconds * 10).rounded() / 10) ms"
    }
}
