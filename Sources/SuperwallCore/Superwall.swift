import Executors
import Foundation
import Logging
import Synchronization

/// The SDK: SuperwallKit's public surface, headless, in async Swift.
///
/// The actor is the SDK's one door: its state lives in the components it owns (`Paywalls`,
/// `Assignments`, `Purchases`, `EventTracker` and the others, each the only writer of its own
/// fields) and in the session's values; the world outside is reached only through the
/// protocols it is given (config source, clock, random source, delegate) and its data directory.
public actor Superwall {
    public enum ConfigurationStatus: String, Sendable {
        case pending, configured, failed
    }

    public struct ConfigureOptions: Sendable {
        public var configSource: any ConfigSource
        /// Where state persists; the per-API-key default under `$XDG_DATA_HOME` when nil.
        public var dataDirectory: String?
        /// Whether opening a directory another session of this process holds waits (up to
        /// two seconds, on the calling thread) for it to let go; false for a caller that
        /// waited already (`DataDirectory.waitUntilThisProcessLetsGo`), suspended.
        public var waitsForThisProcessToLetGo = true
        /// Where the store's background worker runs beside the calls (`Store.WorkerPlacement`):
        /// the host that runs the session knows the machine.
        public var storeWorker: Store.WorkerPlacement = .besideTheCalls
        /// Device facts the client reports, by template name (`platform`, `appVersion`, ...).
        public var device: [String: JSON]
        /// SuperwallKit's `networkEnvironment`, `logging.level` and `localeIdentifier`, as
        /// given: reported in `config_attributes`.
        public var networkEnvironment = "release"
        public var logLevel: Logger.Level?
        public var localeIdentifier: String?
        /// SuperwallKit's `maxConfigRetryCount` (default 6).
        public var maxConfigRetryCount: Int
        /// Whether the host performs purchases and owns the subscription status. Without one
        /// the status starts inactive (this process has no store of its own); with one it
        /// stays unknown until the host sets it.
        public var usingPurchaseController: Bool
        public var timeouts: Timeouts
        /// SuperwallKit's `paywalls.automaticallyDismiss`: a purchase or restore closes the paywall.
        public var automaticallyDismiss: Bool
        public var testModeBehavior: TestModeBehavior
        /// SuperwallKit's `paywalls.overrideProductsByName`: a paywall product's name (`primary`,
        /// ...) to the identifier of the product shown and sold in its place.
        public var overrideProductsByName: [String: String]
        /// SuperwallKit's `paywalls.shouldShowPurchaseFailureAlert`: a failed purchase asks the
        /// host to show an alert (unless a `transaction_fail` campaign shows a paywall instead).
        public var showsPurchaseFailureAlert: Bool
        /// SuperwallKit's `paywalls.restoreFailed`: the alert a restore that found nothing shows.
        public var restoreFailedAlert = PaywallAlert.restoreFailed
        /// SuperwallKit's `paywalls.shouldShowWebRestorationAlert`: a restore from a paywall that
        /// leaves part of it locked offers the web restore, when the config has its page.
        public var showsWebRestorationAlert = true
        /// SuperwallKit's `paywalls.shouldShowWebPurchaseConfirmationAlert`: a redeemed web
        /// purchase is confirmed in an alert over the paywall on screen.
        public var showsWebPurchaseConfirmationAlert = true
        /// SuperwallKit's `paywalls.notificationPermissionsDenied`: shown over the paywall when
        /// the host says the OS refused a page's notification; nil (the default) shows nothing.
        public var notificationPermissionsDeniedAlert: PaywallAlert?
        /// SuperwallKit's `shouldObservePurchases` (observer mode): the app buys through its own
        /// store and reports each purchase (`observePurchaseStart`, ...); `purchase` is refused.
        public var observesPurchases = false
        /// SuperwallKit's `enableExperimentalDeviceVariables`: the device template carries the
        /// latest subscription's state, offer and renewal.
        public var enableExperimentalDeviceVariables: Bool
        /// SuperwallKit's `paywalls.shouldPreload`: preload paywalls after the config loads,
        /// refreshes or the user changes.
        public var shouldPreload: Bool
        /// What the host's store says of products (price, period, trial).
        public var storeProducts: [StoreProductDetails]
        /// With a file source: refresh whenever the file changes (editors' hot reload).
        public var watchConfigFile: Bool
        /// Which events go out (to the collector, or the data directory's `events.jsonl`).
        public var eventTrackingBehavior: EventTrackingBehavior
        /// How often the event queue is flushed: SuperwallKit's 20 s in release.
        public var eventFlushInterval: Duration
        /// The most events kept waiting to be sent.
        var eventQueueBound = 100_000
        /// Placements whose decision each refresh compares before and after
        /// (`ConfigRefresh.decisionChanges`).
        public var explainOnRefresh: [String] = []
        /// Seeds every random draw of the session (`SeededRandomSource`): a test option.
        public var randomSeed: UInt64?
        /// Records every presentation's decision, as if each call had asked for it, and keeps
        /// the last ones (`PresentationDecision`, `Superwall.recentDecisions`).
        public var recordDecisions = false

        public init(
            configSource: any ConfigSource,
            dataDirectory: String? = nil,
            device: [String: JSON] = [:],
            maxConfigRetryCount: Int = 6,
            usingPurchaseController: Bool = false,
            timeouts: Timeouts = Timeouts(),
            automaticallyDismiss: Bool = true,
            testModeBehavior: TestModeBehavior = .automatic,
            overrideProductsByName: [String: String] = [:],
            showsPurchaseFailureAlert: Bool = true,
            enableExperimentalDeviceVariables: Bool = false,
            shouldPreload: Bool = true,
            storeProducts: [StoreProductDetails] = [],
            watchConfigFile: Bool = false,
            eventTrackingBehavior: EventTrackingBehavior = .all,
            eventFlushInterval: Duration = .seconds(20)
        ) {
            self.configSource = configSource
            self.dataDirectory = dataDirectory
            self.device = device
            self.maxConfigRetryCount = maxConfigRetryCount
            self.usingPurchaseController = usingPurchaseController
            self.timeouts = timeouts
            self.automaticallyDismiss = automaticallyDismiss
            self.testModeBehavior = testModeBehavior
            self.overrideProductsByName = overrideProductsByName
            self.showsPurchaseFailureAlert = showsPurchaseFailureAlert
            self.shouldPreload = shouldPreload
            self.enableExperimentalDeviceVariables = enableExperimentalDeviceVariables
            self.storeProducts = storeProducts
            self.watchConfigFile = watchConfigFile
            self.eventTrackingBehavior = eventTrackingBehavior
            self.eventFlushInterval = eventFlushInterval
        }
    }

    /// The bounds of the waits on the host (`configure.options.timeouts`).
    public struct Timeouts: Sendable, Equatable {
        /// How long presentation waits for a known subscription status (SuperwallKit: 5 s).
        public var subscriptionStatus: Duration = .seconds(5)
        /// How long the host may take to show or take down a paywall.
        public var presentation: Duration = .seconds(30)
        /// How long the host may take to answer a paywall's custom callback.
        public var customCallback: Duration = .seconds(30)
        /// How long the purchase controller may take to buy (a store sheet can take long).
        public var purchase: Duration = .seconds(600)
        /// How long the purchase controller may take to restore.
        public var restore: Duration = .seconds(120)
        /// How long `configure` may spend fetching a config with its retries before it
        /// answers (with the cached config, or `failed`); a refresh in the background has none.
        public var config: Duration = .seconds(60)
        /// How long the host may take to perform what a page asked of it (open a link, show a
        /// spinner); a permission prompt waits for the user, so it gets `customCallback`'s.
        public var pageEffect: Duration = .seconds(10)
        /// How long the user may take to answer a survey. SuperwallKit's survey waits for as
        /// long as it takes; here the host is a process that may never answer.
        public var survey: Duration = .seconds(300)

        public init() {}
    }

    public struct ConfigureOutcome: Sendable, Equatable {
        public var status: ConfigurationStatus
        public var userId: String?
        public var error: SuperwallError?
        /// What was found wrong with the data directory's files when they were opened (a lost
        /// or damaged write-ahead log, a record that is not valid): the session goes on.
        public var storeProblems: [String] = []
        /// Why purchases are simulated, or nil when they go to the purchase controller.
        public var testMode: TestModeReason?
        /// The data directory the session opened.
        public var dataDirectory: String?
        /// What decoding the config in use left out: elements dropped and keys no decoder
        /// reads (`Config.droppedElements`, `ignoredMembers`).
        public var configProblems: [ConfigProblem] = []
    }

    /// `ConfigureOptions.recordDecisions`: every decision is recorded, and each call gets its
    /// decision unless it said `explain: false`.
    nonisolated var recordsDecisions: Bool { hostAccess.recordsDecisions.load(ordering: .relaxed) }

    /// What a host reaches of the session without entering the actor: flags it reads, and the
    /// store's work it runs when idle.
    final class HostAccess: Sendable {
        let recordsDecisions = Atomic<Bool>(false)
        let upkeep = StoreUpkeep()
    }

    nonisolated let hostAccess = HostAccess()

    /// Whether every presentation's decision is recorded now: the session asks for it, or the
    /// debug log prints each one.
    public nonisolated var recordsEveryDecision: Bool {
        recordsDecisions || DecisionLog.paywallPresentation.logLevel <= .debug
    }

    /// Does what the SDK put off so as not to hold up a call's answer: under a load that leaves
    /// no idle CPU, moving the placement log's backlog from its journal into SQLite. A host calls
    /// it when it has answered everything and has nothing else to run; it costs next to nothing
    /// when there is nothing to do. Without it, the call that finds the backlog at twice its
    /// limit does that work before it answers.
    public nonisolated func performUpkeep() {
        hostAccess.upkeep.perform()
    }

    /// The actor runs on a lane rather than the cooperative pool, so that a request's deadline
    /// holds while the pool is busy (see `SerialLane`).
    private nonisolated let lane: SerialLane
    /// Where heavy work and the SDK's background tasks run (docs/concurrency.md): the
    /// process's one offload executor.
    nonisolated var offload: OffloadExecutor { .shared }
    public nonisolated var unownedExecutor: UnownedSerialExecutor { lane.asUnownedSerialExecutor() }

    let clock: any WallClock
    /// The system's, or a seeded one once `configure` is given `randomSeed`.
    var random: any RandomSource
    let host: HostPorts
    /// The wait between config retries; SuperwallKit's backoff unless a test shortens it.
    let retryDelay: @Sendable (Int, Int) -> Duration
    var session: Session? {
        didSet { device.templateInputsChanged() }
    }
    /// The session's store.
    var store: Store? { session?.store }

    // The components: each owns the state of one area (see its type).
    let device = DeviceOverrides()
    let paywalls = Paywalls()
    let tracker: EventTracker
    let configLoading = ConfigLoading()
    let purchases = Purchases()
    let redemptions = Redemptions()
    let decisions = RecentDecisions()
    let userAssignments = Assignments()
    /// The user's subscription status and customer info, and what they are derived from.
    let userEntitlements = Entitlements()
    /// Who the user is and their attributes.
    let users = Users()

    public init(
        clock: any WallClock = SystemWallClock(),
        random: any RandomSource = SystemRandomSource(),
        delegate: (any SuperwallDelegate)? = nil,
        presenter: (any PaywallPresenter)? = nil,
        purchaseController: (any PurchaseController)? = nil,
        testModeChooser: (any TestModeChooser)? = nil,
        retryDelay: @escaping @Sendable (Int, Int) -> Duration = RetryPolicy.superwallBackoff,
        lane: SerialLane = SerialLane()
    ) {
        self.lane = lane
        self.clock = clock
        self.random = random
        host = HostPorts(
            delegate: delegate,
            presenter: presenter,
            purchaseController: purchaseController,
            testModeChooser: testModeChooser
        )
        self.retryDelay = retryDelay
        tracker = EventTracker(clock: clock, ids: random, host: host)
    }
}
