import Executors
import Foundation
import Logging
import Synchronization

extension Superwall {
    public func identity() throws(SuperwallError) -> Identity {
        guard let session else { throw .notConfigured }
        return session.identity
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
            guard var current = session else { throw .notConfigured }
            guard let userId = Identity.normalizedUserId(userId) else { throw .invalidUserId }
            if current.identity.appUserId == userId { return current.identity }
            let storedAttributes = current.userAttributes
            let switching = current.identity.appUserId != nil
            if switching { current = anonymized(current) }
            current.identity.appUserId = userId
            let reseeds = current.config?.featureFlags.enableUserIdSeed == true
            if reseeds { current.identity.seed = Identity.seed(forUserId: userId) }
            current.userAttributes = identityAttributes(current, merging: current.userAttributes)
            let drawn = switching ? current.config.map { Assignments.drawn(for: $0, random: random) } ?? [:] : nil
            let updated = current
            try persisting {
                try updated.store.changing { changes in
                    if switching {
                        try changes.resetUser()
                        try changes.replaceAssignments(
                            with: (drawn ?? [:]).values.sorted { $0.experimentId < $1.experimentId }
                        )
                    }
                    try save(updated.identity, in: changes)
                    try changes.setUserAttributes(
                        updated.userAttributes,
                        replacing: switching ? [:] : storedAttributes
                    )
                }
            }
            session = updated
            if let drawn { userAssignments.userChanged(to: drawn) }
            if switching {
                trackResetAttributes()
                try userWasReset()
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
            return updated.identity
        }
    }

    /// `identify` with SuperwallKit's `IdentityOptions`: the server's assignments for the user
    /// are fetched (with a config source that keeps them), before answering when
    /// `restorePaywallAssignments`, in the background otherwise.
    public func identify(userId: String, restorePaywallAssignments: Bool) async throws(SuperwallError) -> Identity {
        try await answering { () async throws(SuperwallError) -> Identity in
            let previous = session?.identity.appUserId
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
            return session?.identity ?? identity
        }
    }

    /// SuperwallKit's `reset`: a new anonymous user with a new alias and seed and no
    /// attributes; the placement log keeps only `app_install` and `app_launch`. Tracks
    /// `first_seen` again, then `reset`.
    public func reset() throws(SuperwallError) -> Identity {
        try answeringWithoutSuspending { () throws(SuperwallError) -> Identity in
            guard session != nil else { throw .notConfigured }
            try resetUser(trackingReset: true)
            return session!.identity
        }
    }

    private func resetUser(trackingReset: Bool) throws(SuperwallError) {
        guard let current = session else { throw .notConfigured }
        let updated = anonymized(current)
        try persisting {
            try updated.store.changing { changes in
                try changes.resetUser()
                try save(updated.identity, in: changes)
                try changes.setUserAttributes(updated.userAttributes, replacing: [:])
            }
        }
        session = updated
        userAssignments.userChanged(to: [:])
        userEntitlements.userReset()
        DecisionLog.identityManager.debug(
            "reset: a new anonymous user \(updated.identity.aliasId), seed \(updated.identity.seed)"
        )
        trackResetAttributes()
        announceTestMode()
        try userWasReset()
        if trackingReset {
            track("reset")
            preloadIfEnabled()
        }
    }

    /// `session` as a reset leaves it: a new anonymous user with a new alias and seed and no
    /// attributes (its assignments and web entitlements, `Assignments` and `Entitlements`, are
    /// cleared once the reset is persisted).
    private func anonymized(_ session: Session) -> Session {
        var reset = session
        reset.identity = Identity.anonymous(using: random)
        reset.userAttributes = identityAttributes(reset, merging: [:])
        reset.integrationAttributes = [:]
        return reset
    }

    /// `user_attributes` once for each id a reset sets: SuperwallKit tracks the merge as it sets
    /// each of the user id, the alias and the seed.
    private func trackResetAttributes() {
        for _ in 0..<3 { trackIdentityAttributes() }
    }

    /// `user_attributes` with the user's attributes as they are now.
    private func trackIdentityAttributes() {
        guard let session else { return }
        track(
            "user_attributes",
            ["application_installed_at": .string(ISO8601.string(from: session.appInstalledAt))],
            custom: session.userAttributes
        )
    }

