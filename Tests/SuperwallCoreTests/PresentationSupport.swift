import Foundation
import TestSupport
import Testing

@testable import SuperwallCore

// Builders for configs with crafted placements, and fakes of the host: a presenter, a
// handler and a delegate that record what they are told.

/// The demo config's paywalls with the given placements (and toggles).
func presentationConfig(_ triggers: [[String: Any]], toggles: [String: Bool] = [:]) async throws -> String {
    let demo = try await EmbeddedConfigSource().fetchConfig(ConfigRequest(apiKey: "pk"))
    var config = try #require(try JSONSerialization.jsonObject(with: demo) as? [String: Any])
    config["trigger_options"] = triggers
    config["toggles"] = toggles.map { ["key": $0.key, "enabled": $0.value] }
    return String(decoding: try JSONSerialization.data(withJSONObject: config), as: UTF8.self)
}

func placement(_ name: String, _ audiences: [[String: Any]]) -> [String: Any] {
    ["event_name": name, "trigger_version": "V2", "rules": audiences]
}

func audience(
    _ experiment: String,
    campaign: String? = nil,
    rule: String?,
    variants: [[String: Any]],
    occurrence: [String: Any]? = nil,
    computed: [[String: Any]] = [],
    preload: String = "IF_TRUE"
) -> [String: Any] {
    var audience: [String: Any] = [
        "experiment_id": experiment, "experiment_group_id": campaign ?? "campaign-\(experiment)",
        "expression_cel": rule ?? NSNull(), "preload": ["behavior": preload], "variants": variants,
    ]
    if let occurrence { audience["occurrence"] = occurrence }
    if !computed.isEmpty { audience["computed_properties"] = computed }
    return audience
}

func treatment(_ id: String, _ paywall: String, _ percentage: Int = 100) -> [String: Any] {
    ["variant_id": id, "variant_type": "TREATMENT", "percentage": percentage, "paywall_identifier": paywall]
}

func holdout(_ id: String, _ percentage: Int = 100) -> [String: Any] {
    ["variant_id": id, "variant_type": "HOLDOUT", "percentage": percentage]
}

struct TextConfigSource: ConfigSource {
    var body: String
    func fetchConfig(_ request: ConfigRequest) async throws -> Data { Data(body.utf8) }
    var description: String { "test config" }
}

/// Draws the given integers in turn (offset into each range), then the last one again.
final class ScriptedRandomSource: RandomSource, @unchecked Sendable {
    private let lock = NSLock()
    private var draws: [Int]
    private var uuids = 0
    init(draws: [Int]) { self.draws = draws }
    func uuid() -> UUID {
        lock.withLock {
            uuids += 1
            return UUID(uuidString: String(format: "10000000-0000-4000-8000-%012d", uuids))!
        }
    }
    func int(in range: Range<Int>) -> Int {
        lock.withLock {
            let draw = draws.count > 1 ? draws.removeFirst() : (draws.first ?? 0)
            return range.lowerBound + draw
        }
    }
}

/// The host's screen: shows, refuses, or never answers.
final class FakePresenter: PaywallPresenter, @unchecked Sendable {
    enum Behavior { case show, refuse, hang }
    private let lock = NSLock()
    private var shown: [PaywallPresentation] = []
    private var dismissals: [(sessionId: String, result: PaywallResult, closeReason: PaywallCloseReason)] = []
    let canPresent: Bool
    private let behavior: Behavior
    /// Whether it warms web views; `preloadBehavior` says how it answers when asked.
    let canPreload: Bool
    private let preloadBehavior: Behavior
    private var warmed: [(paywall: String, page: PageBootstrap)] = []

    init(
        canPresent: Bool = true,
        behavior: Behavior = .show,
        canPreload: Bool = false,
        preloadBehavior: Behavior = .show
    ) {
        self.canPresent = canPresent
        self.behavior = behavior
        self.canPreload = canPreload
        self.preloadBehavior = preloadBehavior
    }

    func preload(_ paywall: Paywall, page: PageBootstrap) async throws {
        lock.withLock { warmed.append((paywall.identifier, page)) }
        switch preloadBehavior {
        case .show: return
        case .refuse: throw CocoaError(.featureUnsupported)
        case .hang: try await Task.sleep(for: .seconds(3600))
        }
    }

    /// The paywalls the host was asked to warm, in order, with their pages.
    var preloads: [(paywall: String, page: PageBootstrap)] { lock.withLock { warmed } }

