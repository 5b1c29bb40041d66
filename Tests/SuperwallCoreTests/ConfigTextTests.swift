import Foundation
import GRDB
import TestSupport
import Testing

@testable import SuperwallCore

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

    @Test func ofAKeyWrittenTwiceTheLastIsKeptAsJSONParseAndTheProtocolSideKeepIt() throws {
        let twice = minimalConfig.replacingOccurrences(
            of: "{\"build_id\":\"b\",",
            with: "{\"trigger_options\":[],\"build_id\":\"a\",\"build_id\":\"b\","
        )
        let config = try decode(twice)
        #expect(config.triggers.map(\.placementName) == ["p"])
        #expect(config.buildId == "b")
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
