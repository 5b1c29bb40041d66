import Executors
import Foundation
import Logging
import Synchronization

extension Superwall {
    public func identity() throws(SuperwallError) -> Identity {
        guard session != nil else { throw .notConfigured }
        return users.identity
    }

    /// SuperwallKit's `identify`: trims the id; the same id is a no-op; switching from one
    /// identified user to another resets first; anonymous to identified keeps the alias,
    /// attributes and assignments. Tracks `identity_alias`.
    ///
    /// A switch of users is one transaction (the reset, the new identity, its attributes and
    /// its first assignments): after a crash at any moment the data directory holds the old
    /// user or the new one, whole.
    public func identify(userId: String) throws(SuperwallError) -> Identity {
        try answeringWithoutSuspending { () throws(SuperwallError) -> Identity in
            guard let session else { throw .notConfigured }
            guard let userId = Identity.normalizedUserId(userId) else { throw .invalidUserId }
            let config = session.config
            let reseeds = config?.featureFlags.enableUserIdSeed == true
            var drawn: [String: Store.Assignment]?
            let identified = try persisting {
                try users.identify(as: userId, reseeding: reseeds, random: random, in: session.store) { changes in
                    drawn = try Assignments.drawForNewUser(from: config, random: random, in: changes)
                }
            }
            guard case .identified(let switching) = identified else { return users.identity }
            device.templateInputsChanged()
            if let drawn { userAssignments.userChanged(to: drawn) }
            if switching {
                let heldWebEntitlements = userEntitlements.userReset()
                trackResetAttributes()
                try userWasReset(revokingWebEntitlements: heldWebEntitlements)
            }
            // SuperwallKit saves its ids, and tracks the merged attributes, as each is set: the
            // user id, then (after the alias) the seed the user id gives.
            DecisionLog.identityManager.debug(
                "identify: user \(userId)\(switching ? ", switching from another identified user (reset first: new alias, no attributes or assignments)" : ", keeping the anonymous user's alias, attributes and assignments")"
            )
            trackIdentityAttributes()
            track("identity_alias")
            if reseeds { trackIdentityAttributes() }
            announceTestMode()
            return users.identity
        }
    }

    /// `identify` with SuperwallKit's `IdentityOptions`: the server's assignments for the user
    /// are fetched (with a config source that keeps them), before answering when
    /// `restorePaywallAssignments`, in the background otherwise.
    public func identify(userId: String, restorePaywallAssignments: Bool) async throws(SuperwallError) -> Identity {
        try await answering { () async throws(SuperwallError) -> Identity in
            let previous = session == nil ? nil : users.identity.appUserId
            let identity = try identify(userId: userId)
            guard identity.appUserId != previous else { return identity }
            redeemExistingCodes()
            // Forked now, not when the answer lands (`preloadIfEnabled`), and only for a server
            // that keeps assignments: a session on a file draws as it did.
            let preloading = configLoading.backend?.assignments == nil ? nil : random.fork()
            if restorePaywallAssignments {
                _ = await waitForConfig()
                await fetchServerAssignments(preloadingWith: preloading)
            } else {
                startTask { superwall in
                    _ = await superwall.waitForConfig()
                    await superwall.fetchServerAssignments(preloadingWith: preloading)
                }
            }
            return session == nil ? identity : users.identity
        }
    }

    /// SuperwallKit's `reset`: a new anonymous user with a new alias and seed and no
    /// attributes; the placement log keeps only `app_install` and `app_launch`. Tracks
    /// `first_seen` again, then `reset`.
    public func reset() throws(SuperwallError) -> Identity {
        try answeringWithoutSuspending { () throws(SuperwallError) -> Identity in
            try resetUser(trackingReset: true)
            return users.identity
        }
    }

