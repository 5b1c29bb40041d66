import Foundation
import Testing

@testable import SuperwallCore

@Suite struct DeepLinkParsingTests {
    @Test func theEventCarriesTheURLsPartsAndEachQueryItemCoerced() throws {
        let link = try #require(
            DeepLink("myapp://promo/summer.html?offer=summer&count=3&ratio=2.5&vip=true&off=false&blank#top")
        )
        #expect(
            link.eventParameters == [
                "url": "myapp://promo/summer.html?offer=summer&count=3&ratio=2.5&vip=true&off=false&blank#top",
                "path": "/summer.html", "pathExtension": "html", "lastPathComponent": "summer.html", "host": "promo",
                "query": "offer=summer&count=3&ratio=2.5&vip=true&off=false&blank", "fragment": "top",
            ]
        )
        #expect(link.queryParameters == ["offer": "summer", "count": 3, "ratio": 2.5, "vip": true, "off": false])
    }

    @Test func aLinkWithNoPathHasEmptyParts() throws {
        let link = try #require(DeepLink("pockettrainer://promo?offer=summer"))
        #expect(link.eventParameters["path"] == "")
        #expect(link.eventParameters["lastPathComponent"] == "")
        #expect(link.eventParameters["host"] == "promo")
        #expect(link.eventParameters["fragment"] == "")
    }

    @Test func coercionKeepsWhatIsNotANumberAsText() {
        #expect(DeepLink.coerce("True") == "True")
        #expect(DeepLink.coerce("nan") == "nan")
        #expect(DeepLink.coerce("inf") == "inf")
        #expect(DeepLink.coerce("-7") == -7)
        #expect(DeepLink.coerce("1e3") == 1000.0)
        #expect(DeepLink.coerce("99999999999999999999") == .double(1e20))
    }

    @Test(arguments: [
        "", "not a url", "no-scheme/path", "%zz://x", "myapp://a b", "://host", String(repeating: "a", count: 70_000),
        "myapp://x?" + String(repeating: "q=1&", count: 20_000),
        // Foundation's parser repairs these rather than refusing them.
        "pockettrainer://open?x=%zz", "pockettrainer://open?x=a b", "pockettrainer://open?x=%4", "myapp://open\u{7F}",
        "myapp://café",
    ])
    func hostileTextIsNotALink(_ text: String) {
        #expect(DeepLink(text) == nil)
    }

    @Test(arguments: ["myapp://open?x=%41%2f", "https://a.superwall.app/app-link/p?q=[1]&r=a+b#frag", "myapp:path"])
    func wellFormedLinksAreLinks(_ text: String) {
        #expect(DeepLink(text) != nil)
    }

    @Test func kindsAreRecognisedAsSuperwallKitDoes() throws {
        #expect(DeepLink("myapp://superwall/redeem?code=ABC")?.redemptionCode == "ABC")
        #expect(DeepLink("https://myapp.superwall.app/app-link/superwall/redeem?code=ABC")?.redemptionCode == "ABC")
        #expect(DeepLink("myapp://superwall/redeem")?.redemptionCode == nil)
        #expect(DeepLink("myapp://superwall/premium")?.redemptionCode == nil)
        #expect(DeepLink("https://myapp.superwall.app/app-link/promo")?.isUniversalLink == true)
        #expect(DeepLink("https://myapp.superwallapp.dev/app-link/promo")?.isUniversalLink == true)
        #expect(DeepLink("https://x.superwall.app/other/path")?.isUniversalLink == false)
        #expect(DeepLink("https://superwall.app.evil.com/app-link/x")?.isUniversalLink == false)
        #expect(DeepLink("myapp://?superwall_debug=true&token=t1")?.debugToken == "t1")
        #expect(DeepLink("myapp://?superwall_debug=true")?.debugToken == nil)
        #expect(DeepLink("myapp://?superwall_debug=false&token=t1")?.debugToken == nil)
    }

    @Test func aUniversalLinkMapsToTheAppsScheme() throws {
        let target = try #require(
            DeepLink("https://myapp.superwall.app/app-link/promo/summer?offer=summer&x=1")?.universalLinkTarget
        )
        #expect(target.url.url.absoluteString == "myapp://promo/summer?offer=summer&x=1")
        #expect(target.pathComponents == ["promo", "summer"])
        #expect(target.queryParameters == ["offer": "summer", "x": "1"])
    }
}

@Suite struct HandleDeepLinkTests {
    /// The demo app's paywalls with one campaign on `deepLink_open`, or none.
    private func harness(withDeepLinkCampaign: Bool) async throws -> PresentationHarness {
        let triggers =
            withDeepLinkCampaign
            ? [
                placement(
                    "deepLink_open",
                    [
                        audience(
                            "dl",
                            rule: "params.path == \"promo\" && params.offer == \"summer\"",
                            variants: [treatment("dl-t", "summer-sale")]
                        )
                    ]
                )
            ]
            : [placement("other", [audience("o", rule: nil, variants: [treatment("o-t", "summer-sale")])])]
        return await PresentationHarness.make(try await presentationConfig(triggers))
    }

    @Test(arguments: [
        "myapp://superwall/redeem", "myapp://?superwall_debug=true", "myapp://?superwall_debug=false&token=t",
        "https://x.superwall.app/other/path", "myapp://superwall/premium", "not a url",
    ])
    func superwallKitsUnhandledLinksAreNotHandled(_ url: String) async throws {
        let harness = try await harness(withDeepLinkCampaign: false)
        #expect(await harness.superwall.handleDeepLink(url) == false)
    }

