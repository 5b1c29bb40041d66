import Foundation
import Testing

@testable import SuperwallCore

/// A clock that stands still unless moved.
final class FakeClock: WallClock, @unchecked Sendable {
    private let lock = NSLock()
    private var current: Date
    init(_ start: Date = Date(timeIntervalSince1970: 1_790_000_000)) { current = start }
    func now() -> Date { lock.withLock { current } }
    func advance(by seconds: TimeInterval) { lock.withLock { current += seconds } }
}

/// Counts UUIDs so each alias is distinct and predictable.
final class CountingRandomSource: RandomSource, @unchecked Sendable {
    private let lock = NSLock()
    private var count = 0
    func uuid() -> UUID {
        lock.withLock {
            count += 1
            return UUID(uuidString: String(format: "00000000-0000-4000-8000-%012d", count))!
        }
    }
    func int(in range: Range<Int>) -> Int { range.lowerBound + 7 % range.count }
}

final class RecordingDelegate: SuperwallDelegate, @unchecked Sendable {
    private let lock = NSLock()
    private var recorded: [TrackedEvent] = []
    func handleSuperwallEvent(_ event: TrackedEvent) { lock.withLock { recorded.append(event) } }
    var names: [String] { lock.withLock { recorded.map(\.name) } }
    var events: [TrackedEvent] { lock.withLock { recorded } }
    func clear() { lock.withLock { recorded.removeAll() } }
}

private struct InMemoryConfigSource: ConfigSource {
    var body: String
    func fetchConfig(_ request: ConfigRequest) async throws -> Data { Data(body.utf8) }
    var description: String { "test config" }
}

private func temporaryDirectory() -> String {
    FileManager.default.temporaryDirectory.appendingPathComponent("superwall-\(UUID().uuidString)").path
}

private func makeSuperwall(
    _ delegate: RecordingDelegate = RecordingDelegate(),
    clock: FakeClock = FakeClock()
) -> Superwall {
    Superwall(clock: clock, random: CountingRandomSource(), delegate: delegate)
}

/// Configures an instance and lets it go once its launch events' implicit triggers have
/// settled (until then they hold it, and its data directory).
private func configureOnce(apiKey: String, options: Superwall.ConfigureOptions) async {
    let superwall = makeSuperwall()
    _ = await superwall.configure(apiKey: apiKey, options: options)
    await superwall.awaitPresentationQueue()
}

private func options(
    _ directory: String,
    source: any ConfigSource = EmbeddedConfigSource(),
    device: [String: JSON] = [:]
) -> Superwall.ConfigureOptions {
    Superwall.ConfigureOptions(configSource: source, dataDirectory: directory, device: device, shouldPreload: false)
}

@Suite struct ConfigureTests {
    @Test func theEmbeddedDemoConfigDecodes() async throws {
        let config = try await Config.decode(from: EmbeddedConfigSource().fetchConfig(ConfigRequest(apiKey: "pk")))
        #expect(config.triggers.count == 7)
        #expect(config.paywalls.count == 6)
        #expect(config.paywalls.contains { $0.featureGating == .gated })
        #expect(config.paywalls.contains { $0.featureGating == .nonGated })
        #expect(config.triggers.flatMap(\.audiences).flatMap(\.variants).contains { $0.kind == .holdout })
        #expect(config.triggers.flatMap(\.audiences).contains { $0.occurrence != nil })
        #expect(config.trigger(for: "deepLink_open") != nil)
        #expect(Set(config.products.flatMap(\.entitlements).map(\.id)) == ["pro", "coach"])
        #expect(config.droppedElements.isEmpty)
    }

