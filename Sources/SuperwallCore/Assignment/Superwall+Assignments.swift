import Executors
import Foundation

extension Superwall {
    /// Draws what is missing and keeps what is sticky (`AssignmentPlanner`), then persists.
    func chooseAssignments() {
        guard let current = session, let config = current.config else { return }
        let planned = AssignmentPlanner.plan(for: config, stored: Array(current.assignments.values), random: random)
        guard planned != current.assignments else { return }
        for (experimentId, assignment) in planned
        where current.assignments[experimentId]?.variant.id != assignment.variant.id {
            session?.assignmentOrigins[experimentId] = .drawn
        }
        session?.assignments = planned
        try? current.store.replaceAssignments(with: planned.values.sorted { $0.experimentId < $1.experimentId })
    }

    /// Tells the server which variant the user saw (`POST /api/v1/confirm_assignments`), once
    /// per assignment, when the config comes from a server that takes confirmations. On
    /// failure the assignment stays unconfirmed and the next presentation tries again.
    func confirmAssignment(of experiment: Experiment) {
        guard let current = session, let assignment = current.assignments[experiment.id], !assignment.isSentToServer,
            let server = configLoading.backend?.assignments, paywalls.confirmationsInFlight[experiment.id] == nil
        else { return }
        let confirmation = AssignmentConfirmation(
            experimentId: assignment.experimentId,
            variantId: assignment.variant.id
        )
        let request = apiRequest(attemptTimeout: 10)
        paywalls.confirming(
            experiment.id,
            in: startTask { superwall in
                let confirmed = (try? await server.confirmAssignments([confirmation], request: request)) != nil
                superwall.confirmationFinished(confirmation, confirmed: confirmed)
            }
        )
    }

    private func confirmationFinished(_ confirmation: AssignmentConfirmation, confirmed: Bool) {
        paywalls.confirmed(confirmation.experimentId)
        guard confirmed, var assignment = session?.assignments[confirmation.experimentId],
            assignment.variant.id == confirmation.variantId
        else { return }
        assignment.isSentToServer = true
        session?.assignments[confirmation.experimentId] = assignment
        try? store?.save(assignment)
    }

    /// SuperwallKit's server assignments (`ConfigLogic.transferAssignments`): the variants the
    /// server holds for the user replace the local ones, as confirmed, when the config still
    /// has the experiment and the variant; the rest is ignored. Only a server that keeps
    /// assignments has any; a config without triggers asks for none.
    func fetchServerAssignments() async {
        guard let current = session, let config = current.config, !config.triggers.isEmpty,
            let server = configLoading.backend?.assignments
        else { return }
        let request = apiRequest(attemptTimeout: 10)
        guard let served = try? await server.fetchAssignments(request: request) else { return }
        let variants = Dictionary(
            config.triggers.flatMap(\.audiences).map { ($0.experimentId, $0.variants) },
            uniquingKeysWith: { first, _ in first }
        )
        for entry in served {
            guard let variant = variants[entry.experimentId]?.first(where: { $0.id == entry.variantId }) else {
                continue
            }
            let assignment = Store.Assignment(experimentId: entry.experimentId, variant: variant, isSentToServer: true)
            session?.assignments[entry.experimentId] = assignment
            session?.assignmentOrigins[entry.experimentId] = .server
            try? store?.save(assignment)
        }
        // The user's variants may have changed, and with them what to preload.
        if !served.isEmpty { preloadIfEnabled() }
    }

    /// `debug/overrideAssignment`: the user is given `variantId` of `experimentId`, as a server
    /// assignment gives it: confirmed, and kept until the experiment or the variant leaves the
    /// config. Either one the config does not have is refused, by name.
    public func overrideAssignment(experimentId: String, variantId: String) throws(SuperwallError) -> Store.Assignment {
        guard let current = session else { throw .notConfigured }
        guard let config = current.config else { throw .configUnavailable("the config has not loaded yet") }
        let audiences = config.triggers.flatMap(\.audiences)
        guard let variants = audiences.first(where: { $0.experimentId == experimentId })?.variants else {
            throw .notInConfig(
                path: "params.experimentId",
                message: "experiment \(experimentId.prefix(64)) is in no audience of the config"
            )
        }
        guard let variant = variants.first(where: { $0.id == variantId }) else {
            throw .notInConfig(
                path: "params.variantId",
                message:
                    "experiment \(experimentId.prefix(64)) has no variant \(variantId.prefix(64)); its variants are \(variants.map(\.id).joined(separator: ", "))"
            )
        }
        let assignment = Store.Assignment(experimentId: experimentId, variant: variant, isSentToServer: true)
        try persisting { try current.store.save(assignment) }
        session?.assignments[experimentId] = assignment
        session?.assignmentOrigins[experimentId] = .override
        return assignment
    }

    // MARK: Subscription status

    public func subscriptionStatus() throws(SuperwallError) -> SubscriptionStatus {
        guard let session else { throw .notConfigured }
        return session.subscriptionStatus
    }

    /// The host sets the status: it is applied, and the customer info recomputed from it; but
    /// while test mode is on, a status test mode set stands (the host's is logged and left).
    @discardableResult
    public func setSubscriptionStatus(_ status: SubscriptionStatus) throws(SuperwallError) -> SubscriptionStatus {
        try answeringWithoutSuspending { () throws(SuperwallError) -> SubscriptionStatus in
            guard let current = session else { throw .notConfigured }
            if isTestModeActive, let kept = purchases.testModeStatus, status.resolved != kept {
                // SuperwallKit resolves a status set while test mode is on to test mode's own.
                Self.logger.warning(
                    "setSubscriptionStatus(\(status.resolved.wireName)) was not applied: test mode is on, and its status (\(kept.wireName)) stands while it is, as in SuperwallKit"
                )
                return current.subscriptionStatus
            }
            let applied = try applySubscriptionStatus(status, byHost: true)
            try refreshCustomerInfo(derivingStatus: false)
            return applied
        }
    }

    /// Sets the status (`.active([])` is inactive), persists it, and on a change tells the
    /// delegate and tracks `subscriptionStatus_didChange` and `device_attributes`. A known
    /// status releases presentations waiting for one. One the bridge sets in test mode (not
    /// `byHost`) is test mode's, which then stands against the host's.
    @discardableResult
    func applySubscriptionStatus(
        _ status: SubscriptionStatus,
        byHost: Bool = false
    ) throws(SuperwallError) -> SubscriptionStatus {
        guard let current = session else { throw .notConfigured }
        let new = status.resolved
        let old = current.subscriptionStatus
        if isTestModeActive, !byHost { purchases.testModeSet(new) }
        guard new != old else { return new }
        try persisting { try current.store.set(new, for: .subscriptionStatus) }
        session?.subscriptionStatus = new
        host.delegate?.subscriptionStatusDidChange(from: old, to: new)
        var parameters: [String: JSON] = ["status": .string(new.wireName)]
        if case .active = new {
            parameters["active_entitlement_ids"] = .string(new.activeEntitlements.map(\.id).joined(separator: ","))
        }
        track("subscriptionStatus_didChange", parameters)
        trackDeviceAttributes()
        if new != .unknown { purchases.statusWaiters.resumeAll(true) }
        return new
    }
}

extension Superwall {
    /// How many confirmations are being posted now.
    public var confirmationsPending: Int { paywalls.confirmationsInFlight.count }
}