    func present(_ presentation: PaywallPresentation) async throws {
        lock.withLock { shown.append(presentation) }
        switch behavior {
        case .show: return
        case .refuse: throw CocoaError(.featureUnsupported)
        case .hang: try await Task.sleep(for: .seconds(3600))
        }
    }

    func dismiss(
        sessionId: String,
        info: PaywallInfo,
        result: PaywallResult,
        closeReason: PaywallCloseReason
    ) async -> [String: JSON]? {
        lock.withLock {
            dismissals.append((sessionId, result, closeReason))
            return storedPageState
        }
    }

    /// What `dismiss` answers as the page's state (a host that renders the page).
    var pageState: [String: JSON]? {
        get { lock.withLock { storedPageState } }
        set { lock.withLock { storedPageState = newValue } }
    }
    private var storedPageState: [String: JSON]?

    func showAlert(_ alert: PaywallAlert, sessionId: String) async throws {
        lock.withLock { shownAlerts.append(alert) }
    }

    private var shownAlerts: [PaywallAlert] = []
    var alerts: [PaywallAlert] { lock.withLock { shownAlerts } }

    /// Every event passed into a page, decoded from its `accept64` argument, in order.
    private var passed: [(sessionId: String, event: JSON)] = []
    func passToPage(_ accept64: String, sessionId: String) {
        guard let data = Data(base64Encoded: accept64),
            case .array(let events)? = try? JSONDecoder().decode(JSON.self, from: data)
        else {
            lock.withLock { passed.append((sessionId, ["event_name": "(not base64 JSON)"])) }
            return
        }
        lock.withLock { passed.append(contentsOf: events.map { (sessionId, $0) }) }
    }

    /// What pages asked of the host, in order; a permission is answered `permissionAnswer`
    /// (nil: the host cannot ask).
    private var asked: [PageEffect] = []
    var permissionAnswer: PermissionStatus? = .granted
    /// What scheduling a notification answers: nil, or the OS's notification permission.
    var notificationAnswer: PermissionStatus? {
        get { lock.withLock { storedNotificationAnswer } }
        set { lock.withLock { storedNotificationAnswer = newValue } }
    }
    private var storedNotificationAnswer: PermissionStatus?
    func perform(_ effect: PageEffect, sessionId: String) async throws -> PermissionStatus? {
        lock.withLock { asked.append(effect) }
        if case .scheduleNotification = effect { return notificationAnswer }
        guard case .requestPermission = effect else { return nil }
        guard let answer = lock.withLock({ permissionAnswer }) else { throw PageEffectUnsupported() }
        return answer
    }

    var effects: [PageEffect] { lock.withLock { asked } }

    /// How the user answers a survey; nil: the host cannot show surveys.
    var surveyAnswer: (@Sendable (Survey) async throws -> SurveyAnswer)?
    private var askedSurveys: [Survey] = []
    func presentSurvey(_ survey: Survey, sessionId: String, info: PaywallInfo) async throws -> SurveyAnswer {
        let answer = lock.withLock {
            askedSurveys.append(survey)
            return surveyAnswer
        }
        guard let answer else { throw SurveysUnsupported() }
        return try await answer(survey)
    }

    /// The surveys the host was asked to show, in order, with their options as shown.
    var surveys: [Survey] { lock.withLock { askedSurveys } }

    var pageEvents: [JSON] { lock.withLock { passed.map(\.event) } }
    var pageEventNames: [String] { pageEvents.map { $0["event_name"]?.stringValue ?? "?" } }
    func clearPageEvents() { lock.withLock { passed.removeAll() } }

    var presentations: [PaywallPresentation] { lock.withLock { shown } }
    var dismissed: [(sessionId: String, result: PaywallResult, closeReason: PaywallCloseReason)] {
        lock.withLock { dismissals }
    }
}

/// A `register` call's handler, recording each callback by name.
final class RecordingHandler: PresentationHandler, @unchecked Sendable {
    private let lock = NSLock()
    private var recorded: [String] = []
    let handlesCustomCallbacks: Bool
    private let answer: @Sendable (CustomCallback) async -> CustomCallbackResult

    init(
        handlesCustomCallbacks: Bool = false,
        answer: @escaping @Sendable (CustomCallback) async -> CustomCallbackResult = { _ in
            CustomCallbackResult(status: .success)
        }
    ) {
        self.handlesCustomCallbacks = handlesCustomCallbacks
        self.answer = answer
    }