    @Test func aFirstConfigureTracksTheLaunchEventsInOrder() async {
        let delegate = RecordingDelegate()
        let directory = temporaryDirectory()
        let outcome = await makeSuperwall(delegate).configure(apiKey: "pk_test", options: options(directory))
        #expect(outcome.status == .configured)
        #expect(outcome.error == nil)
        #expect(outcome.userId?.hasPrefix("$SuperwallAlias:") == true)
        // The demo config's implicit triggers (on `app_launch` and `session_start`) run beside
        // `configure` and may have tracked their own events by now.
        let launchEvents = delegate.names.filter { !["trigger_fire", "paywallPresentationRequest"].contains($0) }
        #expect(
            launchEvents == [
                "app_install", "app_launch", "first_seen", "session_start", "config_refresh", "device_attributes",
                "config_attributes",
            ]
        )
        // SuperwallKit's options dump, defaults included; never the local data directory.
        let attributes = delegate.events.first { $0.name == "config_attributes" }?.superwallParameters ?? [:]
        #expect(
            attributes["networkEnvironment"] == "release" && attributes["shouldPreload"] != nil
                && attributes["testModeBehavior"] == "automatic"
        )
        #expect(attributes["dataDirectory"] == nil)
        #expect(!attributes.values.contains(.string(directory)))
        let refresh = delegate.events.first { $0.name == "config_refresh" }
        #expect(refresh?.delegateParameters["config_build_id"] == "pt-2026-11-20.3")
        #expect(refresh?.delegateParameters["cache_status"] == "NOT_CACHED")
        #expect(refresh?.delegateParameters["is_superwall"] == true)
        #expect(refresh?.audienceParameters["$config_build_id"] == "pt-2026-11-20.3")
        #expect(refresh?.audienceParameters["$is_standard_event"] == true)
        #expect(refresh?.audienceParameters["event_name"] == "config_refresh")
    }

    @Test func aSecondConfigureChangesNothingAndAnotherKeyIsRefused() async {
        let delegate = RecordingDelegate()
        let superwall = makeSuperwall(delegate)
        let directory = temporaryDirectory()
        let first = await superwall.configure(apiKey: "pk_test", options: options(directory))
        delegate.clear()
        let second = await superwall.configure(apiKey: "pk_test", options: options(directory))
        #expect(second == first)
        // The first configure's implicit triggers may still be tracking their own events.
        #expect(
            delegate.names.filter { !["trigger_fire", "paywallPresentationRequest"].contains($0) }.isEmpty,
            "\(delegate.names)"
        )
        let other = await superwall.configure(apiKey: "pk_other", options: options(directory))
        #expect(other.error?.kind == "apiKeyMismatch")
        #expect(other.status == .configured)
    }

    @Test func aRestartOnTheSameDirectoryIsTheSameUserWithoutInstallEvents() async throws {
        let directory = temporaryDirectory()
        let firstUser: String?
        do {
            let superwall = makeSuperwall()
            firstUser = await superwall.configure(apiKey: "pk_test", options: options(directory)).userId
            _ = try await superwall.identify(userId: "user_42")
            _ = try await superwall.setUserAttributes(["plan": "pro"])
            await superwall.awaitPresentationQueue()
        }
        let delegate = RecordingDelegate()
        let restarted = makeSuperwall(delegate)
        let outcome = await restarted.configure(apiKey: "pk_test", options: options(directory))
        #expect(outcome.userId == "user_42")
        #expect(firstUser != outcome.userId)
        #expect(try await restarted.userAttributes()["plan"] == "pro")
        #expect(delegate.names.prefix(2) == ["app_launch", "session_start"])
        #expect(!delegate.names.contains("app_install"))
        #expect(!delegate.names.contains("first_seen"))
    }

    @Test func anInvalidConfigFailsWithItsPathAndTracksConfigFail() async {
        let delegate = RecordingDelegate()
        let source = InMemoryConfigSource(body: #"{"build_id": 7}"#)
        let outcome = await makeSuperwall(delegate).configure(
            apiKey: "pk_test",
            options: options(temporaryDirectory(), source: source)
        )
        #expect(outcome.status == .failed)
        // The same kind a refresh and `validate` give: an invalid config, not a failed fetch.
        #expect(outcome.error?.kind == "invalidConfig")
        #expect(outcome.error?.description.contains("$.build_id") == true)
        let failure = delegate.events.first { $0.name == "config_fail" }
        #expect(failure?.delegateParameters["error_message"]?.stringValue?.contains("$.build_id") == true)
    }

    @Test func aFailedFetchFallsBackToTheCachedConfig() async throws {
        let directory = temporaryDirectory()
        let path = directory + "-config.json"
        try await EmbeddedConfigSource().fetchConfig(ConfigRequest(apiKey: "pk")).write(to: URL(fileURLWithPath: path))
        do { await configureOnce(apiKey: "pk_test", options: options(directory, source: FileConfigSource(path: path))) }
        try FileManager.default.removeItem(atPath: path)
        let delegate = RecordingDelegate()
        let superwall = makeSuperwall(delegate)
        let outcome = await superwall.configure(
            apiKey: "pk_test",
            options: options(directory, source: FileConfigSource(path: path))
        )
        #expect(outcome.status == .configured)
        #expect(delegate.events.first { $0.name == "config_refresh" }?.delegateParameters["cache_status"] == "CACHED")
        #expect(await superwall.config?.buildId == "pt-2026-11-20.3")
    }

    @Test func theCachedConfigIsDroppedWhenTheAPIKeyChanges() async throws {
        let directory = temporaryDirectory()
        let path = directory + "-config.json"
        try await EmbeddedConfigSource().fetchConfig(ConfigRequest(apiKey: "pk")).write(to: URL(fileURLWithPath: path))
        do { await configureOnce(apiKey: "pk_one", options: options(directory, source: FileConfigSource(path: path))) }
        try FileManager.default.removeItem(atPath: path)
        let outcome = await makeSuperwall().configure(
            apiKey: "pk_two",
            options: options(directory, source: FileConfigSource(path: path))
        )
        #expect(outcome.status == .failed)
        #expect(outcome.error?.description.contains("cannot read the config file") == true)
    }

    @Test func aDataDirectoryInUseFailsConfigureClearly() async {
        let directory = temporaryDirectory()
        let holder = makeSuperwall()
        _ = await holder.configure(apiKey: "pk_test", options: options(directory))
        let outcome = await makeSuperwall().configure(apiKey: "pk_test", options: options(directory))
        #expect(outcome.status == .failed)
        #expect(outcome.error?.kind == "dataDirectoryInUse")
        _ = holder
    }

    /// `getConfigurationStatus` said `pending` after such a failure.
    @Test func aDataDirectoryThatCannotBeUsedLeavesTheStatusFailed() async throws {
        let file = temporaryDirectory() + "-file"
        try Data("x".utf8).write(to: URL(fileURLWithPath: file))
        let superwall = makeSuperwall()
        let outcome = await superwall.configure(apiKey: "pk_test", options: options(file + "/data"))
        #expect(outcome.error?.kind == "dataDirectoryUnusable")
        #expect(await superwall.configurationStatus == .failed)
        // The client may fix the path and try again.
        #expect(
            await superwall.configure(apiKey: "pk_test", options: options(temporaryDirectory())).status == .configured
        )
    }

    /// A FIFO was reported as "You don't have permission"; `/dev/zero` was read until memory ran out.
    @Test func aConfigFileThatIsNotARegularFileOrTooLargeSaysSo() async throws {
        let fifo = temporaryDirectory() + "-fifo"
        #expect(mkfifo(fifo, 0o600) == 0)
        let large = temporaryDirectory() + "-large.json"
        try Data(repeating: 0x20, count: 2_048).write(to: URL(fileURLWithPath: large))
        for (source, words) in [
            (FileConfigSource(path: fifo), "it is a FIFO"),
            (FileConfigSource(path: "/dev/zero"), "it is a character device"),
            (FileConfigSource(path: large, maximumSize: 1_024), "over the limit of 1024"),
        ] {
            let outcome = await makeSuperwall().configure(
                apiKey: "pk_test",
                options: options(temporaryDirectory(), source: source)
            )
            #expect(outcome.status == .failed)
            #expect(outcome.error?.description.contains(words) == true, "\(String(describing: outcome.error))")
        }
    }

    @Test func callsBeforeConfigureAreRefused() async {
        let superwall = makeSuperwall()
        await #expect(throws: SuperwallError.notConfigured) { try await superwall.identify(userId: "x") }
        await #expect(throws: SuperwallError.notConfigured) { try await superwall.reset() }
        await #expect(throws: SuperwallError.notConfigured) { try await superwall.setUserAttributes(["a": 1]) }
        #expect(await superwall.configurationStatus == .pending)
    }
}

