/// Which URL a paywall's page is loaded from, and what a failed load leads to (SuperwallKit's
/// `SWWebViewLoadingHandler`).
///
/// With the config's `enable_multiple_paywall_urls` off, the paywall's `url` is loaded once.
/// With it on, an endpoint of `url_config` is drawn by weight; a failed one is dropped and
/// another drawn, within `max_attempts`. An endpoint's `timeout_ms` is honoured as
/// milliseconds (SuperwallKit reads it as a thousand times longer).
struct PageLoader: Sendable {
    typealias Target = PageLoadTarget

    /// A load that cannot go on: the error, and the URLs whose failure the event lists.
    struct Failure: Error, Sendable, Equatable {
        var message: String
        var urls: [String]
    }

    private let singleURL: String?
    private var endpoints: [Paywall.URLConfig.Endpoint]
    private let maxAttempts: Int
    private var attempts = 0
    private(set) var tried: [String] = []
    private(set) var current: Target?
    /// Reloads after the web content process died; three, then the load fails.
    var processReloads = 0

    init(paywall: Paywall, usesEndpoints: Bool) {
        singleURL = usesEndpoints ? nil : paywall.url
        endpoints = paywall.urlConfig.endpoints
        maxAttempts = paywall.urlConfig.maxAttempts
    }

    /// The first target, or why there is none.
    mutating func start(random: any RandomSource) -> Result<Target, Failure> {
        if let singleURL {
            current = Target(url: singleURL, timeoutMs: nil)
            tried = [singleURL]
            return .success(Target(url: singleURL, timeoutMs: nil))
        }
        return draw(random: random)
    }

    /// The current target failed: the next one, or the end. `fellBack` says another was drawn
    /// (`paywallWebviewLoad_fallback`); the failure of a single URL or of the last endpoint
    /// ends the load.
    mutating func failed(random: any RandomSource) -> (next: Result<Target, Failure>, failedURL: String?) {
        let failedURL = current?.url
        guard singleURL == nil, let failedURL else {
            return (.failure(Failure(message: "The paywall page failed to load.", urls: tried)), failedURL)
        }
        endpoints.removeAll { $0.url == failedURL }
        attempts += 1
        guard !endpoints.isEmpty else {
            // SuperwallKit's second event lists the attempts before the last one.
            return (
                .failure(Failure(message: "Every paywall URL failed to load.", urls: Array(tried.dropLast()))),
                failedURL
            )
        }
        return (draw(random: random), failedURL)
    }

    private mutating func draw(random: any RandomSource) -> Result<Target, Failure> {
        guard attempts < maxAttempts else {
            return .failure(Failure(message: "The webview has attempted to load too many times.", urls: tried))
        }
        guard !endpoints.isEmpty else {
            return .failure(Failure(message: "There were no paywall URLs provided.", urls: tried))
        }
        let total = endpoints.reduce(0) { $0 + max($1.percentage, 0) }
        var chosen = endpoints[0]
        if total <= 0 {
            chosen = endpoints[random.int(in: 0..<endpoints.count)]
        } else {
            let draw = random.int(in: 0..<total)
            var running = 0
            for endpoint in endpoints {
                running += max(endpoint.percentage, 0)
                if draw < running {
                    chosen = endpoint
                    break
                }
            }
        }
        let target = Target(url: chosen.url, timeoutMs: chosen.timeoutMs)
        current = target
        tried.append(chosen.url)
        return .success(target)
    }
}
