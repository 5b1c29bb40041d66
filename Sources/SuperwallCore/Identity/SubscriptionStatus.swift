/// Whether the user is subscribed, as SuperwallKit models it (`EntitlementsStatus.swift`).
public enum SubscriptionStatus: Sendable, Equatable, Codable {
    /// Not known yet: presentation waits (bounded) for it to become known.
    case unknown
    case inactive
    case active(Set<Entitlement>)

    /// `.active([])` is inactive, as SuperwallKit resolves it, and an entitlement given twice
    /// is merged by priority.
    public var resolved: SubscriptionStatus {
        guard case .active(let entitlements) = self else { return self }
        if entitlements.isEmpty { return .inactive }
        let merged = Set(entitlements.mergedByPriority())
        return merged == entitlements ? self : .active(merged)
    }

    /// The entitlements it holds that are active, sorted by id.
    public var activeEntitlements: [Entitlement] {
        guard case .active(let entitlements) = resolved else { return [] }
        return entitlements.filter(\.isActive).sorted { $0.id < $1.id }
    }

    /// Active only when some entitlement it holds is.
    public var isActive: Bool { !activeEntitlements.isEmpty }

    /// `ACTIVE`, `INACTIVE` or `UNKNOWN`, as rules and events spell it.
    public var wireName: String {
        switch resolved {
        case .unknown: return "UNKNOWN"
        case .inactive: return "INACTIVE"
        case .active: return isActive ? "ACTIVE" : "INACTIVE"
        }
    }
}
