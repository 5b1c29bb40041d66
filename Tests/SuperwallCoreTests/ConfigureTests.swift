import Foundation
import Testing

@testable import SuperwallCore

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

    @Test func aFirstConfigureTracksTheLaunchEventsInOrder() async throws {
        let delegate = RecordingDelegate()
        let directory = temporaryDirectory()
        let outcome = try await makeSuperwall(delegate).configure(apiKey: "pk_test", options: options(directory))
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

    @Test func aSecondConfigureChangesNothingAndAnotherKeyIsRefused() async throws {
        let delegate = RecordingDelegate()
        let superwall = makeSuperwall(delegate)
        let directory = temporaryDirectory()
        let first = try await superwall.configure(apiKey: "pk_test", options: options(directory))
        delegate.clear()
        let second = try await superwall.configure(apiKey: "pk_test", options: options(directory))
        #expect(second == first)
        // The first configure's implicit triggers may still be tracking their own events.
        #expect(
            delegate.names.filter { !["trigger_fire", "paywallPresentationRequest"].contains($0) }.isEmpty,
            "\(delegate.names)"
        )
        let other = try await superwall.configure(apiKey: "pk_other", options: options(directory))
        #expect(other.error?.kind == "apiKeyMismatch")
        #expect(other.status == .configured)
    }

    @Test func aRestartOnTheSameDirectoryIsTheSameUserWithoutInstallEvents() async throws {
        let directory = temporaryDirectory()
        let firstUser: String?
        do {
            let superwall = makeSuperwall()
            firstUser = try await superwall.configure(apiKey: "pk_test", options: options(directory)).userId
            _ = try await superwall.identify(userId: "user_42")
            _ = try await superwall.setUserAttributes(["plan": "pro"])
            await superwall.awaitPresentationQueue()
        }
        let delegate = RecordingDelegate()
        let restarted = makeSuperwall(delegate)
        let outcome = try await restarted.configure(apiKey: "pk_test", options: options(directory))
        #expect(outcome.userId == "user_42")
        #expect(firstUser != outcome.userId)
        #expect(try await restarted.userAttributes()["plan"] == "pro")
        #expect(delegate.names.prefix(2) == ["app_launch", "session_start"])
        #expect(!delegate.names.contains("app_install"))
        #expect(!delegate.names.contains("first_seen"))
    }

    @Test func anInvalidConfigFailsWithItsPathAndTracksConfigFail() async throws {
        let delegate = RecordingDelegate()
        let source = InMemoryConfigSource(body: #"{"build_id": 7}"#)
        let outcome = try await makeSuperwall(delegate).configure(
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
        do {
            try await configureOnce(
                apiKey: "pk_test",
                options: options(directory, source: FileConfigSource(path: path))
            )
        }
        try FileManager.default.removeItem(atPath: path)
        let delegate = RecordingDelegate()
        let superwall = makeSuperwall(delegate)
        let outcome = try await superwall.configure(
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
        do {
            try await configureOnce(apiKey: "pk_one", options: options(directory, source: FileConfigSource(path: path)))
        }
        try FileManager.default.removeItem(atPath: path)
        let outcome = try await makeSuperwall().configure(
            apiKey: "pk_two",
            options: options(directory, source: FileConfigSource(path: path))
        )
        #expect(outcome.status == .failed)
        #expect(outcome.error?.description.contains("cannot read the config file") == true)
    }

    @Test func aDataDirectoryInUseFailsConfigureClearly() async throws {
        let directory = temporaryDirectory()
        let holder = makeSuperwall()
        _ = try await holder.configure(apiKey: "pk_test", options: options(directory))
        let outcome = try await makeSuperwall().configure(apiKey: "pk_test", options: options(directory))
        #expect(outcome.status == .failed)
        #expect(outcome.error?.kind == "dataDirectoryInUse")
        _ = holder
    }

    /// `getConfigurationStatus` said `pending` after such a failure.
    @Test func aDataDirectoryThatCannotBeUsedLeavesTheStatusFailed() async throws {
        let file = temporaryDirectory() + "-file"
        try Data("x".utf8).write(to: URL(fileURLWithPath: file))
        let superwall = makeSuperwall()
        let outcome = try await superwall.configure(apiKey: "pk_test", options: options(file + "/data"))
        #expect(outcome.error?.kind == "dataDirectoryUnusable")
        #expect(await superwall.configurationStatus == .failed)
        // The client may fix the path and try again.
        #expect(
            try await superwall.configure(apiKey: "pk_test", options: options(temporaryDirectory())).status
                == .configured
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
            let outcome = try await makeSuperwall().configure(
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