@Suite struct IdentifyAndResetTests {
    private func configured(_ delegate: RecordingDelegate = RecordingDelegate()) async -> Superwall {
        let superwall = makeSuperwall(delegate)
        _ = await superwall.configure(apiKey: "pk_test", options: options(temporaryDirectory()))
        // The launch events' implicit triggers run in a task of their own: let them end first.
        await superwall.awaitPresentationQueue()
        delegate.clear()
        return superwall
    }

    @Test func identifyingAnAnonymousUserKeepsAliasAndAttributes() async throws {
        let delegate = RecordingDelegate()
        let superwall = await configured(delegate)
        let before = try await superwall.identity()
        _ = try await superwall.setUserAttributes(["plan": "free"])
        let after = try await superwall.identify(userId: "  user_1 \n")
        #expect(after.appUserId == "user_1")
        #expect(after.aliasId == before.aliasId)
        #expect(after.seed == before.seed)
        let attributes = try await superwall.userAttributes()
        #expect(attributes["plan"] == "free")
        #expect(attributes["appUserId"] == "user_1")
        #expect(attributes["aliasId"] == .string(before.aliasId))
        // SuperwallKit tracks the merged attributes as it saves the new user id.
        #expect(delegate.names == ["user_attributes", "user_attributes", "identity_alias"])
        #expect(delegate.events.last { $0.name == "user_attributes" }?.customParameters["appUserId"] == "user_1")
    }

