/// Where the session's config comes from and the work of loading it again: refreshes, the
/// watched file, the calls waiting for a config.
///
/// Owned by the `Superwall` actor, which is the only one to touch it.
final class ConfigLoading {
    /// Where the session's config comes from, and the servers it reaches; set with the session.
    private(set) var backend: SuperwallBackend?
    /// Why the last `configure` could not open a session, until one does.
    var failedConfigure: SuperwallError?
    /// The retries of a config fetch, as `configure` was told.
    private(set) var maxRetryCount = 6
    /// `ConfigureOptions.explainOnRefresh`.
    private(set) var explainedOnRefresh: [String] = []
    /// Refreshes the config when its file changes, once `configure` asked for it.
    var watcher: ConfigFileWatcher?
    /// Config refreshes, one at a time.
    let refreshes = TurnQueue()
    /// A refresh for a change to the watched file is queued and has not yet read the file.
    var watchedFileRefreshQueued = false
    /// The last refresh started in the background (by `configure` or a new app session).
    var backgroundRefresh: Task<Void, Never>?
    /// The config named the app's bundle id when the client gave none, and that was said.
    var warnedOfUnknownBundleId = false
    /// Calls waiting for the config to load (or fail to).
    let waiters = ParkedContinuations<Void>()

    /// A session opened: its config comes from `backend`, as `options` say to load it.
    func start(from backend: SuperwallBackend, options: Superwall.ConfigureOptions) {
        failedConfigure = nil
        self.backend = backend
        maxRetryCount = options.maxConfigRetryCount
        explainedOnRefresh = options.explainOnRefresh
    }
}