    @Test func aDeepLinkCampaignMakesEveryLinkHandledAndTracksTheEvent() async throws {
        let harness = try await harness(withDeepLinkCampaign: true)
        #expect(await harness.superwall.handleDeepLink("myapp://superwall/premium?x=1"))
        let event = try #require(harness.delegate.event("deepLink_open"))
        #expect(event.superwallParameters["host"] == "superwall")
        #expect(event.superwallParameters["path"] == "/premium")
        #expect(event.customParameters == ["x": 1])
    }

    @Test func aRedemptionLinkIsHandledWithoutDeepLinkOpenAndFailsClearly() async throws {
        let harness = try await harness(withDeepLinkCampaign: true)
        #expect(await harness.superwall.handleDeepLink("myapp://superwall/redeem?code=WEB-123"))
        #expect(harness.delegate.names.contains("redemption_start"))
        let failure = try #require(harness.delegate.event("redemption_fail"))
        #expect(failure.superwallParameters["error_message"]?.stringValue?.contains("WEB-123") == true)
        #expect(!harness.delegate.names.contains("deepLink_open"))
    }

    @Test func aUniversalLinkIsReportedMappedAndHandled() async throws {
        let harness = try await harness(withDeepLinkCampaign: false)
        #expect(await harness.superwall.handleDeepLink("https://myapp.superwall.app/app-link/promo?offer=summer"))
        #expect(
            harness.delegate.calls.contains(
                "superwallDeepLink myapp://promo?offer=summer [\"promo\"] [\"offer=summer\"]"
            )
        )
        #expect(harness.delegate.event("deepLink_open")?.superwallParameters["url"] == "myapp://promo?offer=summer")
    }

    @Test func aDebugLinkIsTrackedButNotClaimedAsHandledAndSaysWhy() async throws {
        let harness = try await harness(withDeepLinkCampaign: false)
        let link = "myapp://?superwall_debug=true&token=abc&paywall_id=1"
        #expect(await harness.superwall.handleDeepLink(link) == false)
        #expect(harness.delegate.event("deepLink_open") != nil)
        #expect(DeepLink(link)?.unhandledReason?.contains("debugger") == true)
        #expect(DeepLink("myapp://promo")?.unhandledReason == nil)
    }

    @Test func aDeepLinkAudiencePresentsItsPaywallAfterDismissingTheOneOnScreen() async throws {
        let triggers = [
            placement(
                "deepLink_open",
                [
                    audience(
                        "dl",
                        rule: "params.path == \"promo\" && params.offer == \"summer\"",
                        variants: [treatment("dl-t", "summer-sale")]
                    )
                ]
            ),
            placement("gate", [audience("g", rule: nil, variants: [treatment("g-t", "coach-upsell-gated")])]),
        ]
        let harness = await PresentationHarness.make(try await presentationConfig(triggers))
        let register = harness.registerInBackground("gate")
        _ = try await harness.waitForPresentation()
        #expect(await harness.superwall.handleDeepLink("pockettrainer://open?path=promo&offer=summer"))
        let summer = try await harness.waitForPresentation(2)
        #expect(summer.info.identifier == "summer-sale")
        #expect(summer.info.presentedByPlacementWithName == "deepLink_open")
        let outcome = try await register.value
        #expect(outcome.featureGranted == false, "the gated paywall was closed by the link, not by a purchase")
        #expect(harness.presenter.dismissed.first?.closeReason == .systemLogic)
    }

    @Test func aLinkThatNoAudienceMatchesStillClosesThePaywallOnScreen() async throws {
        let triggers = [
            placement(
                "deepLink_open",
                [audience("dl", rule: "params.offer == \"summer\"", variants: [treatment("dl-t", "summer-sale")])]
            ),
            placement("gate", [audience("g", rule: nil, variants: [treatment("g-t", "coach-upsell-gated")])]),
        ]
        let harness = await PresentationHarness.make(try await presentationConfig(triggers))
        let register = harness.registerInBackground("gate")
        _ = try await harness.waitForPresentation()
        #expect(await harness.superwall.handleDeepLink("pockettrainer://open?offer=winter"))
        _ = try await register.value
        #expect(harness.presenter.presentations.count == 1)
        #expect(await harness.superwall.openSessionId == nil)
    }
}

@Suite struct DeepLinksBeforeConfigureTests {
    @Test func theLatestLinkBeforeConfigureIsRoutedOnceTheConfigIsReady() async throws {
        let delegate = PaywallDelegate()
        let superwall = Superwall(delegate: delegate, presenter: FakePresenter())
        #expect(await superwall.handleDeepLink("https://myapp.superwall.app/app-link/first") == true)
        #expect(
            await superwall.handleDeepLink("myapp://plain") == false,
            "no config, cached or loaded, has a deepLink_open campaign yet"
        )
        #expect(await superwall.handleDeepLink("myapp://second?offer=summer") == false)
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("links-\(UUID().uuidString)").path
        _ = await superwall.configure(
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
            _ = await first.configure(
                apiKey: "pk",
                options: Superwall.ConfigureOptions(configSource: EmbeddedConfigSource(), dataDirectory: directory)
            )
            await first.awaitPresentationQueue()
        }
        // A restart in the same process: the first session's last tasks let go of it first.
        try await eventually { ended == nil }
        let second = Superwall()
        let loading = Task {
            await second.configure(
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
        #expect(await second.handleDeepLink("myapp://anything"), "the cached demo config has a deepLink_open campaign")
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
