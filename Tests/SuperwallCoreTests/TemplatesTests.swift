import Foundation
import Testing

@testable import SuperwallCore

@Suite struct TemplatesTests {
    /// The TEMPLATES for the worked example's paywall, decoded from their `accept64` text.
    private func decodedTemplates(currency: String, priceLocale: String, deviceLocale: String) throws -> [JSON] {
        let json = #"""
            {"id":"571","identifier":"annual-paywall","name":"Annual","cache_key":"k","build_id":"b","url":"https://example.com",
             "url_config":{"endpoints":[],"max_attempts":1},"paywalljs_event":"","presentation_style_v3":{"type":"MODAL"},
             "presentation_delay":0,"background_color_hex":"#FFF",
             "products_v2":[{"reference_name":"primary","store_product":{"store":"APP_STORE","product_identifier":"com.example.annual"},
                             "entitlements":[{"identifier":"pro","type":"SERVICE_LEVEL"}]}]}
            """#
        var paywall = try JSONDecoder().decode(Paywall.self, from: Data(json.utf8))
        paywall.products[0].storeDetails = annual(currency: currency, priceLocale: priceLocale)
        let templates = PaywallTemplates(
            paywall: paywall,
            userAttributes: ["aliasId": "$SuperwallAlias:1"],
            device: ["deviceLocale": .string(deviceLocale)],
            params: [:],
            experiment: nil,
            isFreeTrialAvailable: true,
            subscribedProductIds: [],
            deviceLocale: deviceLocale,
            now: shownOn,
            timeZone: utc
        )
        let data = try #require(Data(base64Encoded: templates.accept64))
        guard case .array(let events) = try JSONDecoder().decode(JSON.self, from: data) else {
            Issue.record("TEMPLATES is not a JSON array")
            return []
        }
        return events
    }

    @Test(arguments: [("USD", "en_US", workedExampleEnUS), ("EUR", "de_DE", workedExampleDeDE)])
    func theTemplatesOfAYearlyProductWithASevenDayTrialMatchTheWorkedExample(
        currency: String,
        locale: String,
        expected: [String: String]
    ) throws {
        let events = try decodedTemplates(currency: currency, priceLocale: locale, deviceLocale: locale)
        #expect(
            events.map { $0["event_name"]?.stringValue } == [
                "products", "template_variables", "template_substitutions_prefix", "experiment",
            ]
        )
        #expect(events[0]["products"] == [["product": "primary", "productId": "com.example.annual"]])
        let variables = try #require(events[1]["variables"]?.objectValue)
        let primary = try #require(variables["primary"]?.objectValue)
        for (key, value) in expected { #expect(primary[key] == .string(value), "\(key)") }
        #expect(primary["isSubscribed"] == false)
        #expect(primary.count == expected.count + 1)
        #expect(variables["products"] == [["primary": .object(primary)]])
        #expect(variables["secondary"] == .object([:]) && variables["tertiary"] == .object([:]))
        #expect(variables["params"] == .object([:]))
        #expect(events[2] == ["event_name": "template_substitutions_prefix", "prefix": "freeTrial"])
        // No experiment: its three ids are empty strings.
        #expect(events[3] == ["event_name": "experiment", "experimentId": "", "variantId": "", "campaignId": ""])
    }
}