    @Test func identifyingTheSameUserAgainDoesNothing() async throws {
        let delegate = RecordingDelegate()
        let superwall = await configured(delegate)
        _ = try await superwall.identify(userId: "user_1")
        delegate.clear()
        _ = try await superwall.identify(userId: "user_1")
        #expect(delegate.names.isEmpty)
    }

    @Test func switchingIdentifiedUsersResetsFirst() async throws {
        let delegate = RecordingDelegate()
        let superwall = await configured(delegate)
        let first = try await superwall.identify(userId: "user_1")
        _ = try await superwall.setUserAttributes(["plan": "pro"])
        delegate.clear()
        let second = try await superwall.identify(userId: "user_2")
        #expect(second.appUserId == "user_2")
        #expect(second.aliasId != first.aliasId)
        #expect(try await superwall.userAttributes()["plan"] == nil)
        // The reset within tracks the attributes once per id it changed, then the new user id's.
        #expect(
            delegate.names == [
                "user_attributes", "user_attributes", "user_attributes", "first_seen", "user_attributes",
                "identity_alias",
            ]
        )
    }

    /// The reset of a switch used to commit on its own: a crash between it and the new
    /// identity left an anonymous user with nothing of either.
    @Test func aSwitchOfUsersThatCannotFinishLeavesTheOldUserWhole() async throws {
        let superwall = await configured()
        _ = try await superwall.identify(userId: "user_1")
        _ = try await superwall.setUserAttributes(["plan": "pro"])
        let store = try #require(await superwall.store)
        let assignmentsBefore = try store.assignments()
        // The switch's last write fails, as a crash just before its commit would leave it.
        try await store.database.write { db in
            try db.execute(
                sql:
                    "CREATE TRIGGER refuse BEFORE INSERT ON keyedValue WHEN NEW.key = 'userAttributes' BEGIN SELECT RAISE(ABORT, 'refused'); END"
            )
        }
        await #expect(throws: SuperwallError.self) { try await superwall.identify(userId: "user_2") }
        #expect(try store.value(.appUserId) == "user_1")
        #expect(try store.value(.userAttributes)?["plan"] == "pro")
        #expect(try store.assignments() == assignmentsBefore)
        #expect(try await superwall.identity().appUserId == "user_1")
        try await store.database.write { db in try db.execute(sql: "DROP TRIGGER refuse") }
        #expect(try await superwall.identify(userId: "user_2").appUserId == "user_2")
        #expect(try store.value(.appUserId) == "user_2")
        #expect(try store.value(.userAttributes)?["plan"] == nil)
    }

    @Test func anEmptyUserIdIsRefused() async {
        let superwall = await configured()
        await #expect(throws: SuperwallError.invalidUserId) { try await superwall.identify(userId: " \n ") }
    }

    @Test func resetMakesANewAnonymousUserAndTracksFirstSeenThenReset() async throws {
        let delegate = RecordingDelegate()
        let superwall = await configured(delegate)
        let identified = try await superwall.identify(userId: "user_1")
        _ = try await superwall.setUserAttributes(["plan": "pro"])
        _ = try await superwall.setIntegrationAttributes(["adjustId": "adj-1"])
        delegate.clear()
        let fresh = try await superwall.reset()
        #expect(fresh.appUserId == nil)
        #expect(fresh.aliasId != identified.aliasId)
        let attributes = try await superwall.userAttributes()
        #expect(attributes["plan"] == nil)
        #expect(attributes["aliasId"] == .string(fresh.aliasId))
        #expect(try await superwall.integrationAttributes().isEmpty)
        // One `user_attributes` for each id the reset changed: the user id, the alias, the seed.
        #expect(delegate.names == ["user_attributes", "user_attributes", "user_attributes", "first_seen", "reset"])
    }
}

