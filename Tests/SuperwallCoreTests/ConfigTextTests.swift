import Foundation
import GRDB
import TestSupport
import Testing

@testable import SuperwallCore

/// A minimal valid config, compact, whose text the tests below edit byte by byte.
private let minimalConfig = #"""
    {"build_id":"b","log_level":10,"app_session_timeout_ms":3600000,"toggles":[],"disable_preload":{"all":false,"triggers":[]},"localization":{"locales":[]},"trigger_options":[{"event_name":"p","rules":[{"experiment_id":"1","experiment_group_id":"2","preload":{"behavior":"ALWAYS"},"variants":[{"variant_id":"v","variant_type":"TREATMENT","percentage":100,"paywall_identifier":"w"}]}]}],"paywall_responses":[{"id":"9","identifier":"w","name":"W","cache_key":"k","build_id":"b","url":"https://example.com","url_config":{"endpoints":[],"max_attempts":1},"paywalljs_event":"","presentation_style_v3":{"type":"MODAL"},"presentation_delay":0,"background_color_hex":"#FFF","products_v2":[]}],"products_v3":[{"store_product":{"store":"APP_STORE","product_identifier":"a"},"entitlements":[{"identifier":"pro","type":"SERVICE_LEVEL"}]}]}
    """#

private func decode(_ text: String) throws(ConfigDecodingError) -> Config {
    try Config.decode(from: Data(text.utf8))
}

@Suite struct ConfigTextTests {
    @Test func theMinimalConfigDecodes() throws {
        let config = try decode(minimalConfig)
        #expect(config.triggers.map(\.placementName) == ["p"])
        #expect(config.paywalls.map(\.identifier) == ["w"])
        #expect(config.products.map(\.id) == ["a"])
    }

    @Test func punctuationBetweenElementsIsCheckedAsStrictlyAsInsideThem() {
        let broken = [
            minimalConfig.replacingOccurrences(
                of: "}]}],\"paywall_responses\"",
                with: "}]} {\"event_name\":\"q\",\"rules\":[]}],\"paywall_responses\""
            ),
            minimalConfig.replacingOccurrences(of: "}]}],\"paywall_responses\"", with: "}]},],\"paywall_responses\""),
            minimalConfig.replacingOccurrences(of: ",\"paywall_responses\"", with: " \"paywall_responses\""),
            minimalConfig.replacingOccurrences(of: "\"products_v3\":", with: "\"products_v3\" "),
            minimalConfig + "x",
            minimalConfig + "{}",
            String(minimalConfig.dropLast(2)),
            "{\"build_id\":\"b\",}",
            "",
            "null",
        ]
        for text in broken {
            #expect(throws: ConfigDecodingError.self, "\(text.suffix(60))") { try decode(text) }
        }
    }

    @Test func everyMutationThatIsNotJSONIsRefused() throws {
        // Fixed seed: deletes, duplicates or replaces one byte with punctuation; whatever
        // JSONSerialization refuses, the element-by-element decoder must refuse too.
        var generator = SeededGenerator(seed: 19)
        let bytes = Array(minimalConfig.utf8)
        let punctuation = Array("{}[],:\" 0tn\\".utf8)
        var refusedByBoth = 0
        for _ in 0..<3000 {
            let mutated = generator.mutatingOnce(bytes, replacingWith: punctuation)
            let data = Data(mutated)
            guard (try? JSONSerialization.jsonObject(with: data, options: [.fragmentsAllowed])) == nil else { continue }
            refusedByBoth += 1
            #expect(throws: ConfigDecodingError.self, "\(String(decoding: mutated, as: UTF8.self))") {
                try Config.decode(from: data)
            }
        }
        #expect(refusedByBoth > 1000)
    }

    @Test func aMemberNameWithEscapesIsReadAsItsText() throws {
        let escaped = minimalConfig.replacingOccurrences(of: "\"trigger_options\"", with: #""trigger\u005foptions""#)
        #expect(try decode(escaped).triggers.map(\.placementName) == ["p"])
    }

    @Test func ofAKeyWrittenTwiceTheFirstIsKeptAsJSONDecoderKeepsIt() throws {
        let twice = minimalConfig.replacingOccurrences(
            of: "{\"build_id\":\"b\",",
            with: "{\"trigger_options\":[],\"build_id\":\"a\",\"build_id\":\"b\","
        )
        let config = try decode(twice)
        #expect(config.triggers.isEmpty)
        #expect(config.buildId == "a")
    }

    @Test func theFirstFaultInSuperwallKitsOrderIsReported() {
        // The build id is checked before the placements, the placements before the paywalls,
        // and the paywalls before the other members.
        let noBuildId = minimalConfig.replacingOccurrences(of: "\"build_id\":\"b\",\"log_level\":10,", with: "")
            .replacingOccurrences(of: "\"event_name\":\"p\",", with: "")
        #expect(throws: ConfigDecodingError(path: "$.build_id", reason: "is required but missing")) {
            try decode(noBuildId)
        }
        let noLogLevel = minimalConfig.replacingOccurrences(of: "\"log_level\":10,", with: "").replacingOccurrences(
            of: "\"event_name\":\"p\",",
            with: ""
        )
        #expect(throws: ConfigDecodingError(path: "$.trigger_options[0].event_name", reason: "is required but missing"))
        { try decode(noLogLevel) }
    }

    @Test func aNullArrayIsNoProductsButAFaultForPlacementsAndPaywalls() throws {
        #expect(
            try decode(minimalConfig.replacingOccurrences(of: #""products_v3":["#, with: #""products_v3":null,"x":["#))
                .products.isEmpty
        )
        let nullTriggers = minimalConfig.replacingOccurrences(
            of: #""trigger_options":["#,
            with: #""trigger_options":null,"x":["#
        )
        #expect(throws: ConfigDecodingError(path: "$.trigger_options", reason: "expected an array, found null")) {
            try decode(nullTriggers)
        }
        let objectPaywalls = minimalConfig.replacingOccurrences(
            of: #""paywall_responses":["#,
            with: #""paywall_responses":{},"x":["#
        )
        #expect(throws: ConfigDecodingError(path: "$.paywall_responses", reason: "expected an array")) {
            try decode(objectPaywalls)
        }
    }

    @Test func aCatalogueProductWithANumberThatDoesNotFitIsDroppedWithoutFailingTheConfig() throws {
        // Foundation on Linux calls such a number text that is not JSON; SuperwallKit's
        // decoder (Apple's) reports it at its path, so only the product is dropped.
        let bad = minimalConfig.replacingOccurrences(
            of: #""product_identifier":"a"}"#,
            with: #""product_identifier":"a","store":"STRIPE","trial_days":1.5}"#
        )
        .replacingOccurrences(
            of: #"{"store":"APP_STORE","product_identifier":"a","#,
            with: #"{"product_identifier":"a","#
        )
        let config = try decode(bad)
        #expect(config.products.isEmpty)
        #expect(config.droppedElements.map(\.path) == ["$.products_v3[0]"])
        #expect(config.droppedElements.first?.message.contains("$.products_v3[0].store_product.trial_days") == true)
    }

    @Test func aDroppedCatalogueProductIsListedWithItsWholePath() throws {
        let bad = minimalConfig.replacingOccurrences(
            of: #""product_identifier":"a"}"#,
            with: #""product_identifier":7}"#
        )
        let config = try decode(bad)
        #expect(config.products.isEmpty)
        #expect(config.droppedElements.map(\.path) == ["$.products_v3[0]"])
        #expect(
            config.droppedElements.first?.message.contains("$.products_v3[0].store_product.product_identifier") == true
        )
    }
}

@Suite struct CachedConfigStorageTests {
    @Test func theCachedConfigIsKeptAsItsBytes() throws {
        let store = try Store()
        let body = Data((minimalConfig + String(repeating: " ", count: 700_000)).utf8)
        try store.setDocument(body, for: .lastConfig)
        #expect(try store.document(.lastConfig) == body)
        try store.setDocument(Data("{}".utf8), for: .lastConfig)
        #expect(try store.document(.lastConfig) == Data("{}".utf8))
        try store.remove(DocumentKey.lastConfig)
        #expect(try store.document(.lastConfig) == nil)
    }

    @Test func aConfigCachedByTheLastVersionAsAJSONStringIsReadAfterTheUpgrade() throws {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent(UUID().uuidString + ".sqlite").path
        do {
            let store = try Store(path: path)
            // What versions before v6 wrote: the body as a JSON string, and no v6 yet.
            let old = try JSONEncoder().encode(minimalConfig)
            try store.database.write { db in
                try db.execute(
                    sql: "INSERT INTO keyedValue (key, scope, value) VALUES ('lastConfig', 'app', ?)",
                    arguments: [old]
                )
                try db.execute(sql: "DELETE FROM grdb_migrations WHERE identifier LIKE 'v6%'")
            }
        }
        let upgraded = try Store(path: path)
        let body = try #require(try upgraded.document(.lastConfig))
        #expect(String(decoding: body, as: UTF8.self) == minimalConfig)
        #expect(try Config.decode(from: body).buildId == "b")
    }
}
