import Executors
import Foundation
import Rules

/// The user's assignments as the server sees them: confirmations, the server's own, overrides.
extension Superwall {
    // MARK: Assignments

    /// How many confirmations are being posted now.
    public var confirmationsPending: Int { userAssignments.confirmationsInFlight.count }

    /// Draws what is missing and keeps what is sticky (`AssignmentPlanner`), then persists.
    func chooseAssignments() {
        guard let current = session, let config = current.config else { return }
        userAssignments.configDidChange(config, random: random, store: current.store)
    }

    /// Tells the server which variant the user saw (`POST /api/v1/confirm_assignments`), once
    /// per assignment, when the config comes from a server that takes confirmations. On
    /// failure the assignment stays unconfirmed and the next presentation tries again.
    func confirmAssignment(of experiment: Experiment) {
        guard session != nil, let assignment = userAssignments.needsConfirmation(of: experiment.id),
            let server = configLoading.backend?.assignments
        else { return }
        let confirmation = AssignmentConfirmation(
            experimentId: assignment.experimentId,
            variantId: assignment.variant.id
        )
        let request = apiRequest(attemptTimeout: 10)
        userAssignments.confirming(
            experiment.id,
            in: startTask { superwall in
                let confirmed = (try? await server.confirmAssignments([confirmation], request: request)) != nil
                superwall.confirmationFinished(confirmation, confirmed: confirmed)
            }
        )
    }

    private func confirmationFinished(_ confirmation: AssignmentConfirmation, confirmed: Bool) {
        userAssignments.confirmationFinished(confirmation, confirmed: confirmed, store: store)
    }

    /// SuperwallKit's server assignments (`ConfigLogic.transferAssignments`): the variants the
    /// server holds for the user replace the local ones, as confirmed, when the config still
    /// has the experiment and the variant; the rest is ignored. Only a server that keeps
    /// assignments has any; a config without triggers asks for none. A preload they call for
    /// draws from `random`, forked when the fetch was asked for.
    func fetchServerAssignments(preloadingWith random: (any RandomSource)?) async {
        guard let current = session, let config = current.config, !config.triggers.isEmpty,
            let server = configLoading.backend?.assignments, let random
        else { return }
        let request = apiRequest(attemptTimeout: 10)
        guard let served = try? await server.fetchAssignments(request: request) else { return }
        userAssignments.tookFromServer(AssignmentPlanner.transfer(served, in: config), store: store)
        // The user's variants may have changed, and with them what to preload.
        if !served.isEmpty { preloadIfEnabled(drawingFrom: random) }
    }

    /// `debug/overrideAssignment`: the user is given `variantId` of `experimentId`, as a server
    /// assignment gives it: confirmed, and kept until the experiment or the variant leaves the
    /// config. Either one the config does not have is refused, by name.
    public func overrideAssignment(experimentId: String, variantId: String) throws(SuperwallError) -> Store.Assignment {
        guard let current = session else { throw .notConfigured }
        guard let config = current.config else { throw .configUnavailable("the config has not loaded yet") }
        let assignment = try AssignmentPlanner.override(experimentId, to: variantId, in: config)
        try persisting { try current.store.save(assignment) }
        userAssignments.overridden(assignment)
        return assignment
    }
}
