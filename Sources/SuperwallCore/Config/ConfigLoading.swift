/// Where the session's config comes from and the work of loading it again: refreshes, the
/// watched file, the calls waiting for a config.
///
/// Owned by the `Superwall` actor, which is the only one to touch it.
final class ConfigLoading {
    /// Where the session's config comes from, and the servers it reaches; set with the session.
    private(set) var backend: SuperwallBackend?
    /// Why the last `configure` could not open a session, until one does.
    private(set) var failedConfigure: SuperwallError?
    /// The retries of a config fetch, as `configure` was told.
    private(set) var maxRetryCount = 6
    /// `ConfigureOptions.explainOnRefresh`.
    private(set) var explainedOnRefresh: [String] = []
    /// Refreshes the config when its file changes, once `configure` asked for it.
    private var watcher: ConfigFileWatcher?
    /// Config refreshes, one at a time.
    let refreshes = TurnQueue()
    /// A refresh for a change to the watched file is queued and has not yet read the file.
    private var watchedFileRefreshQueued = false
    /// The last refresh started in the background (by `configure` or a new app session).
    private(set) var backgroundRefresh: Task<Void, Never>?
    /// The config named the app's bundle id when the client gave none, and that was said.
    private var warnedOfUnknownBundleId = false
    /// Calls waiting for the config to load (or fail to).
    let waiters = ParkedContinuations<Void>()

    /// A session opened: its config comes from `backend`, as `options` say to load it.
    func start(from backend: SuperwallBackend, options: Superwall.ConfigureOptions) {
        failedConfigure = nil
        self.backend = backend
        maxRetryCount = options.maxConfigRetryCount
        explainedOnRefresh = options.explainOnRefresh
    }

    /// A config is in use: the calls waiting for one go on.
    func configDidChange() {
        waiters.resumeAll(())
    }

    /// The load ended with no config: the calls waiting for one go on, to find none. With
    /// `configDidChange`, the one door through which they wake.
    func loadFailed() {
        waiters.resumeAll(())
    }

    /// `configure` could not open a session, for `error`.
    func failed(_ error: SuperwallError) {
        failedConfigure = error
    }

    /// The session ends: its file is watched no more.
    func end() {
        watcher = nil
    }

    func watch(with watcher: ConfigFileWatcher) {
        self.watcher = watcher
    }

    /// Whether a change to the watched file needs a refresh queued: none is queued that has
    /// not yet read the file. When it does, one is taken to be queued until `refreshRead()`.
    func watchedFileChanged() -> Bool {
        guard !watchedFileRefreshQueued else { return false }
        watchedFileRefreshQueued = true
        return true
    }

    /// The queued refresh read the file: a change from now on needs another.
    func refreshRead() {
        watchedFileRefreshQueued = false
    }

    /// `refresh` runs in the background; `awaitBackgroundRefresh` waits for the latest.
    func runsInBackground(_ refresh: Task<Void, Never>) {
        backgroundRefresh = refresh
    }

    /// Whether the unknown bundle id is yet to be said, which it then is, once a session.
    func sayingUnknownBundleId() -> Bool {
        defer { warnedOfUnknownBundleId = true }
        return !warnedOfUnknownBundleId
    }
}