    private func resetUser(trackingReset: Bool) throws(SuperwallError) {
        guard let session else { throw .notConfigured }
        try persisting { try users.reset(random: random, in: session.store) }
        device.templateInputsChanged()
        userAssignments.userChanged(to: [:])
        let heldWebEntitlements = userEntitlements.userReset()
        DecisionLog.identityManager.debug(
            "reset: a new anonymous user \(users.identity.aliasId), seed \(users.identity.seed)"
        )
        trackResetAttributes()
        announceTestMode()
        try userWasReset(revokingWebEntitlements: heldWebEntitlements)
        if trackingReset {
            track("reset")
            preloadIfEnabled()
        }
    }

    /// `user_attributes` once for each id a reset sets: SuperwallKit tracks the merge as it sets
    /// each of the user id, the alias and the seed.
    private func trackResetAttributes() {
        for _ in 0..<3 { trackIdentityAttributes() }
    }

    /// `user_attributes` with the user's attributes as they are now.
    private func trackIdentityAttributes() {
        guard session != nil else { return }
        track(
            "user_attributes",
            ["application_installed_at": .string(ISO8601.string(from: users.appInstalledAt))],
            custom: users.attributes
        )
    }

    /// What follows a reset once it is on disk: the new user's assignments, customer info
    /// (without the web's entitlements the user before held) and `first_seen`.
    private func userWasReset(revokingWebEntitlements: Bool) throws(SuperwallError) {
        chooseAssignments()
        try refreshCustomerInfo(webEntitlementsChanged: revokingWebEntitlements)
        trackFirstSeenIfNeeded()
    }

    // MARK: Attributes

    public func userAttributes() throws(SuperwallError) -> [String: JSON] {
        guard session != nil else { throw .notConfigured }
        return users.attributes
    }

    /// Merges with SuperwallKit's rules (see `UserAttributes.merge`), persists, and tracks
    /// `user_attributes` with the merged attributes.
    public func setUserAttributes(_ changes: [String: JSON?]) throws(SuperwallError) -> [String: JSON] {
        try mergeUserAttributes(changes).attributes
    }

    /// The attributes after a `setUserAttributes`, and the same as text.
    public struct MergedAttributes: Sendable {
        public let attributes: [String: JSON]
        public let texts: AttributeTexts
    }

    /// `setUserAttributes`, answered with the attributes' text too: only the members the
    /// change names are written (see `AttributeTexts`).
    public func mergeUserAttributes(_ changes: [String: JSON?]) throws(SuperwallError) -> MergedAttributes {
        try answeringWithoutSuspending { () throws(SuperwallError) -> MergedAttributes in
            guard let session else { throw .notConfigured }
            let merged = try persisting { try users.mergeAttributes(changes, in: session.store) }
            DecisionLog.identityManager.debug(
                "user attributes merged: \(changes.keys.sorted().map { changes[$0]! == nil || changes[$0]!! == .null ? "-\($0)" : $0 }.joined(separator: ", ")) (\(merged.attributes.count) in all)"
            )
            var event = tracker.makeEvent(
                "user_attributes",
                ["application_installed_at": .string(ISO8601.string(from: users.appInstalledAt))],
                custom: merged.attributes
            )
            event.customParametersText = CustomParametersText(merged.texts)
            record(event)
            return MergedAttributes(attributes: merged.attributes, texts: merged.texts)
        }
    }

    public func integrationAttributes() throws(SuperwallError) -> [String: JSON] {
        guard session != nil else { throw .notConfigured }
        return users.integrationAttributes
    }

    /// Merges integration ids (a null removes one), persists them, and, as SuperwallKit does,
    /// also writes them into the user's attributes. Tracks `integration_attributes`.
    public func setIntegrationAttributes(_ changes: [String: JSON?]) throws(SuperwallError) -> [String: JSON] {
        try answeringWithoutSuspending { () throws(SuperwallError) -> [String: JSON] in
            guard let session else { throw .notConfigured }
            try persisting { try users.mergeIntegrationAttributes(changes, in: session.store) }
            track("integration_attributes", [:], custom: users.integrationAttributes)
            _ = try setUserAttributes(changes)
            return users.integrationAttributes
        }
    }
}
