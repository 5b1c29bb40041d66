import Foundation
import Testing

@testable import SuperwallCore

@Suite struct PaywallChangesTests {
    private func config(_ paywalls: [(String, String)]) throws -> Config {
        let demo = EmbeddedDemoConfig.json
        let text = try edited(demo) { object in
            let template = (object["paywall_responses"] as? [[String: Any]])?.first ?? [:]
            object["paywall_responses"] = paywalls.map { identifier, cacheKey in
                var paywall = template
                paywall["identifier"] = identifier
                paywall["cache_key"] = cacheKey
                return paywall
            }
            object["trigger_options"] = []
        }
        return try Config.decode(from: Data(text.utf8))
    }

    @Test func addedChangedAndRemovedAreByIdentifierAndCacheKey() throws {
        let old = try config([("a", "k1"), ("b", "k1"), ("c", "k1")])
        let new = try config([("a", "k1"), ("b", "k2"), ("d", "k1")])
        let changes = new.paywallChanges(from: old)
        #expect(changes.added == ["d"])
        #expect(changes.changed == ["b"])
        #expect(changes.removed == ["c"])
        let same = old.paywallChanges(from: old)
        #expect(same.added.isEmpty && same.changed.isEmpty && same.removed.isEmpty)
    }
}
