import Foundation
import Testing

@testable import SuperwallCore

/// The real static-config response from SuperwallKit's own decoding test.
private func sampleJSON() throws -> [String: Any] {
    let url = try #require(
        Bundle.module.url(forResource: "superwall-config-sample", withExtension: "json", subdirectory: "Fixtures")
    )
    return try #require(try JSONSerialization.jsonObject(with: Data(contentsOf: url)) as? [String: Any])
}

/// The sample with one change applied, decoded.
private func decodeSample(_ change: (inout [String: Any]) -> Void = { _ in }) throws -> Config {
    var json = try sampleJSON()
    change(&json)
    return try Config.decode(from: JSONSerialization.data(withJSONObject: json))
}

private func decodingError(_ change: (inout [String: Any]) -> Void) throws -> ConfigDecodingError? {
    do {
        _ = try decodeSample(change)
        return nil
    } catch let error as ConfigDecodingError {
        return error
    }
}

/// Edits the first audience of the first trigger.
private func editFirstAudience(_ json: inout [String: Any], _ edit: (inout [String: Any]) -> Void) {
    var triggers = json["trigger_options"] as! [[String: Any]]
    var rules = triggers[0]["rules"] as! [[String: Any]]
    edit(&rules[0])
    triggers[0]["rules"] = rules
    json["trigger_options"] = triggers
}

private func editFirstPaywall(_ json: inout [String: Any], _ edit: (inout [String: Any]) -> Void) {
    var paywalls = json["paywall_responses"] as! [[String: Any]]
    edit(&paywalls[0])
    json["paywall_responses"] = paywalls
}

@Suite struct ConfigSampleTests {
    @Test func theRealServerResponseDecodes() throws {
        let config = try decodeSample()
        #expect(config.buildId == "poWduJZYQvCA8QbWLrjJC")
        #expect(config.triggers.map(\.placementName) == ["MyEvent", "$present"])
        #expect(config.logLevel == 10)
        #expect(config.appSessionTimeoutMs == 3_600_000)
        #expect(config.locales.isEmpty)
        #expect(config.preloadingDisabled == PreloadingDisabled(all: false, placements: []))
        #expect(config.attribution?.appleSearchAdsEnabled == true)
        #expect(
            config.web2appConfig
                == Web2AppConfig(
                    entitlementsMaxAgeMs: 86_400_000,
                    restoreAccessURL: "https://web2app.localhost:3065/manage"
                )
        )
        #expect(config.testModeUserIds == [TestModeUserId(kind: .aliasId, value: "678")])
        #expect(config.featureFlags.isEnabled("enable_session_events"))
        #expect(config.featureFlags.isEnabled("some_unknown_key"))
        #expect(!config.featureFlags.enableUserIdSeed)
    }

    @Test func audiencesVariantsAndPreloadFollowTheWire() throws {
        let audience = try #require(try decodeSample().trigger(for: "MyEvent")?.audiences.first)
        #expect(audience.experimentId == "80")
        #expect(audience.experimentGroupId == "39")
        #expect(audience.expression == nil)
        #expect(audience.preload.behavior == .always)
        #expect(
            audience.variants == [
                Variant(id: "218", kind: .holdout, percentage: 0, paywallIdentifier: nil),
                Variant(
                    id: "219",
                    kind: .treatment,
                    percentage: 100,
                    paywallIdentifier: "example-paywall-4de1-2022-03-15"
                ),
            ]
        )
    }

    @Test func thePaywallKeepsItsUsableProductsAndDropsTheRest() throws {
        let config = try decodeSample()
        let paywall = try #require(config.paywall(identifier: "example-paywall-4de1-2022-03-15"))
        #expect(paywall.id == "571")
        #expect(paywall.cacheKey == "abc?sw=10293")
        #expect(
            paywall.presentationStyle == PresentationStyle(kind: .drawer, height: 250, width: nil, cornerRadius: 25)
        )
        #expect(paywall.featureGating == .nonGated)
        #expect(paywall.isScrollEnabled)
        #expect(paywall.introductoryOfferEligibility == .automatic)
        // A PLAY_STORE product and one without entitlements are dropped, one by one.
        #expect(paywall.products.map(\.id) == ["sk.superwall.annual.89.99_7"])
        #expect(paywall.products.first?.referenceName == "primary")
        #expect(paywall.products.first?.entitlements == [Entitlement(id: "test", isActive: false)])
        // Only TRIAL_STARTED notifications exist.
        #expect(
            paywall.localNotifications == [LocalNotification(title: "test", subtitle: nil, body: "body", delayMs: 5000)]
        )
        #expect(
            config.droppedElements.map(\.path) == [
                "$.paywall_responses[0].products_v2[1]",
                "$.paywall_responses[0].products_v2[2]",
                "$.paywall_responses[0].local_notifications[0]",
            ]
        )
    }

    @Test func theProductCatalogueUsesCompositeIds() throws {
        let products = try decodeSample().products
        #expect(
            products.map(\.id) == [
                "com.ui_tests.monthly", "com.ui_tests.annual", "incorrect_product_identifier",
                "test:price_1R4AhCBitwqMmwU0jvsd3blk:no-trial",
            ]
        )
        #expect(
            products[3].storeProduct == .stripe(productIdentifier: "price_1R4AhCBitwqMmwU0jvsd3blk", trialDays: nil)
        )
        #expect(products[3].storeProduct.store == "STRIPE")
    }
}

