import Foundation

/// SuperwallKit's priority merge (`shouldTakePriorityOver`, `mergePrioritized`): when
/// two sources know the same entitlement, the one that says more about an active purchase wins.
extension Entitlement {
    /// The rules in order; the first that tells them apart decides. A tie keeps `other`.
    public func takesPriority(over other: Entitlement) -> Bool {
        if isActive != other.isActive { return isActive }
        if hasTransactionHistory != other.hasTransactionHistory { return hasTransactionHistory }
        if (isLifetime == true) != (other.isLifetime == true) { return isLifetime == true }
        if isRevoked != other.isRevoked { return !isRevoked }
        switch (expiresAt, other.expiresAt) {
        case (let mine?, let theirs?) where mine != theirs: return mine > theirs
        case (.some, nil): return true
        case (nil, .some): return false
        default: break
        }
        switch (willRenew, other.willRenew) {
        case (.some, nil): return true
        case (nil, .some): return false
        case (let mine?, let theirs?) where mine != theirs: return mine
        default: break
        }
        switch (state, other.state) {
        case (.some, nil): return true
        case (nil, .some): return false
        case (.some, .some) where isInGracePeriod != other.isInGracePeriod: return !isInGracePeriod
        default: return false
        }
    }

    /// A purchase stands behind it: a latest product, or Superwall's own store.
    var hasTransactionHistory: Bool { latestProductId != nil || store == .superwall }
}

extension Sequence<Entitlement> {
    /// One entitlement per id: the one with priority, in sequence order when tied, carrying
    /// the product ids of every one merged into it. Sorted by id.
    public func mergedByPriority() -> [Entitlement] {
        var byId: [String: Entitlement] = [:]
        for candidate in self {
            guard let existing = byId[candidate.id] else {
                byId[candidate.id] = candidate
                continue
            }
            var winner = candidate.takesPriority(over: existing) ? candidate : existing
            winner.productIds = existing.productIds.union(candidate.productIds)
            byId[candidate.id] = winner
        }
        return byId.values.sorted { $0.id < $1.id }
    }
}