    private func record(_ call: String) { lock.withLock { recorded.append(call) } }
    func onPresent(_ info: PaywallInfo) { record("present \(info.identifier)") }
    func onWillDismiss(_ info: PaywallInfo, result: PaywallResult) {
        record("willDismiss \(info.identifier) \(info.closeReason.rawValue)")
    }
    func onDismiss(_ info: PaywallInfo, result: PaywallResult) {
        record("dismiss \(info.identifier) \(info.closeReason.rawValue)")
    }
    func onSkip(_ reason: PaywallSkipReason) { record("skip \(reason.statusReason)") }
    func onError(_ error: PresentationError) { record("error \(error.code.rawValue)") }
    func onCustomCallback(_ callback: CustomCallback) async -> CustomCallbackResult { await answer(callback) }

    var calls: [String] { lock.withLock { recorded } }
}

/// Records events and the paywall delegate calls, in order.
final class PaywallDelegate: SuperwallDelegate, @unchecked Sendable {
    private let lock = NSLock()
    private var recorded: [TrackedEvent] = []
    private var delegateCalls: [String] = []
    func handleSuperwallEvent(_ event: TrackedEvent) { lock.withLock { recorded.append(event) } }
    func willPresentPaywall(_ info: PaywallInfo) { call("willPresent \(info.identifier)") }
    func didPresentPaywall(_ info: PaywallInfo) { call("didPresent \(info.identifier)") }
    func willDismissPaywall(_ info: PaywallInfo) { call("willDismiss \(info.identifier)") }
    func didDismissPaywall(_ info: PaywallInfo) { call("didDismiss \(info.identifier)") }
    func handleCustomPaywallAction(name: String) { call("custom \(name)") }
    func paywallWillOpenURL(_ url: String) { call("openURL \(url)") }
    func paywallWillOpenDeepLink(_ url: String) { call("openDeepLink \(url)") }
    func handleSuperwallDeepLink(url: String, pathComponents: [String], queryParameters: [String: String]) {
        call(
            "superwallDeepLink \(url) \(pathComponents) \(queryParameters.sorted { $0.key < $1.key }.map { "\($0.key)=\($0.value)" })"
        )
    }
    func userAttributesDidChange(_ attributes: [String: JSON]) {
        call("attributes \(attributes["plan"]?.stringValue ?? "-")")
    }
    func subscriptionStatusDidChange(from old: SubscriptionStatus, to new: SubscriptionStatus) {
        call("status \(old.wireName) -> \(new.wireName)")
    }
    func customerInfoDidChange(from old: CustomerInfo, to new: CustomerInfo) {
        call("customerInfo \(new.entitlements.filter(\.isActive).map(\.id))")
    }
    func testModeTransaction(_ transaction: TestModeTransaction) {
        switch transaction {
        case .purchase(let product): call("testMode purchase \(product.id)")
        case .restore: call("testMode restore")
        }
    }
    private func call(_ text: String) { lock.withLock { delegateCalls.append(text) } }

    var names: [String] { lock.withLock { recorded.map(\.name) } }
    var events: [TrackedEvent] { lock.withLock { recorded } }
    var calls: [String] { lock.withLock { delegateCalls } }
    func clear() {
        lock.withLock {
            recorded.removeAll()
            delegateCalls.removeAll()
        }
    }
    /// The latest event named `name`.
    func event(_ name: String) -> TrackedEvent? { events.last { $0.name == name } }
}

extension Superwall.Timeouts {
    /// For a test whose own task sets the subscription status while a call waits for it: in one
    /// process with every suite, the busy-pool suite can hold that task back for seconds, so the
    /// wait's deadline is far enough that only the status ends it.
    static var statusTheTestSets: Self {
        var timeouts = Self()
        timeouts.subscriptionStatus = .seconds(120)
        return timeouts
    }
}

/// A configured core with fakes around it.
struct PresentationHarness {
    let superwall: Superwall
    let presenter: FakePresenter
    let delegate: PaywallDelegate
    let clock: FakeClock
    let directory: String

