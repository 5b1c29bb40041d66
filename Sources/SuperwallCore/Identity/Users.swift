import Foundation

/// The user (SuperwallKit's identity manager): who they are, their attributes and the same as
/// text, the integration ids, and when the app was installed. Every change of them is one
/// method here, which persists what it changed before it changes anything in memory; the actor
/// tracks what a change means and hands the other owners their part (`identify` and `reset`
/// give `Assignments` and `Entitlements` the new user).
///
/// Owned by the `Superwall` actor, which is the only one to touch it. Before a session opens
/// it holds an empty anonymous user that nothing reads.
final class Users {
    /// Who the user is.
    private(set) var identity = Identity(aliasId: "", seed: 0)
    /// The user's attributes, the identity's own among them (`identityAttributes`).
    private(set) var attributes: [String: JSON] = [:]
    /// `attributes` as text, kept by `mergeAttributes` and dropped by any other change.
    private(set) var attributeTexts: AttributeTexts?
    /// The integration ids (`setIntegrationAttributes`).
    private(set) var integrationAttributes: [String: JSON] = [:]
    /// When the app was first seen in this data directory.
    private(set) var appInstalledAt = Date(timeIntervalSince1970: 0)

    /// A session opened on `store`: the user it holds, or a new anonymous one, persisted; the
    /// identity's attributes written when they changed (a restart on a full disk opens what it has).
    func sessionOpened(from store: Store, appInstalledAt: Date, random: any RandomSource) throws {
        let opened: Identity
        if let alias = try store.value(.aliasId), let seed = try store.value(.seed) {
            opened = Identity(aliasId: alias, appUserId: try store.value(.appUserId), seed: seed)
        } else {
            opened = Identity.anonymous(using: random)
            try store.changing { try Self.save(opened, in: $0) }
        }
        let stored = try store.userAttributes()
        let merged = Self.identityAttributes(of: opened, installedAt: appInstalledAt, merging: stored)
        if merged != stored { try store.setUserAttributes(merged, replacing: stored) }
        let integration: [String: JSON] = try store.value(.integrationAttributes) ?? [:]
        identity = opened
        attributes = merged
        attributeTexts = nil
        integrationAttributes = integration
        self.appInstalledAt = appInstalledAt
    }

    /// What `identify` did.
    enum Identified {
        /// The user had this id already.
        case unchanged
        /// The user is identified now; `switchedUsers` when another identified user was reset first.
        case identified(switchedUsers: Bool)
    }

    /// SuperwallKit's `identify`, for an id already normalized: the same id changes nothing;
    /// another identified user's place is taken by a new anonymous one first (with `random`),
    /// and `switching` adds to the transaction what else a new user changes; `reseeding` gives
    /// the user id's seed. One transaction: after a crash the store holds the old user or the new.
    func identify(
        as userId: String,
        reseeding: Bool,
        random: any RandomSource,
        in store: Store,
        switching: (Store.Changes) throws -> Void
    ) throws -> Identified {
        guard identity.appUserId != userId else { return .unchanged }
        let switchedUsers = identity.appUserId != nil
        var next = switchedUsers ? Identity.anonymous(using: random) : identity
        let base = switchedUsers ? [:] : attributes
        next.appUserId = userId
        if reseeding { next.seed = Identity.seed(forUserId: userId) }
        let merged = Self.identityAttributes(of: next, installedAt: appInstalledAt, merging: base)
        let stored = attributes
        try store.changing { changes in
            if switchedUsers {
                try changes.resetUser()
                try switching(changes)
            }
            try Self.save(next, in: changes)
            try changes.setUserAttributes(merged, replacing: switchedUsers ? [:] : stored)
        }
        identity = next
        attributes = merged
        attributeTexts = nil
        if switchedUsers { integrationAttributes = [:] }
        return .identified(switchedUsers: switchedUsers)
    }

    /// SuperwallKit's `reset`: a new anonymous user with a new alias and seed, no attributes but
    /// the identity's and no integration ids; the store forgets the user (`Store.Changes.resetUser`).
    func reset(random: any RandomSource, in store: Store) throws {
        let next = Identity.anonymous(using: random)
        let merged = Self.identityAttributes(of: next, installedAt: appInstalledAt, merging: [:])
        try store.changing { changes in
            try changes.resetUser()
            try Self.save(next, in: changes)
            try changes.setUserAttributes(merged, replacing: [:])
        }
        identity = next
        attributes = merged
        attributeTexts = nil
        integrationAttributes = [:]
    }

    /// The attributes after a merge, and the same as text.
    struct Merged {
        let attributes: [String: JSON]
        let texts: AttributeTexts
    }

    /// Merges `changes` with SuperwallKit's rules (`UserAttributes.merge`) and persists the
    /// members they name; refused past `UserAttributes.totalMemberLimit`. Only the text of the
    /// members named is written again (`AttributeTexts`).
    func mergeAttributes(_ changes: [String: JSON?], in store: Store) throws -> Merged {
        let installedAt = ISO8601.string(from: appInstalledAt)
        let merged = UserAttributes.merge(changes, into: attributes, applicationInstalledAt: installedAt)
        try Self.checkTotal(of: merged)
        let changedKeys = changes.keys.filter { !$0.hasPrefix("$") } + ["applicationInstalledAt"]
        var texts = attributeTexts ?? AttributeTexts(merged)
        if attributeTexts != nil { texts.update(changedKeys, from: merged) }
        try store.setUserAttributes(changedKeys, of: merged)
        attributes = merged
        attributeTexts = texts
        return Merged(attributes: merged, texts: texts)
    }

    /// Merges integration ids (a null removes one) and persists them. They become user
    /// attributes too (`mergeAttributes`, the caller's next step): checked against that bound
    /// before anything is stored.
    func mergeIntegrationAttributes(_ changes: [String: JSON?], in store: Store) throws {
        try Self.checkTotal(of: UserAttributes.merge(changes, into: attributes, applicationInstalledAt: ""))
        var merged = integrationAttributes
        for (key, value) in changes {
            if let value, value != .null {
                merged[key] = value
            } else {
                merged.removeValue(forKey: key)
            }
        }
        try store.set(merged, for: .integrationAttributes)
        integrationAttributes = merged
    }

    private static func checkTotal(of attributes: [String: JSON]) throws(SuperwallError) {
        let count = UserAttributes.memberCount(attributes)
        guard count <= UserAttributes.totalMemberLimit else {
            throw .attributesOverLimit(count: count, limit: UserAttributes.totalMemberLimit)
        }
    }

    private static func save(_ identity: Identity, in changes: Store.Changes) throws {
        try changes.set(identity.aliasId, for: .aliasId)
        try changes.set(identity.seed, for: .seed)
        if let appUserId = identity.appUserId {
            try changes.set(appUserId, for: .appUserId)
        } else {
            try changes.remove(.appUserId)
        }
    }

    /// The attributes identity keeps in the user's attributes: `aliasId`, `seed`, `appUserId`
    /// (when identified) and `applicationInstalledAt`.
    private static func identityAttributes(
        of identity: Identity,
        installedAt: Date,
        merging attributes: [String: JSON]
    ) -> [String: JSON] {
        var merged = attributes
        merged["aliasId"] = .string(identity.aliasId)
        merged["seed"] = .int(Int64(identity.seed))
        merged["appUserId"] = identity.appUserId.map(JSON.string)
        merged["applicationInstalledAt"] = .string(ISO8601.string(from: installedAt))
        return merged
    }
}
