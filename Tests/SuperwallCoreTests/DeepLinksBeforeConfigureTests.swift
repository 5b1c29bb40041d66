import Foundation
import Testing

@testable import SuperwallCore

@Suite struct DeepLinksBeforeConfigureTests {
    @Test func theLatestLinkBeforeConfigureIsRoutedOnceTheConfigIsReady() async throws {
        let delegate = PaywallDelegate()
        let superwall = Superwall(delegate: delegate, presenter: FakePresenter())
        #expect(try await superwall.handleDeepLink("https://myapp.superwall.app/app-link/first") == true)
        #expect(
            try await superwall.handleDeepLink("myapp://plain") == false,
            "no config, cached or loaded, has a deepLink_open campaign yet"
        )
        #expect(try await superwall.handleDeepLink("myapp://second?offer=summer") == false)
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("links-\(UUID().uuidString)").path
        _ = try await superwall.configure(
            apiKey: "pk",
            options: Superwall.ConfigureOptions(configSource: EmbeddedConfigSource(), dataDirectory: directory)
        )
        try await eventually { delegate.names.contains("deepLink_open") }
        let opened = delegate.events.filter { $0.name == "deepLink_open" }
        #expect(opened.count == 1)
        #expect(opened.first?.superwallParameters["url"] == "myapp://second?offer=summer")
        #expect(
            !delegate.calls.contains { $0.hasPrefix("superwallDeepLink") },
            "the earlier universal link was replaced"
        )
    }

    @Test func whileTheConfigLoadsTheAnswerComesFromTheCachedConfig() async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("links-\(UUID().uuidString)").path
        weak var ended: Superwall?
        do {
            let first = Superwall()
            ended = first
            _ = try await first.configure(
                apiKey: "pk",
                options: Superwall.ConfigureOptions(configSource: EmbeddedConfigSource(), dataDirectory: directory)
            )
            await first.awaitPresentationQueue()
        }
        // A restart in the same process: the first session's last tasks let go of it first.
        try await eventually { ended == nil }
        let second = Superwall()
        let loading = Task {
            try await second.configure(
                apiKey: "pk",
                options: Superwall.ConfigureOptions(
                    configSource: NeverLoadingSource(),
                    dataDirectory: directory,
                    maxConfigRetryCount: 0
                )
            )
        }
        try await eventually { await second.store != nil }
        #expect(await second.configurationStatus == .pending)
        #expect(
            try await second.handleDeepLink("myapp://anything"),
            "the cached demo config has a deepLink_open campaign"
        )
        loading.cancel()
    }
}

/// A config source whose fetch never finishes (until cancelled).
struct NeverLoadingSource: ConfigSource {
    func fetchConfig(_ request: ConfigRequest) async throws -> Data {
        try await Task.sleep(for: .seconds(3600))
        throw CancellationError()
    }
    var description: String { "never" }
}