    static func make(
        _ config: String,
        presenter: FakePresenter = FakePresenter(),
        random: any RandomSource = CountingRandomSource(),
        usingPurchaseController: Bool = false,
        timeouts: Superwall.Timeouts = Superwall.Timeouts(),
        directory: String? = nil,
        source: (any ConfigSource)? = nil,
        purchaseController: (any PurchaseController)? = nil,
        testModeBehavior: TestModeBehavior = .automatic,
        automaticallyDismiss: Bool = true,
        storeProducts: [StoreProductDetails] = [],
        overrideProductsByName: [String: String] = [:],
        showsPurchaseFailureAlert: Bool = true,
        shouldPreload: Bool = false,
        explainOnRefresh: [String] = [],
        device: [String: JSON] = [:],
        testModeChooser: (any TestModeChooser)? = nil,
        recordDecisions: Bool = false,
        adjusting adjust: (inout Superwall.ConfigureOptions) -> Void = { _ in }
    ) async throws -> PresentationHarness {
        let delegate = PaywallDelegate()
        let clock = FakeClock()
        let directory =
            directory
            ?? FileManager.default.temporaryDirectory.appendingPathComponent("present-\(UUID().uuidString)").path
        let superwall = Superwall(
            clock: clock,
            random: random,
            delegate: delegate,
            presenter: presenter,
            purchaseController: purchaseController,
            testModeChooser: testModeChooser
        )
        var options = Superwall.ConfigureOptions(
            configSource: source ?? TextConfigSource(body: config),
            dataDirectory: directory,
            usingPurchaseController: usingPurchaseController,
            timeouts: timeouts,
            automaticallyDismiss: automaticallyDismiss,
            testModeBehavior: testModeBehavior,
            overrideProductsByName: overrideProductsByName,
            showsPurchaseFailureAlert: showsPurchaseFailureAlert,
            shouldPreload: shouldPreload,
            storeProducts: storeProducts
        )
        options.explainOnRefresh = explainOnRefresh
        options.device = device
        options.recordDecisions = recordDecisions
        adjust(&options)
        _ = try await superwall.configure(apiKey: "pk_test", options: options)
        await superwall.awaitPresentationQueue()
        delegate.clear()
        return PresentationHarness(
            superwall: superwall,
            presenter: presenter,
            delegate: delegate,
            clock: clock,
            directory: directory
        )
    }

    /// Starts a `register` that runs until the paywall is dismissed.
    func registerInBackground(
        _ placement: String,
        params: [String: JSON] = [:],
        handler: RecordingHandler? = nil
    ) -> Task<PresentationOutcome, any Error> {
        Task { try await superwall.register(placement: placement, params: params, handler: handler) }
    }

    /// Waits (bounded) until the host has been asked to show `count` paywalls, and answers
    /// the last one's session.
    func waitForPresentation(_ count: Int = 1) async throws -> PaywallPresentation {
        try await eventually { presenter.presentations.count >= count }
        try await eventually { await superwall.openSessionId == presenter.presentations.last?.sessionId }
        return try #require(presenter.presentations.last)
    }
}

extension Superwall {
    /// Whether a call waits for the subscription status now: a test sets the status once it
    /// does, rather than after a pause that a loaded machine may not give the call.
    var waitsForTheSubscriptionStatus: Bool { userEntitlements.statusWaiters.count > 0 }
    /// Whether a call waits for the first customer info now.
    var waitsForTheCustomerInfo: Bool { userEntitlements.customerInfoWaiters.count > 0 }
}

/// Polls `condition` every few milliseconds for up to 30 seconds.
func eventually(_ condition: () async -> Bool) async throws {
    // Long, as every suite runs at once on two cores; only a failing test waits it out.
    let deadline = ContinuousClock.now + expectationTimeout
    while ContinuousClock.now < deadline {
        if await condition() { return }
        try await Task.sleep(for: .milliseconds(5))
    }
    if await condition() { return }
    Issue.record("the condition did not hold within 30 seconds")
    throw CancellationError()
}

/// A config source whose body a test changes between fetches.
final class MutableConfigSource: ConfigSource, @unchecked Sendable {
    private let lock = NSLock()
    private var text: String
    init(_ body: String) { text = body }
    var body: String {
        get { lock.withLock { text } }
        set { lock.withLock { text = newValue } }
    }
    func fetchConfig(_ request: ConfigRequest) async throws -> Data { Data(body.utf8) }
    var description: String { "mutable test config" }
}

/// `config` (JSON text) after `edit` changes its object.
func edited(_ config: String, _ edit: (inout [String: Any]) -> Void) throws -> String {
    var object = try #require(try JSONSerialization.jsonObject(with: Data(config.utf8)) as? [String: Any])
    edit(&object)
    return String(decoding: try JSONSerialization.data(withJSONObject: object), as: UTF8.self)
}

/// Changes the paywalls of a config's object: `change` sees each one and returns it, or nil to drop it.
func editPaywalls(_ object: inout [String: Any], _ change: ([String: Any]) -> [String: Any]?) {
    object["paywall_responses"] = ((object["paywall_responses"] as? [[String: Any]]) ?? []).compactMap(change)
}