@Suite struct AttributeTests {
    @Test func userAttributesMergeAndTrackAnEvent() async throws {
        let delegate = RecordingDelegate()
        let superwall = makeSuperwall(delegate)
        _ = await superwall.configure(apiKey: "pk_test", options: options(temporaryDirectory()))
        // The launch events' implicit triggers settle first.
        await superwall.awaitPresentationQueue()
        delegate.clear()
        let merged = try await superwall.setUserAttributes(["plan": "pro", "$reserved": 1, "email": "not-an-email"])
        #expect(merged["plan"] == "pro")
        #expect(merged["$reserved"] == nil)
        #expect(merged["email"] == nil)
        #expect(merged["applicationInstalledAt"] != nil)
        let event = try #require(delegate.events.last)
        #expect(event.name == "user_attributes")
        #expect(event.delegateParameters["plan"] == "pro")
        #expect(event.delegateParameters["application_installed_at"] != nil)
    }

    @Test func integrationAttributesAreAlsoUserAttributes() async throws {
        let superwall = makeSuperwall()
        _ = await superwall.configure(apiKey: "pk_test", options: options(temporaryDirectory()))
        let integration = try await superwall.setIntegrationAttributes([
            "mixpanelDistinctId": "mp-1", "adjustId": "adj",
        ])
        #expect(integration == ["mixpanelDistinctId": "mp-1", "adjustId": "adj"])
        #expect(try await superwall.userAttributes()["mixpanelDistinctId"] == "mp-1")
        #expect(try await superwall.setIntegrationAttributes(["adjustId": .null]) == ["mixpanelDistinctId": "mp-1"])
    }

    @Test func deviceAttributesFollowTheTemplateAndTheClientsOverrides() async throws {
        let clock = FakeClock()
        let superwall = makeSuperwall(clock: clock)
        _ = await superwall.configure(
            apiKey: "pk_test",
            options: options(
                temporaryDirectory(),
                device: ["platform": "iOS", "appVersion": "3.10.1-rc.30", "locale": "de_DE"]
            )
        )
        clock.advance(by: 3 * 86_400 + 120)
        let device = await superwall.deviceAttributes()
        #expect(device["platform"] == "iOS")
        #expect(device["appVersionPadded"] == "003.010.001-rc.030")
        #expect(device["deviceLanguageCode"] == "de")
        #expect(device["regionCode"] == "DE")
        #expect(device["daysSinceInstall"] == 3)
        #expect(device["minutesSinceInstall"] == .int(3 * 1440 + 2))
        #expect(device["publicApiKey"] == "pk_test")
        #expect(device["sdkVersion"] == "4.16.4")
        #expect(device["sdkVersionPadded"] == "004.016.004")
        #expect(device["subscriptionStatus"] == "INACTIVE")
        #expect(device["utcDateTime"]?.stringValue?.hasSuffix("Z") == true)
    }

