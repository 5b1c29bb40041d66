import Foundation
import Synchronization

/// What one presentation decided and why: the pipeline's gates in the order they ran, each
/// with what it read and how long it waited, then the outcome, which is the answer itself
/// (`explain: true`, `options.recordDecisions`, `debug/recentDecisions`).
///
/// A decision is recorded only when someone will read it: the call asked for it, the session
/// records every one, or the debug log prints it. Recording every decision by default cost a
/// skipped `register` 3 to 5 % more instructions, a price every call would pay for a record
/// most never read.
public struct PresentationDecision: Sendable, Equatable {
    public struct Gate: Sendable, Equatable {
        public enum Name: String, Sendable, CaseIterable {
            /// `register` found a paywall on screen when it was called (SuperwallKit's 102).
            case paywallOnScreen
            case config
            case subscriptionStatus
            case placement
            case audiences
            case experiment
            /// The paywall looked up in the config, with its products.
            case paywall
            case presenter
            /// The host asked to show the paywall, and what it did.
            case presentation
        }

        public var name: Name
        public var passed: Bool
        /// What the gate found, in one line, as the debug log prints it.
        public var detail: String
        /// The values it read, by name.
        public var read: [String: JSON]
        /// How long it waited; nil when it had nothing to wait for.
        public var waited: Duration?
    }

    /// How many of the last recorded decisions are kept (`Superwall.recentDecisions`).
    public static let keptRecently = 50

    /// The decision's number in the process's order, from 1.
    public var sequence: Int
    public var placement: String
    /// `register`, `getPresentationResult`, `getPaywall` or `implicit`.
    public var call: String
    /// When it was asked for.
    public var at: Date
    public var gates: [Gate]
    /// `presented`, `paywall` (found; this call does not show it), `skipped` or `failed`.
    public var outcome: String
    /// The skip's or the failure's reason, by SuperwallKit's name.
    public var reason: String?
    /// Each audience with its rule and the values the rule read, occurrence counts included;
    /// nil when the pipeline stopped before its audiences.
    public var audiences: [PlacementExplanation.AudienceCheck]?

    /// The decision as the debug log prints it: a line per gate, then the outcome.
    public var lines: [String] {
        let head = "\(call) \(placement):"
        var lines = gates.map { gate in
            "\(head) \(gate.name.rawValue): \(gate.detail)\(gate.waited.map { " [waited \(DecisionTrail.text($0))]" } ?? "")"
        }
        lines.append("\(head) outcome: \(outcome)\(reason.map { " (\($0))" } ?? "")")
        return lines
    }
}

/// Where a call finds its decision record (`explain: true`, or every call of a session that
/// records decisions), once its pipeline has made its decision, before `register` answers and before
/// `getPaywall` throws.
public final class DecisionReceiver: Sendable {
    private let stored = Mutex<PresentationDecision?>(nil)
    /// The call's `explain`: true or false, or nil to follow the session's
    /// `options.recordDecisions`, which the core applies.
    let explain: Bool?

    public init(explain: Bool? = true) { self.explain = explain }

    /// Whether the call gets its decision, when the session records every one or not.
    func wantsDecision(recordingAll: Bool) -> Bool { explain ?? recordingAll }

    public var decision: PresentationDecision? { stored.withLock { $0 } }

    func receive(_ decision: PresentationDecision) {
        stored.withLock { $0 = decision }
    }
}
