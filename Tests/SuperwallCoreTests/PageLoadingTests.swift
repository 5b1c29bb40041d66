import Foundation
import Testing

@testable import SuperwallCore

@Suite struct PageLoadingTests {
    @Test func theHostIsGivenWhatItNeedsToLoadThePage() async throws {
        let (harness, shown, _) = try await showingLoadablePage(multipleURLs: false)
        #expect(
            shown.page.load
                == PageLoadTarget(url: "https://paywalls.pockettrainer.example/pro-workouts-gated", timeoutMs: nil)
        )
        #expect(shown.page.documentStartScript.hasPrefix("window.__SW_DEVICE_PRELOAD__ = {\"deviceLocale\":"))
        #expect(shown.page.documentEndStyle.contains(".w-webflow-badge{display:none!important}"))
        #expect(shown.page.loadingControlsAfterMs == 5000)
        #expect(harness.delegate.names.contains("paywallWebviewLoad_start"))
    }

    @Test func withOneURLAFailedLoadClosesThePaywallAsWebViewFailedToLoad() async throws {
        let (harness, shown, register) = try await showingLoadablePage(multipleURLs: false)
        let next = try await harness.superwall.pageLoadDidEnd(.finished(httpStatus: 404), inSession: shown.sessionId)
        #expect(next == .close)
        #expect(harness.presenter.dismissed.map(\.closeReason) == [.webViewFailedToLoad])
        let failure = try #require(harness.delegate.event("paywallWebviewLoad_fail"))
        #expect(failure.delegateParameters["error_message"] == "The network failed with error code 404.")
        #expect(failure.delegateParameters["url_0"] == "https://paywalls.pockettrainer.example/pro-workouts-gated")
        #expect(try await register.value.featureGranted == false)
    }

    @Test func endpointsAreDrawnByWeightAndAFailedOneFallsBackToTheNext() async throws {
        let (harness, shown, _) = try await showingLoadablePage(multipleURLs: true)
        #expect(shown.page.load == PageLoadTarget(url: "https://a.example/p", timeoutMs: 1500))
        let next = try await harness.superwall.pageLoadDidEnd(.failed("timed out"), inSession: shown.sessionId)
        #expect(next == .load(PageLoadTarget(url: "https://b.example/p", timeoutMs: 2500)))
        #expect(harness.delegate.event("paywallWebviewLoad_fallback") != nil)
        #expect(
            try await harness.superwall.pageLoadDidEnd(.finished(httpStatus: 200), inSession: shown.sessionId) == .wait
        )
        #expect(try await harness.superwall.pageLoadDidEnd(.failed("offline"), inSession: shown.sessionId) == .close)
        let failures = harness.delegate.events.filter { $0.name == "paywallWebviewLoad_fail" }
        #expect(
            failures.map { $0.delegateParameters["url_0"] } == [
                "https://a.example/p", "https://b.example/p", "https://a.example/p",
            ]
        )
        #expect(harness.presenter.dismissed.map(\.closeReason) == [.webViewFailedToLoad])
    }

    @Test func aDeadWebContentProcessIsReloadedThreeTimesThenThePaywallCloses() async throws {
        let (harness, shown, _) = try await showingLoadablePage(multipleURLs: false)
        for _ in 0..<3 {
            #expect(
                try await harness.superwall.pageLoadDidEnd(.processTerminated, inSession: shown.sessionId) == .reload
            )
        }
        #expect(try await harness.superwall.pageLoadDidEnd(.processTerminated, inSession: shown.sessionId) == .close)
        #expect(harness.delegate.events.filter { $0.name == "paywallWebviewLoad_processTerminated" }.count == 4)
        #expect(harness.presenter.dismissed.map(\.closeReason) == [.webViewFailedToLoad])
    }

    @Test func theExitControlClosesThePaywallAsTheSDKsDoing() async throws {
        let (harness, shown, _) = try await showingLoadablePage(multipleURLs: false)
        #expect(try await harness.superwall.pageLoadDidEnd(.exit, inSession: shown.sessionId) == .close)
        #expect(harness.presenter.dismissed.map(\.closeReason) == [.systemLogic])
    }
}
