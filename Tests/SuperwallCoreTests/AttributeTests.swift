import Foundation
import Testing

@testable import SuperwallCore

@Suite struct AttributeTests {
    @Test func userAttributesMergeAndTrackAnEvent() async throws {
        let delegate = RecordingDelegate()
        let superwall = makeSuperwall(delegate)
        _ = try await superwall.configure(apiKey: "pk_test", options: options(temporaryDirectory()))
        // The launch events' implicit triggers settle first.
        await superwall.awaitPresentationQueue()
        delegate.clear()
        let merged = try await superwall.setUserAttributes(["plan": "pro", "$reserved": 1, "email": "not-an-email"])
        #expect(merged["plan"] == "pro")
        #expect(merged["$reserved"] == nil)
        #expect(merged["email"] == nil)
        #expect(merged["applicationInstalledAt"] != nil)
        let event = try #require(delegate.events.last)
        #expect(event.name == "user_attributes")
        #expect(event.delegateParameters["plan"] == "pro")
        #expect(event.delegateParameters["application_installed_at"] != nil)
    }

    @Test func integrationAttributesAreAlsoUserAttributes() async throws {
        let superwall = makeSuperwall()
        _ = try await superwall.configure(apiKey: "pk_test", options: options(temporaryDirectory()))
        let integration = try await superwall.setIntegrationAttributes([
            "mixpanelDistinctId": "mp-1", "adjustId": "adj",
        ])
        #expect(integration == ["mixpanelDistinctId": "mp-1", "adjustId": "adj"])
        #expect(try await superwall.userAttributes()["mixpanelDistinctId"] == "mp-1")
        #expect(try await superwall.setIntegrationAttributes(["adjustId": .null]) == ["mixpanelDistinctId": "mp-1"])
    }

    @Test func deviceAttributesFollowTheTemplateAndTheClientsOverrides() async throws {
        let clock = FakeClock()
        let superwall = makeSuperwall(clock: clock)
        _ = try await superwall.configure(
            apiKey: "pk_test",
            options: options(
                temporaryDirectory(),
                device: ["platform": "iOS", "appVersion": "3.10.1-rc.30", "locale": "de_DE"]
            )
        )
        clock.advance(by: 3 * 86_400 + 120)
        let device = await superwall.deviceAttributes()
        #expect(device["platform"] == "iOS")
        #expect(device["appVersionPadded"] == "003.010.001-rc.030")
        #expect(device["deviceLanguageCode"] == "de")
        #expect(device["regionCode"] == "DE")
        #expect(device["daysSinceInstall"] == 3)
        #expect(device["minutesSinceInstall"] == .int(3 * 1440 + 2))
        #expect(device["publicApiKey"] == "pk_test")
        #expect(device["sdkVersion"] == "4.16.4")
        #expect(device["sdkVersionPadded"] == "004.016.004")
        #expect(device["subscriptionStatus"] == "INACTIVE")
        #expect(device["utcDateTime"]?.stringValue?.hasSuffix("Z") == true)
    }

    @Test func theInterfaceTypeIsUnspecifiedUntilTheClientSaysAndAMacIsAMac() async throws {
        let plain = makeSuperwall()
        _ = try await plain.configure(apiKey: "pk_test", options: options(temporaryDirectory()))
        var device = await plain.deviceAttributes()
        #expect(device["interfaceType"] == "unspecified")
        #expect(device["isMac"] == false)
        let mac = makeSuperwall()
        _ = try await mac.configure(
            apiKey: "pk_test",
            options: options(temporaryDirectory(), device: ["interfaceType": "mac"])
        )
        device = await mac.deviceAttributes()
        #expect(device["interfaceType"] == "mac")
        #expect(device["isMac"] == true)
    }

    /// SuperwallKit's template has `isSandbox` as a string, and its notification scheduler
    /// compares with `"true"`: a boolean given by the client must not replace it.
    @Test func aSandboxDeviceSaysSoAsSuperwallKitDoesWhateverTypeTheClientGave() async throws {
        for given: JSON in [true, "true"] {
            let sandbox = makeSuperwall()
            _ = try await sandbox.configure(
                apiKey: "pk_test",
                options: options(temporaryDirectory(), device: ["isSandbox": given])
            )
            #expect(await sandbox.deviceAttributes()["isSandbox"] == "true")
        }
    }