    @Test func theInterfaceTypeIsUnspecifiedUntilTheClientSaysAndAMacIsAMac() async throws {
        let plain = makeSuperwall()
        _ = await plain.configure(apiKey: "pk_test", options: options(temporaryDirectory()))
        var device = await plain.deviceAttributes()
        #expect(device["interfaceType"] == "unspecified")
        #expect(device["isMac"] == false)
        let mac = makeSuperwall()
        _ = await mac.configure(
            apiKey: "pk_test",
            options: options(temporaryDirectory(), device: ["interfaceType": "mac"])
        )
        device = await mac.deviceAttributes()
        #expect(device["interfaceType"] == "mac")
        #expect(device["isMac"] == true)
    }

    @Test func experimentalDeviceVariablesDescribeTheLatestSubscription() {
        let older = SubscriptionTransaction(
            transactionId: "t1",
            productId: "monthly",
            purchaseDate: Date(timeIntervalSince1970: 1_000),
            willRenew: false,
            isActive: false,
            expirationDate: Date(timeIntervalSince1970: 2_000),
            store: .appStore
        )
        let latest = SubscriptionTransaction(
            transactionId: "t2",
            productId: "annual",
            purchaseDate: Date(timeIntervalSince1970: 5_000),
            willRenew: true,
            isInGracePeriod: true,
            isActive: true,
            expirationDate: nil,
            offerType: .trial,
            store: .appStore
        )
        let fields = DeviceTemplate.latestSubscriptionFields(CustomerInfo(subscriptions: [latest, older]))
        #expect(
            fields == [
                "latestSubscriptionState": "inGracePeriod", "latestSubscriptionWillAutoRenew": true,
                "latestSubscriptionPeriodType": "trial",
            ]
        )
        #expect(
            DeviceTemplate.latestSubscriptionFields(CustomerInfo(subscriptions: [older])) == [
                "latestSubscriptionState": "expired", "latestSubscriptionWillAutoRenew": false,
            ]
        )
        #expect(DeviceTemplate.latestSubscriptionFields(CustomerInfo()).isEmpty)
    }

    @Test func experimentalDeviceVariablesAppearOnlyWithTheOption() async throws {
        for enabled in [false, true] {
            let superwall = makeSuperwall()
            var configureOptions = options(temporaryDirectory())
            configureOptions.enableExperimentalDeviceVariables = enabled
            configureOptions.testModeBehavior = .always
            _ = await superwall.configure(apiKey: "pk_test", options: configureOptions)
            _ = try await superwall.purchase(productId: "com.pockettrainer.pro.annual")
            let device = await superwall.deviceAttributes()
            #expect((device["latestSubscriptionState"] == "subscribed") == enabled, "enabled: \(enabled)")
            #expect((device["latestSubscriptionWillAutoRenew"] == true) == enabled, "enabled: \(enabled)")
        }
    }

    @Test func paywallViewsAndCurrencyComeFromThePlacementLogAndTheLocale() async throws {
        let clock = FakeClock()
        let directory = temporaryDirectory()
        let superwall = makeSuperwall(clock: clock)
        _ = await superwall.configure(apiKey: "pk_test", options: options(directory, device: ["locale": "de_DE"]))
        var device = await superwall.deviceAttributes()
        #expect(device["totalPaywallViews"] == 0)
        #expect(device["daysSinceLastPaywallView"] == nil)
        #expect(device["deviceCurrencyCode"] == "EUR")
        #expect(device["deviceCurrencySymbol"] == "€")
        let store = try #require(await superwall.session?.store)
        store.logPlacement("paywall_open", at: clock.now(), params: [:])
        store.logPlacement("paywall_open", at: clock.now(), params: [:])
        clock.advance(by: 2 * 86_400)
        device = await superwall.deviceAttributes()
        #expect(device["totalPaywallViews"] == 2)
        #expect(device["daysSinceLastPaywallView"] == 2)
        #expect(device["minutesSinceLastPaywallView"] == .int(2 * 1440))
    }

    @Test(arguments: [
        ("3.0.0-beta.1", "003.000.000-beta.001"), ("3.10.1-rc.30", "003.010.001-rc.030"), ("3.0", "003.000"),
    ])
    func versionsArePaddedAsSuperwallKitDoes(_ version: String, _ padded: String) {
        #expect(DeviceTemplate.paddedVersion(version) == padded)
    }

    @Test func dateAndTimeFieldsFollowSuperwallKitsFormats() async {
        let clock = FakeClock(Date(timeIntervalSince1970: 1_790_000_000))  // 2026-09-21 14:13:20 UTC
        let superwall = makeSuperwall(clock: clock)
        _ = await superwall.configure(apiKey: "pk_test", options: options(temporaryDirectory()))
        let device = await superwall.deviceAttributes()
        #expect(device["utcDate"] == "2026-09-21")
        #expect(device["utcTime"] == "14:13:20")
        #expect(device["utcDateTime"] == "2026-09-21T14:13:20.000Z")
        #expect(device["localDateTime"]?.stringValue?.count == 19)
    }

    @Test func datesAreISO8601UTCWithMilliseconds() {
        #expect(ISO8601.string(from: Date(timeIntervalSince1970: 1_790_000_000.5)) == "2026-09-21T14:13:20.500Z")
    }
}

