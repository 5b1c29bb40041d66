import Executors
import Foundation

/// What a config refresh did: the paywalls it added, changed (a new `cache_key`) and removed,
/// by identifier, or why it kept the config it had.
public struct ConfigRefresh: Sendable, Equatable {
    /// The build in use after the refresh: the new one, or the old one when it failed.
    public var buildId: String?
    public var added: [String] = []
    public var changed: [String] = []
    public var removed: [String] = []
    /// Why the refresh failed; nil when the new config is in use.
    public var error: SuperwallError?
    /// Of the placements `configure` asked to explain on refresh, those whose decision for
    /// the current user the new config changed, in the order they were asked for.
    public var decisionChanges: [DecisionChange] = []
    /// What the refresh changed besides paywalls, so an editor can show what an edit did:
    /// placements by name, campaigns by `experiment_group_id`, and experiments (each
    /// audience rule) by `experiment_id`.
    public var placements = ConfigDiff()
    public var campaigns = ConfigDiff()
    public var experiments = ConfigDiff()
    /// What `superwall-bridge validate` finds in the new config: rules that do not compile,
    /// elements SuperwallKit drops, variants naming a missing paywall, then its warnings.
    /// The config is in use all the same, as SuperwallKit would use it.
    public var warnings: [ConfigProblem] = []

    public var refreshed: Bool { error == nil }

    /// `added`, `changed` and `removed` (the paywalls, by identifier) in the shape of
    /// `placements`, `campaigns` and `experiments`.
    public var paywalls: ConfigDiff {
        var diff = ConfigDiff()
        (diff.added, diff.changed, diff.removed) = (added, changed, removed)
        return diff
    }
}

/// The names a refresh added, changed and removed, each sorted.
public struct ConfigDiff: Sendable, Equatable {
    public var added: [String] = []
    public var changed: [String] = []
    public var removed: [String] = []

    public init() {}

    init<Value: Equatable>(from before: [String: Value], to after: [String: Value]) {
        added = after.keys.filter { before[$0] == nil }.sorted()
        removed = before.keys.filter { after[$0] == nil }.sorted()
        changed = after.compactMap { name, value in before[name].flatMap { $0 != value ? name : nil } }.sorted()
    }
}

extension Config {
    /// The paywalls `self` adds, changes and removes compared with `old`, by cache key
    /// (`ConfigLogic.getRemovedOrChangedPaywallIds`, with the additions too).
    func paywallChanges(from old: Config?) -> ConfigDiff {
        func keys(_ config: Config?) -> [String: String] {
            Dictionary(
                (config?.paywalls ?? []).map { ($0.identifier, $0.cacheKey) },
                uniquingKeysWith: { first, _ in first }
            )
        }
        return ConfigDiff(from: keys(old), to: keys(self))
    }

    func placementChanges(from old: Config?) -> ConfigDiff {
        func triggers(_ config: Config?) -> [String: Trigger] {
            Dictionary((config?.triggers ?? []).map { ($0.placementName, $0) }, uniquingKeysWith: { _, last in last })
        }
        return ConfigDiff(from: triggers(old), to: triggers(self))
    }

    /// Each campaign's audiences, with the placement each is on.
    func campaignChanges(from old: Config?) -> ConfigDiff {
        ConfigDiff(from: audiences(of: old, by: \.experimentGroupId), to: audiences(of: self, by: \.experimentGroupId))
    }

    func experimentChanges(from old: Config?) -> ConfigDiff {
        ConfigDiff(from: audiences(of: old, by: \.experimentId), to: audiences(of: self, by: \.experimentId))
    }

    private struct PlacedAudience: Equatable {
        var placement: String
        var audience: Audience
    }

    private func audiences(of config: Config?, by key: KeyPath<Audience, String>) -> [String: [PlacedAudience]] {
        var grouped: [String: [PlacedAudience]] = [:]
        for trigger in config?.triggers ?? [] {
            for audience in trigger.audiences {
                grouped[audience[keyPath: key], default: []].append(
                    PlacedAudience(placement: trigger.placementName, audience: audience)
                )
            }
        }
        return grouped
    }
}