@Suite struct ConfigStrictnessTests {
    @Test func aMalformedTriggerFailsTheConfigAndNamesItsPath() throws {
        let error = try decodingError { json in
            var triggers = json["trigger_options"] as! [[String: Any]]
            triggers[1].removeValue(forKey: "event_name")
            json["trigger_options"] = triggers
        }
        #expect(error?.path == "$.trigger_options[1].event_name")
        #expect(error?.reason == "is required but missing")
    }

    @Test func aMalformedVariantFailsTheConfigAndNamesItsPath() throws {
        let error = try decodingError { json in
            editFirstAudience(&json) { rule in
                var variants = rule["variants"] as! [[String: Any]]
                variants[1]["percentage"] = "100"
                rule["variants"] = variants
            }
        }
        #expect(error?.path == "$.trigger_options[0].rules[0].variants[1].percentage")
    }

    @Test func aMalformedPaywallFailsTheConfig() throws {
        #expect(
            try decodingError { json in editFirstPaywall(&json) { $0.removeValue(forKey: "url") } }?.path
                == "$.paywall_responses[0].url"
        )
        #expect(
            try decodingError { json in
                editFirstPaywall(&json) {
                    $0["presentation_style_v3"] = ["type": "POPUP", "height": 10, "corner_radius": 4]
                }
            }?.path == "$.paywall_responses[0].presentation_style_v3.width"
        )
    }

    @Test func aMissingTopLevelKeyFailsTheConfig() throws {
        for key in [
            "build_id", "trigger_options", "paywall_responses", "log_level", "app_session_timeout_ms",
            "toggles", "disable_preload", "localization",
        ] {
            #expect(try decodingError { $0.removeValue(forKey: key) }?.path == "$.\(key)", "\(key)")
        }
    }

    @Test func optionalTopLevelKeysMayBeAbsent() throws {
        let config = try decodeSample { json in
            for key in ["products_v3", "web2app_config", "attribution_options", "test_mode_user_ids"] {
                json.removeValue(forKey: key)
            }
        }
        #expect(config.products.isEmpty)
        #expect(config.web2appConfig == nil)
        #expect(config.testModeUserIds.isEmpty)
    }

    @Test func textThatIsNotJSONFailsAtTheRoot() {
        #expect(throws: ConfigDecodingError.self) { try Config.decode(from: Data("{\"build_id\":".utf8)) }
        #expect(throws: ConfigDecodingError.self) { try Config.decode(from: Data("[]".utf8)) }
    }

    @Test func anUnknownVariantTypeIsATreatment() throws {
        let config = try decodeSample { json in
            editFirstAudience(&json) { rule in
                var variants = rule["variants"] as! [[String: Any]]
                variants[0]["variant_type"] = "SOMETHING_NEW"
                rule["variants"] = variants
            }
        }
        #expect(config.triggers[0].audiences[0].variants[0].kind == .treatment)
    }

    @Test func requiresReEvaluationForcesAlwaysAndAnUnknownBehaviorFails() throws {
        let always = try decodeSample { json in
            editFirstAudience(&json) { $0["preload"] = ["behavior": "NEVER", "requires_re_evaluation": true] }
        }
        #expect(always.triggers[0].audiences[0].preload.behavior == .always)
        let ifTrue = try decodeSample { json in editFirstAudience(&json) { $0["preload"] = ["behavior": "IF_TRUE"] } }
        #expect(ifTrue.triggers[0].audiences[0].preload.behavior == .ifTrue)
        #expect(
            try decodingError { json in editFirstAudience(&json) { $0["preload"] = ["behavior": "SOMETIMES"] } }?.path
                == "$.trigger_options[0].rules[0].preload.behavior"
        )
    }

    @Test func occurrenceIntervalsDefaultToInfinity() throws {
        func interval(_ value: [String: Any]) throws -> Occurrence.Interval? {
            try decodeSample { json in
                editFirstAudience(&json) { $0["occurrence"] = ["key": "k", "max_count": 2, "interval": value] }
            }.triggers[0].audiences[0].occurrence?.interval
        }
        #expect(try interval(["type": "MINUTES", "minutes": 60]) == .minutes(60))
        #expect(try interval(["type": "MINUTES"]) == .infinity)
        #expect(try interval(["type": "INFINITY"]) == .infinity)
        #expect(try interval(["type": "FORTNIGHTS", "minutes": 3]) == .infinity)
    }

    @Test func onlyTheCELExpressionIsRead() throws {
        let config = try decodeSample { json in
            editFirstAudience(&json) {
                $0["expression"] = "legacy"
                $0["expression_js"] = "legacy"
                $0["expression_cel"] = "user.plan == \"free\""
            }
        }
        #expect(config.triggers[0].audiences[0].expression == "user.plan == \"free\"")
    }

    @Test func computedPropertiesOfUnknownTypesAreDroppedOneByOne() throws {
        let config = try decodeSample { json in
            editFirstAudience(&json) {
                $0["computed_properties"] = [
                    ["type": "DAYS_SINCE", "event_name": "app_install"],
                    ["type": "DECADES_SINCE", "event_name": "x"],
                ]
            }
        }
        #expect(
            config.triggers[0].audiences[0].computedProperties == [
                ComputedPropertyRequest(kind: .daysSince, placementName: "app_install")
            ]
        )
        #expect(config.droppedElements.contains { $0.path == "$.trigger_options[0].rules[0].computed_properties[1]" })
    }

    @Test func computedPropertyKindsNameTheirHostFunctions() {
        #expect(
            ComputedPropertyRequest.Kind.allCases.map(\.functionName) == [
                "minutesSince", "hoursSince", "daysSince", "monthsSince", "yearsSince",
                "placementsInHour", "placementsInDay", "placementsInWeek", "placementsInMonth",
                "placementsSinceInstall",
            ]
        )
    }

    @Test func unknownPaywallEnumsFallBackAsSuperwallKitDoes() throws {
        let paywall = try decodeSample { json in
            editFirstPaywall(&json) {
                $0["feature_gating"] = "SOMETIMES"
                $0["presentation_style_v3"] = ["type": "HOLOGRAM"]
                $0["introductory_offer_eligibility"] = "MAYBE"
            }
        }.paywalls[0]
        #expect(paywall.featureGating == .nonGated)
        #expect(paywall.presentationStyle.kind == .fullscreen)
        #expect(paywall.introductoryOfferEligibility == .automatic)
        let gated = try decodeSample { json in editFirstPaywall(&json) { $0["feature_gating"] = "GATED" } }.paywalls[0]
        #expect(gated.featureGating == .gated)
    }

    @Test func aProductWithAnUnknownEntitlementTypeIsDropped() throws {
        let config = try decodeSample { json in
            var products = json["products_v3"] as! [[String: Any]]
            products[0]["entitlements"] = [["identifier": "pro", "type": "CONSUMABLE"]]
            json["products_v3"] = products
        }
        #expect(config.products.count == 3)
        #expect(config.droppedElements.contains { $0.path == "$.products_v3[0]" })
    }

    @Test func theLastTriggerOfAPlacementWins() throws {
        let config = try decodeSample { json in
            var triggers = json["trigger_options"] as! [[String: Any]]
            var duplicate = triggers[0]
            var rules = duplicate["rules"] as! [[String: Any]]
            rules[0]["experiment_id"] = "999"
            duplicate["rules"] = rules
            triggers.append(duplicate)
            json["trigger_options"] = triggers
        }
        #expect(config.trigger(for: "MyEvent")?.audiences.first?.experimentId == "999")
    }

    @Test func lookupsFollowEditsOfTheTriggersAndPaywalls() throws {
        var config = try decodeSample()
        let paywall = try #require(config.paywalls.first)
        #expect(config.paywall(identifier: paywall.identifier) == paywall)
        config.triggers.append(Trigger(placementName: "added", audiences: []))
        config.triggers.removeAll { $0.placementName == "MyEvent" }
        #expect(config.trigger(for: "added") != nil)
        #expect(config.trigger(for: "MyEvent") == nil)
        config.paywalls.removeAll()
        #expect(config.paywall(identifier: paywall.identifier) == nil)
    }
}

