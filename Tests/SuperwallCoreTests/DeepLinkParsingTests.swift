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