extension Superwall {
    /// SuperwallKit's `refreshConfiguration()`: fetches the config again from its
    /// source and puts it in use, dropping what was loaded of paywalls that changed or went,
    /// re-drawing assignments whose variants vanished, and tracking `config_refresh`. On
    /// failure the config in use stays, and the answer says why.
    ///
    /// Unlike SuperwallKit, a session whose first config failed to load tries again here, so
    /// an editor that fixes a broken config file recovers without restarting.
    ///
    /// Refreshes run one at a time, in the order they were asked for, so each report compares
    /// against the config the one before it left, and an older read never replaces a newer one.
    public func refreshConfiguration() async throws(SuperwallError) -> ConfigRefresh {
        try await answering { () async throws(SuperwallError) -> ConfigRefresh in
            try await refreshConfiguration(onTurn: {})
        }
    }

    /// `onTurn` runs when this refresh's turn comes, before the source is read.
    private func refreshConfiguration(onTurn: () -> Void) async throws(SuperwallError) -> ConfigRefresh {
        guard session != nil, let source = configLoading.backend?.config else { throw .notConfigured }
        var report = ConfigRefresh()
        await configLoading.refreshes.run {
            onTurn()
            report = await self.refresh(from: source)
        }
        host.delegate?.configDidRefresh(report)
        return report
    }

    private func refresh(from source: any ConfigSource) async -> ConfigRefresh {
        let old = session?.config
        let before =
            old.map { old in configLoading.explainedOnRefresh.map { explanation(of: $0, in: old).decision } } ?? []
        do {
            // Bounded as `configure`'s fetch is: without it, attempts of 60 s and their retries ran for minutes.
            try await fetchAndAdopt(
                from: source,
                cachedBuildId: old?.buildId,
                maxRetries: configLoading.maxRetryCount,
                timeLimit: timeouts.config
            )
            guard let new = session?.config else { throw SuperwallError.configUnavailable("the config is gone") }
            let changes = new.paywallChanges(from: old)
            var report = ConfigRefresh(
                buildId: new.buildId,
                added: changes.added,
                changed: changes.changed,
                removed: changes.removed
            )
            report.placements = new.placementChanges(from: old)
            report.campaigns = new.campaignChanges(from: old)
            report.experiments = new.experimentChanges(from: old)
            report.warnings = new.problems + new.warnings
            let problems = new.problems + new.ignoredMembers
            for problem in problems.prefix(10) {
                Self.logger.warning("the refreshed config \(new.buildId) is in use, but \(problem)")
            }
            if problems.count > 10 {
                Self.logger.warning(
                    "the refreshed config \(new.buildId) has \(problems.count - 10) more problems: see config/didRefresh's warnings"
                )
            }
            for (placement, before) in zip(configLoading.explainedOnRefresh, before) {
                let after = explanation(of: placement, in: new)
                if after.decision != before {
                    report.decisionChanges.append(DecisionChange(placement: placement, before: before, after: after))
                }
            }
            return report
        } catch let error as ConfigDecodingError {
            return ConfigRefresh(buildId: old?.buildId, error: .invalidConfig(error))
        } catch {
            return ConfigRefresh(buildId: old?.buildId, error: .configUnavailable("\(error)"))
        }
    }
}

extension Superwall {
    /// Watches a file source's file and refreshes on each settled change, reporting each
    /// refresh (or why it kept the config in use) through `configDidRefresh`. Other sources
    /// have nothing to watch.
    func watchConfigFile(of backend: SuperwallBackend) {
        guard let path = backend.watchedFile else { return }
        do {
            configLoading.watch(
                with: try ConfigFileWatcher(path: path) { [weak self, offload] in
                    Task(executorPreference: offload) { await self?.refreshForWatchedFile() }
                }
            )
        } catch {
            host.delegate?.configDidRefresh(
                ConfigRefresh(buildId: config?.buildId, error: .configUnavailable("\(error)"))
            )
        }
    }

    /// One refresh for any number of changes that arrive before it starts reading the file:
    /// a change after that queues the next one.
    private func refreshForWatchedFile() async {
        guard configLoading.watchedFileChanged() else { return }
        _ = try? await refreshConfiguration(onTurn: { configLoading.refreshRead() })
    }
}
