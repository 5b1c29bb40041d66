/// Whether the user is subscribed, as SuperwallKit models it (`EntitlementsStatus.swift`).
public enum SubscriptionStatus: Sendable, Equatable, Codable {
    /// Not known yet: presentation waits (bounded) for it to become known.
    case unknown
    case inactive
    case active(Set<Entitlement>)

    /// `.active([])` is inactive, as SuperwallKit resolves it.
    public var resolved: SubscriptionStatus {
        if case .active(let entitlements) = self, entitlements.isEmpty { return .inactive }
        return self
    }

    public var isActive: Bool {
        if case .active(let entitlements) = resolved { return !entitlements.isEmpty }
        return false
    }

    /// `ACTIVE`, `INACTIVE` or `UNKNOWN`, as rules and events spell it.
    public var wireName: String {
        switch resolved {
        case .unknown: return "UNKNOWN"
        case .inactive: return "INACTIVE"
        case .active: return "ACTIVE"
        }
    }
}