/// A decode that reuses the config in use (`decode(from:reusing:)`, a hot reload) takes the
/// placements and paywalls whose text did not change from it, and gives the config a fresh
/// decode would. The texts are edited as text, so that what is not edited stays byte for byte.
@Suite struct ConfigReuseTests {
    private let demo = EmbeddedDemoConfig.json

    private func replacing(_ old: String, with new: String, last: Bool = false) throws -> Data {
        let range = try #require(last ? demo.range(of: old, options: .backwards) : demo.range(of: old))
        return Data(demo.replacingCharacters(in: range, with: new).utf8)
    }

    @Test func anEditOfOnePaywallDecodesOnlyThatPaywall() throws {
        let before = try Config.decode(from: Data(demo.utf8))
        let text = try replacing(
            #""name": "Summer sale (deep link and win-back)""#,
            with: #""name": "Summer sale, extended""#
        )
        let after = try Config.decode(from: text, reusing: before)
        #expect(after == (try Config.decode(from: text)))
        #expect(after.paywall(identifier: "summer-sale")?.name == "Summer sale, extended")
        #expect(after.decodedText.reused == before.triggers.count + before.paywalls.count - 1)
        // The next reload reuses the edited paywall too.
        #expect(
            (try Config.decode(from: text, reusing: after)).decodedText.reused == after.triggers.count
                + after.paywalls.count
        )
    }

    /// A paywall that dropped a product is decoded again, so the drop is reported again.
    @Test func anElementThatDroppedSomethingIsDecodedAgainAndItsDropReported() throws {
        let text = try replacing(
            #""products_v2": ["#,
            with:
                #""products_v2": [{"store_product": {"store": "PLAY_STORE", "product_identifier": "x"}, "entitlements": []}, "#,
            last: true
        )
        let before = try Config.decode(from: text)
        let after = try Config.decode(from: text, reusing: before)
        #expect(before.droppedElements.count == 1)
        #expect(after.droppedElements == before.droppedElements)
        #expect(after.decodedText.reused == before.triggers.count + before.paywalls.count - 1)
    }

    @Test func elementsChangedInCodeAreNeverReused() throws {
        var before = try Config.decode(from: Data(demo.utf8))
        before.paywalls[0].name = "changed in code"
        let after = try Config.decode(from: Data(demo.utf8), reusing: before)
        #expect(after.paywalls[0].name != "changed in code")
        #expect(after.decodedText.reused == before.triggers.count)
    }
}
