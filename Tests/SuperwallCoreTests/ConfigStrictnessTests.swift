import Foundation
import Testing

@testable import SuperwallCore

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