    /// What follows a reset once it is on disk: the new user's assignments, customer info
    /// and `first_seen`.
    private func userWasReset() throws(SuperwallError) {
        chooseAssignments()
        try refreshCustomerInfo()
        trackFirstSeenIfNeeded()
    }

    func save(_ identity: Identity, in changes: Store.Changes) throws {
        try changes.set(identity.aliasId, for: .aliasId)
        try changes.set(identity.seed, for: .seed)
        if let appUserId = identity.appUserId {
            try changes.set(appUserId, for: .appUserId)
        } else {
            try changes.remove(.appUserId)
        }
    }

    func save(_ identity: Identity, to store: Store) throws {
        try store.changing { try save(identity, in: $0) }
    }

    /// The attributes identity keeps in the user's attributes: `aliasId`, `seed`, `appUserId`
    /// (when identified) and `applicationInstalledAt`.
    func identityAttributes(_ session: Session, merging attributes: [String: JSON]) -> [String: JSON] {
        var merged = attributes
        merged["aliasId"] = .string(session.identity.aliasId)
        merged["seed"] = .int(Int64(session.identity.seed))
        merged["appUserId"] = session.identity.appUserId.map(JSON.string)
        merged["applicationInstalledAt"] = .string(ISO8601.string(from: session.appInstalledAt))
        return merged
    }

    // MARK: Attributes

    public func userAttributes() throws(SuperwallError) -> [String: JSON] {
        guard let session else { throw .notConfigured }
        return session.userAttributes
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
            guard var current = session else { throw .notConfigured }
            let installedAt = ISO8601.string(from: current.appInstalledAt)
            let kept = current.userAttributeTexts
            current.userAttributes = UserAttributes.merge(
                changes,
                into: current.userAttributes,
                applicationInstalledAt: installedAt
            )
            DecisionLog.identityManager.debug(
                "user attributes merged: \(changes.keys.sorted().map { changes[$0]! == nil || changes[$0]!! == .null ? "-\($0)" : $0 }.joined(separator: ", ")) (\(current.userAttributes.count) in all)"
            )
            try Self.checkTotal(of: current.userAttributes)
            let changedKeys = changes.keys.filter { !$0.hasPrefix("$") } + ["applicationInstalledAt"]
            var texts = kept ?? AttributeTexts(current.userAttributes)
            if kept != nil { texts.update(changedKeys, from: current.userAttributes) }
            current.userAttributeTexts = texts
            let updated = current
            try persisting { try updated.store.setUserAttributes(changedKeys, of: updated.userAttributes) }
            session = updated
            var event = tracker.makeEvent(
                "user_attributes",
                ["application_installed_at": .string(installedAt)],
                custom: updated.userAttributes
            )
            event.customParametersText = CustomParametersText(texts)
            record(event)
            return MergedAttributes(attributes: updated.userAttributes, texts: texts)
        }
    }

    private static func checkTotal(of attributes: [String: JSON]) throws(SuperwallError) {
        let count = UserAttributes.memberCount(attributes)
        guard count <= UserAttributes.totalMemberLimit else {
            throw .attributesOverLimit(count: count, limit: UserAttributes.totalMemberLimit)
        }
    }

    public func integrationAttributes() throws(SuperwallError) -> [String: JSON] {
        guard let session else { throw .notConfigured }
        return session.integrationAttributes
    }

    /// Merges integration ids (a null removes one), persists them, and, as SuperwallKit does,
    /// also writes them into the user's attributes. Tracks `integration_attributes`.
    public func setIntegrationAttributes(_ changes: [String: JSON?]) throws(SuperwallError) -> [String: JSON] {
        try answeringWithoutSuspending { () throws(SuperwallError) -> [String: JSON] in
            guard var current = session else { throw .notConfigured }
            // They become user attributes too: checked against that bound before anything is stored.
            try Self.checkTotal(
                of: UserAttributes.merge(changes, into: current.userAttributes, applicationInstalledAt: "")
            )
            for (key, value) in changes {
                if let value, value != .null {
                    current.integrationAttributes[key] = value
                } else {
                    current.integrationAttributes.removeValue(forKey: key)
                }
            }
            let updated = current
            try persisting { try updated.store.set(updated.integrationAttributes, for: .integrationAttributes) }
            session = updated
            track("integration_attributes", [:], custom: updated.integrationAttributes)
            _ = try setUserAttributes(changes)
            return updated.integrationAttributes
        }
    }
}