@Suite struct TrackedEventTests {
    @Test func customParamsLoseDollarKeysNullsAndArraysAndKeepObjectsAndScalars() {
        let event = TrackedEvent(
            id: UUID(),
            name: "tap",
            isSuperwallEvent: false,
            customParameters: [
                "$sdk": 1, "none": .null, "list": [1, 2], "object": ["k": "v"], "text": "t", "flag": true,
                "number": 2.5,
            ],
            createdAt: Date()
        )
        #expect(event.customParameters == ["object": ["k": "v"], "text": "t", "flag": true, "number": 2.5])
        #expect(event.audienceParameters["$is_standard_event"] == false)
        #expect(event.audienceParameters["$event_name"] == "tap" && event.audienceParameters["event_name"] == "tap")
    }

    @Test func sdkParamsArePrefixedForAudiencesAndPlainWithIsSuperwallForTheDelegate() {
        let event = TrackedEvent(
            id: UUID(),
            name: "paywall_open",
            superwallParameters: ["paywall_identifier": "p"],
            customParameters: ["plan": "free"],
            createdAt: Date()
        )
        #expect(
            event.audienceParameters["$paywall_identifier"] == "p"
                && event.audienceParameters["paywall_identifier"] == nil
        )
        #expect(event.audienceParameters["plan"] == "free" && event.audienceParameters["$is_standard_event"] == true)
        #expect(event.delegateParameters == ["paywall_identifier": "p", "plan": "free", "is_superwall": true])
    }

    @Test func theLoggedParamsTextIsTheAudienceParameters() throws {
        let event = TrackedEvent(
            id: UUID(),
            name: "trigger_fire",
            superwallParameters: [
                "result": "no_rule_match", "event_name": "shadowed", "quote": "a\"b\n", "tab\tkey": "back\\slash \u{1}",
            ],
            customParameters: ["event_name": "also shadowed", "level": 5, "$sdk": "dropped", "ratio": 0.5],
            createdAt: Date()
        )
        let decoded = try JSONDecoder().decode([String: JSON].self, from: Data(event.audienceParametersJSON))
        #expect(decoded == event.audienceParameters)
        #expect(decoded["event_name"] == "trigger_fire")
        #expect(decoded["$quote"] == "a\"b\n")
        #expect(decoded["$tab\tkey"] == "back\\slash \u{1}")
    }
}
