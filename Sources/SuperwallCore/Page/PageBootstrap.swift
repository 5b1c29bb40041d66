/// What the host needs to load a paywall's page, and how its loading goes.
public struct PageBootstrap: Sendable, Equatable {
    /// The URL to load first, with its timeout; nil when the paywall has none to load (the
    /// presentation then ends with `webViewFailedToLoad`).
    public var load: PageLoadTarget?
    /// Evaluated at document start in the main frame, before the page's own scripts.
    public var documentStartScript: String
    /// Added at document end, on every load: the page is not selectable, and Webflow's badge
    /// is hidden.
    public var documentEndStyle: String
    public var scrollEnabled: Bool
    public var textInteraction: Bool
    /// Sub-frames may navigate after the load (`enable_iframe_navigation`); every other
    /// navigation but a reload is blocked once the page has loaded.
    public var allowsSubframeNavigation: Bool
    /// `on_device_cache`: load from the cache when it has the page.
    public var prefersCache: Bool
    public var backgroundColorHex: String
    public var darkBackgroundColorHex: String?
    /// When the host shows its reload and exit controls over a page still loading.
    public var loadingControlsAfterMs: Int
}

/// A URL for the host to load.
public struct PageLoadTarget: Sendable, Equatable {
    public var url: String
    /// nil: the web view's own default.
    public var timeoutMs: Int?
}

/// What the host reports of a load (`paywall/pageLoad`).
public enum PageLoadOutcome: Sendable, Equatable {
    /// The navigation finished, with the HTTP status when the host knows it.
    case finished(httpStatus: Int?)
    case failed(String)
    /// The web content process died.
    case processTerminated
    /// The user took the exit control shown over a page that does not load.
    case exit
}

/// What the host does next.
public enum PageLoadInstruction: Sendable, Equatable {
    /// Nothing: the page will say `ping` when it is ready.
    case wait
    case load(PageLoadTarget)
    case reload
    /// The paywall is closing (`webViewFailedToLoad`, or the exit control).
    case close
}

extension PageBootstrap {
    /// What the host needs to load `paywall`'s page, starting with `first`, under the
    /// config's feature `flags`.
    init(_ paywall: Paywall, loading first: PageLoadTarget?, flags: FeatureFlags, deviceLocale: String) {
        let preload = JSON.object(["deviceLocale": .string(deviceLocale)]).jsonText
        self.init(
            load: first,
            documentStartScript: "window.__SW_DEVICE_PRELOAD__ = \(preload);",
            documentEndStyle:
                "*{-webkit-touch-callout:none;-webkit-user-select:none;user-select:none}.w-webflow-badge{display:none!important}",
            scrollEnabled: paywall.isScrollEnabled,
            textInteraction: flags.isEnabled("enable_text_interaction"),
            allowsSubframeNavigation: flags.isEnabled("enable_iframe_navigation"),
            prefersCache: paywall.onDeviceCacheEnabled,
            backgroundColorHex: paywall.backgroundColorHex,
            darkBackgroundColorHex: paywall.darkBackgroundColorHex,
            loadingControlsAfterMs: 5000
        )
    }
}
