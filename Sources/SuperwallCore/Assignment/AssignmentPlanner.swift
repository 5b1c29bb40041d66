/// An experiment as a placement's audience resolves it for this user: which campaign it is
/// part of and the variant the user is assigned.
public struct Experiment: Sendable, Equatable {
    public var id: String
    /// The campaign.
    public var groupId: String
    public var variant: Variant

    public init(id: String, groupId: String, variant: Variant) {
        self.id = id
        self.groupId = groupId
        self.variant = variant
    }
}

/// SuperwallKit's `ConfigLogic.chooseVariant`: a weighted integer draw.
enum VariantChooser {
    /// One variant is always chosen, whatever its weight; weights summing to zero draw
    /// uniformly; otherwise `r ∈ [0, sum)` picks the first variant whose running total
    /// exceeds it. Nil only when there are no variants.
    static func choose(_ variants: [Variant], using random: any RandomSource) -> Variant? {
        guard let first = variants.first else { return nil }
        if variants.count == 1 { return first }
        let sum = variants.reduce(0) { $0 + max(0, $1.percentage) }
        if sum == 0 { return variants[random.int(in: 0..<variants.count)] }
        let draw = random.int(in: 0..<sum)
        var runningTotal = 0
        for variant in variants {
            runningTotal += max(0, variant.percentage)
            if draw < runningTotal { return variant }
        }
        return variants.last
    }
}

/// SuperwallKit's `ConfigLogic.chooseAssignments`: which variant the user has in every
/// experiment of a config.
enum AssignmentPlanner {
    /// The assignments after a config is adopted. Audiences count once per campaign (the
    /// first placement seen with that campaign contributes its audiences). A stored
    /// assignment whose variant still exists is kept, confirmation state included; one whose
    /// variant vanished is drawn again, unconfirmed. Assignments of experiments no longer in
    /// the config are kept, as SuperwallKit keeps them.
    static func plan(
        for config: Config,
        stored: [Store.Assignment],
        random: any RandomSource
    ) -> [String: Store.Assignment] {
        var assignments = Dictionary(stored.map { ($0.experimentId, $0) }, uniquingKeysWith: { _, last in last })
        var campaigns: Set<String> = []
        for trigger in config.triggers {
            guard let first = trigger.audiences.first, campaigns.insert(first.experimentGroupId).inserted else {
                continue
            }
            for audience in trigger.audiences {
                if let existing = assignments[audience.experimentId],
                    let variant = audience.variants.first(where: { $0.id == existing.variant.id })
                {
                    assignments[audience.experimentId]?.variant = variant
                    continue
                }
                assignments[audience.experimentId] = VariantChooser.choose(audience.variants, using: random).map {
                    Store.Assignment(experimentId: audience.experimentId, variant: $0, isSentToServer: false)
                }
            }
        }
        return assignments
    }
}

extension AssignmentPlanner {
    /// SuperwallKit's `ConfigLogic.transferAssignments`: the variants the server holds for the
    /// user, as confirmed assignments, when `config` still has the experiment and the variant.
    static func transfer(_ served: [AssignmentConfirmation], in config: Config) -> [Store.Assignment] {
        let variants = Dictionary(
            config.triggers.flatMap(\.audiences).map { ($0.experimentId, $0.variants) },
            uniquingKeysWith: { first, _ in first }
        )
        return served.compactMap { entry in
            variants[entry.experimentId]?.first { $0.id == entry.variantId }.map {
                Store.Assignment(experimentId: entry.experimentId, variant: $0, isSentToServer: true)
            }
        }
    }

    /// `variantId` of `experimentId`, confirmed as a server assignment is; either one `config`
    /// does not have is refused, by name.
    static func override(
        _ experimentId: String,
        to variantId: String,
        in config: Config
    ) throws(SuperwallError) -> Store.Assignment {
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
        return Store.Assignment(experimentId: experimentId, variant: variant, isSentToServer: true)
    }
}