    @Test func experimentalDeviceVariablesDescribeTheLatestSubscription() {
        let older = SubscriptionTransaction(
            transactionId: "t1",
            productId: "monthly",
            purchaseDate: Date(timeIntervalSince1970: 1_000),
            willRenew: false,
            isActive: false,
            expirationDate: Date(timeIntervalSince1970: 2_000),
            store: .appStore
        )
        let latest = SubscriptionTransaction(
            transactionId: "t2",
            productId: "annual",
            purchaseDate: Date(timeIntervalSince1970: 5_000),
            willRenew: true,
            isInGracePeriod: true,
            isActive: true,
            expirationDate: nil,
            offerType: .trial,
            store: .appStore
        )
        let fields = DeviceTemplate.latestSubscriptionFields(CustomerInfo(subscriptions: [latest, older]))
        #expect(
            fields == [
                "latestSubscriptionState": "inGracePeriod", "latestSubscriptionWillAutoRenew": true,
                "latestSubscriptionPeriodType": "trial",
            ]
        )
        #expect(
            DeviceTemplate.latestSubscriptionFields(CustomerInfo(subscriptions: [older])) == [
                "latestSubscriptionState": "expired", "latestSubscriptionWillAutoRenew": false,
            ]
        )
        #expect(DeviceTemplate.latestSubscriptionFields(CustomerInfo()).isEmpty)
    }

    @Test func experimentalDeviceVariablesAppearOnlyWithTheOption() async throws {
        for enabled in [false, true] {
            let superwall = makeSuperwall()
            var configureOptions = options(temporaryDirectory())
            configureOptions.enableExperimentalDeviceVariables = enabled
            configureOptions.testModeBehavior = .always
            _ = try await superwall.configure(apiKey: "pk_test", options: configureOptions)
            _ = try await superwall.purchase(productId: "com.pockettrainer.pro.annual")
            let device = await superwall.deviceAttributes()
            #expect((device["latestSubscriptionState"] == "subscribed") == enabled, "enabled: \(enabled)")
            #expect((device["latestSubscriptionWillAutoRenew"] == true) == enabled, "enabled: \(enabled)")
        }
    }

    @Test func paywallViewsAndCurrencyComeFromThePlacementLogAndTheLocale() async throws {
        let clock = FakeClock()
        let directory = temporaryDirectory()
        let superwall = makeSuperwall(clock: clock)
        _ = try await superwall.configure(apiKey: "pk_test", options: options(directory, device: ["locale": "de_DE"]))
        var device = await superwall.deviceAttributes()
        #expect(device["totalPaywallViews"] == 0)
        #expect(device["daysSinceLastPaywallView"] == nil)
        #expect(device["deviceCurrencyCode"] == "EUR")
        #expect(device["deviceCurrencySymbol"] == "€")
        let store = try #require(await superwall.session?.store)
        store.logPlacement("paywall_open", at: clock.now(), params: [:])
        store.logPlacement("paywall_open", at: clock.now(), params: [:])
        clock.advance(by: 2 * 86_400)
        device = await superwall.deviceAttributes()
        #expect(device["totalPaywallViews"] == 2)
        #expect(device["daysSinceLastPaywallView"] == 2)
        #expect(device["minutesSinceLastPaywallView"] == .int(2 * 1440))
    }

    @Test(arguments: [
        ("3.0.0-beta.1", "003.000.000-beta.001"), ("3.10.1-rc.30", "003.010.001-rc.030"), ("3.0", "003.000"),
    ])
    func versionsArePaddedAsSuperwallKitDoes(_ version: String, _ padded: String) {
        #expect(DeviceTemplate.paddedVersion(version) == padded)
    }

    @Test func dateAndTimeFieldsFollowSuperwallKitsFormats() async throws {
        let clock = FakeClock(Date(timeIntervalSince1970: 1_790_000_000))  // 2026-09-21 14:13:20 UTC
        let superwall = makeSuperwall(clock: clock)
        _ = try await superwall.configure(apiKey: "pk_test", options: options(temporaryDirectory()))
        let device = await superwall.deviceAttributes()
        #expect(device["utcDate"] == "2026-09-21")
        #expect(device["utcTime"] == "14:13:20")
        #expect(device["utcDateTime"] == "2026-09-21T14:13:20.000Z")
        #expect(device["localDateTime"]?.stringValue?.count == 19)
    }

    @Test func datesAreISO8601UTCWithMilliseconds() {
        #expect(ISO8601.string(from: Date(timeIntervalSince1970: 1_790_000_000.5)) == "2026-09-21T14:13:20.500Z")
    }

    /// The hand-written formatter agrees with Foundation's to the character: leap days, the
    /// ends of months, years and centuries, milliseconds at the edge of rounding, and
    /// seeded random instants of the years it writes; Foundation's writes the rest.
    @Test func datesAreWrittenAsFoundationsFormatterWritesThem() {
        let foundation = Date.ISO8601FormatStyle(includingFractionalSeconds: true)
        var instants: [Double] = [
            0, 0.0005, 0.9995, 0.9994999, 59.999, 951_782_400, 951_868_799.999, 4_107_542_399.999,
            1_764_318_550.1235, 253_402_300_799.999, -0.0005, -1.5, 253_402_300_800, -62_135_596_800,
        ]
        let random = SeededRandomSource(seed: 42)
        for _ in 0..<20_000 {
            instants.append(Double(random.int(in: 0..<253_402_300_800_000)) / 1000)
            instants.append(Double(random.int(in: 0..<4_000_000_000_000_000)) / 1_000_000)
        }
        for instant in instants {
            let date = Date(timeIntervalSince1970: instant)
            #expect(ISO8601.string(from: date) == date.formatted(foundation), "\(instant)")
        }
    }
}
