import Foundation
import Rules
import Synchronization

#if canImport(Glibc)
import Glibc
#endif

/// The facts about the device a host reports, overridable field by field (`configure.device`),
/// so a wrapper running on a phone can report the phone rather than this process.
public struct DeviceFacts: Sendable, Equatable {
    public var platform: String
    public var appVersion: String
    public var osVersion: String
    public var deviceModel: String
    public var locale: String
    public var interfaceStyle: String
    public var bundleId: String
    /// Whether the client gave the app's bundle id; `bundleId` is a placeholder until it does.
    public var isBundleIdFromClient = false
    public var isSandbox: Bool
    public var vendorId: String?
    /// SuperwallKit's `interfaceType` (UIKit's idiom: `iphone`, `ipad`, `mac`, `tv`, `carplay`,
    /// `vision`); `unspecified`, UIKit's own answer, until the client says.
    public var interfaceType = "unspecified"

    /// What this process can tell about itself: the OS from `uname`, the locale from the
    /// environment (`LC_ALL`, `LANG`), everything else a neutral default.
    public static func ofThisProcess(environment: [String: String] = ProcessInfo.processInfo.environment) -> DeviceFacts
    {
        var system = utsname()
        uname(&system)
        func text<T>(_ field: T) -> String {
            withUnsafeBytes(of: field) { String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self) }
        }
        let rawLocale = environment["LC_ALL"].flatMap { $0.isEmpty ? nil : $0 } ?? environment["LANG"] ?? "en_US"
        let locale = rawLocale.split(separator: ".").first.map(String.init) ?? "en_US"
        return DeviceFacts(
            platform: text(system.sysname),
            appVersion: "1.0.0",
            osVersion: text(system.release),
            deviceModel: text(system.machine),
            locale: locale == "C" || locale == "POSIX" ? "en_US" : locale,
            interfaceStyle: "Light",
            bundleId: "superwall-bridge",
            isSandbox: false,
            vendorId: nil
        )
    }

    /// Applies the fields a client gave, by their template names.
    /// Keys whose value becomes a fact, written in the template in SuperwallKit's form (a
    /// sandbox device's `isSandbox` is the string `"true"`), never merged as the client gave it.
    static let keysMadeFacts: Set<String> = ["isSandbox"]

    public mutating func apply(_ overrides: [String: JSON]) {
        func string(_ key: String) -> String? { overrides[key]?.stringValue }
        platform = string("platform") ?? platform
        appVersion = string("appVersion") ?? appVersion
        osVersion = string("osVersion") ?? osVersion
        deviceModel = string("deviceModel") ?? deviceModel
        locale = string("locale") ?? string("deviceLocale") ?? locale
        interfaceStyle = string("interfaceStyle") ?? interfaceStyle
        if let given = string("bundleId") {
            bundleId = given
            isBundleIdFromClient = true
        }
        vendorId = string("vendorId") ?? vendorId
        interfaceType = string("interfaceType") ?? interfaceType
        switch overrides["isSandbox"] {
        case .bool(let sandbox)?: isSandbox = sandbox
        case .string(let sandbox)?: isSandbox = sandbox == "true"
        default: break
        }
    }
}

/// SuperwallKit's "template device" dictionary (`DeviceHelper.getTemplateDevice`), the
/// `device` of audience rules and the parameters of `device_attributes`.
enum DeviceTemplate {
    struct Inputs {
        var facts: DeviceFacts
        var overrides: [String: JSON]
        var apiKey: String
        var identity: Identity
        var appInstalledAt: Date
        var now: Date
        var timeZone: TimeZone
        var sdkVersion: String
        var subscriptionStatus: SubscriptionStatus
        var customerInfo: CustomerInfo
        /// From the placement log: how many `paywall_open`s, and when the last one was.
        var totalPaywallViews: Int
        var lastPaywallView: Date?
        /// SuperwallKit's `enableExperimentalDeviceVariables`.
        var experimentalVariables = false
    }

    static func attributes(_ inputs: Inputs) -> [String: JSON] {
        let facts = inputs.facts
        let localeParts = facts.locale.split(whereSeparator: { $0 == "_" || $0 == "-" }).map(String.init)
        let languageCode = localeParts.first ?? "en"
        let regionCode = localeParts.count > 1 ? localeParts[1] : ""
        let sinceInstall = inputs.now.timeIntervalSince(inputs.appInstalledAt)
        let currency = currencyOf(locale: facts.locale)
        let activeEntitlements = inputs.subscriptionStatus.activeEntitlements
        // What the user holds: from the purchases recorded, and what the status says was bought last.
        let activeProducts = Set(inputs.customerInfo.activeProductIds).union(
            activeEntitlements.compactMap(\.latestProductId)
        ).sorted()
        var attributes: [String: JSON] = [
            "publicApiKey": .string(inputs.apiKey),
            "platform": .string(facts.platform),
            "appUserId": inputs.identity.appUserId.map(JSON.string) ?? .null,
            "aliases": [.string(inputs.identity.aliasId)],
            "vendorId": .string(facts.vendorId ?? ""),
            "appVersion": .string(facts.appVersion),
            "appVersionPadded": .string(paddedVersion(facts.appVersion)),
            "osVersion": .string(facts.osVersion),
            "deviceModel": .string(facts.deviceModel),
            "deviceLocale": .string(facts.locale),
            "preferredLocale": .string(facts.locale),
            "deviceLanguageCode": .string(languageCode),
            "preferredLanguageCode": .string(languageCode),
            "regionCode": .string(regionCode),
            "preferredRegionCode": .string(regionCode),
            "interfaceStyle": .string(facts.interfaceStyle),
            "interfaceStyleMode": "automatic",
            "bundleId": .string(facts.bundleId),
            "appInstallDate": .string(ISO8601.string(from: inputs.appInstalledAt)),
            "interfaceType": .string(facts.interfaceType),
            "isMac": .bool(facts.interfaceType == "mac"),
            "daysSinceInstall": .int(Int64(sinceInstall / 86_400)),
            "minutesSinceInstall": .int(Int64(sinceInstall / 60)),
            "timezoneOffset": .int(Int64(inputs.timeZone.secondsFromGMT(for: inputs.now))),
            "isSandbox": .string(facts.isSandbox ? "true" : "false"),
            "sdkVersion": .string(inputs.sdkVersion),
            "sdkVersionPadded": .string(paddedVersion(inputs.sdkVersion)),
            "subscriptionStatus": .string(inputs.subscriptionStatus.wireName),
            "activeEntitlements": .array(activeEntitlements.map { .string($0.id) }),
            "activeProducts": .array(activeProducts.map(JSON.string)),
            "isFirstAppOpen": .bool(sinceInstall < 60),
            "platformWrapper": "superwall-bridge",
            "platformWrapperVersion": .string(BridgeVersion.current),
            "radioType": "Wifi",
            "fontSize": 17,
            "fontScale": 1.0,
            "preferredContentSizeCategory": "UICTContentSizeCategoryL",
            "isLowPowerModeEnabled": false,
            "isApplePayAvailable": false,
            "deviceCurrencyCode": .string(currency.code),
            "deviceCurrencySymbol": .string(currency.symbol),
            "appBuildString": "",
            "appBuildStringNumber": .null,
            // No local resources can be registered here: SuperwallKit's empty comma-joined list.
            "localResourceIds": "",
            "activeEntitlementObjects": .array(activeEntitlements.map(\.json)),
            "customerInfo": inputs.customerInfo.isPlaceholder ? .null : inputs.customerInfo.json,
            "swiftVersion": "6",
            "compilerVersion": "6.3",
            "totalPaywallViews": .int(Int64(inputs.totalPaywallViews)),
            "totalReviewRequests": 0,
            "deviceId": .string(deviceId(vendorId: facts.vendorId, identity: inputs.identity)),
        ]
        attributes.merge(PageCapabilities.deviceAttributes(for: ReferenceSDK(devicePlatform: facts.platform))) { $1 }
        if let lastView = inputs.lastPaywallView {
            let sinceView = inputs.now.timeIntervalSince(lastView)
            attributes["daysSinceLastPaywallView"] = .int(Int64(sinceView / 86_400))
            attributes["minutesSinceLastPaywallView"] = .int(Int64(sinceView / 60))
        }
        attributes.merge(dateFields(inputs.now, timeZone: inputs.timeZone), uniquingKeysWith: { _, new in new })
        if inputs.experimentalVariables {
            attributes.merge(latestSubscriptionFields(inputs.customerInfo), uniquingKeysWith: { current, _ in current })
        }
        attributes.merge(inputs.overrides, uniquingKeysWith: { _, override in override })
        guard ReferenceSDK(devicePlatform: facts.platform) == .superwallAndroid else { return attributes }
        return shapedAsSuperwallAndroid(attributes, activeEntitlements: activeEntitlements)
    }

    static let deviceIdPrefix = "$SuperwallDevice:"

    /// `$SuperwallDevice:` and the client's vendor id, else the alias's own id.
    static func deviceId(vendorId: String?, identity: Identity) -> String {
        deviceIdPrefix + (vendorId ?? identity.aliasId.removingPrefix(Identity.aliasPrefix))
    }

    /// SuperwallKit's experimental device variables, of the latest subscription the customer
    /// info holds: `latestSubscriptionPeriodType` (its offer, when it had one),
    /// `latestSubscriptionState` (StoreKit's renewal state's names) and
    /// `latestSubscriptionWillAutoRenew`. None without a subscription.
    static func latestSubscriptionFields(_ customerInfo: CustomerInfo) -> [String: JSON] {
        guard let latest = customerInfo.subscriptions.max(by: { $0.purchaseDate < $1.purchaseDate }) else { return [:] }
        let state =
            latest.isRevoked
            ? "revoked"
            : latest.isInBillingRetryPeriod
                ? "inBillingRetryPeriod"
                : latest.isInGracePeriod
                    ? "inGracePeriod"
                    : latest.isActive ? "subscribed" : "expired"
        var fields: [String: JSON] = [
            "latestSubscriptionState": .string(state), "latestSubscriptionWillAutoRenew": .bool(latest.willRenew),
        ]
        if let offer = latest.offerType { fields["latestSubscriptionPeriodType"] = .string(offer.rawValue) }
        return fields
    }

    /// The currency code and symbol of a locale (`de_DE` → EUR, €); empty when it has none.
    static func currencyOf(locale identifier: String) -> (code: String, symbol: String) {
        let locale = Locale(identifier: identifier)
        return (locale.currency?.identifier ?? "", locale.currencySymbol ?? "")
    }

    /// `3.0.0-beta.1` → `003.000.000-beta.001` (SuperwallKit `DeviceHelperTests`).
    static func paddedVersion(_ version: String) -> String {
        let parts = version.split(separator: "-", maxSplits: 1).map(String.init)
        func pad(_ text: String) -> String {
            text.split(separator: ".", omittingEmptySubsequences: false).map { component -> String in
                guard let number = Int(component) else { return String(component) }
                let digits = String(number)
                return String(repeating: "0", count: max(0, 3 - digits.count)) + digits
            }.joined(separator: ".")
        }
        return parts.count == 2 ? pad(parts[0]) + "-" + pad(parts[1]) : pad(parts[0])
    }

    /// `yyyy-MM-dd`, `HH:mm:ss` and `yyyy-MM-dd'T'HH:mm:ss` in UTC and local time. Built from
    /// calendar fields rather than date formatters, which are costly to make and this runs
    /// for every audience evaluation.
    private static func dateFields(_ now: Date, timeZone: TimeZone) -> [String: JSON] {
        func parts(in zone: TimeZone) -> (date: String, time: String) {
            var calendar = Calendar(identifier: .gregorian)
            calendar.timeZone = zone
            let c = calendar.dateComponents([.year, .month, .day, .hour, .minute, .second], from: now)
            func two(_ value: Int?) -> String { value.map { $0 < 10 ? "0\($0)" : "\($0)" } ?? "00" }
            return (
                "\(c.year ?? 1970)-\(two(c.month))-\(two(c.day))", "\(two(c.hour)):\(two(c.minute)):\(two(c.second))"
            )
        }
        let utc = parts(in: TimeZone(identifier: "UTC")!)
        let local = parts(in: timeZone)
        return [
            "utcDate": .string(utc.date), "localDate": .string(local.date),
            "utcTime": .string(utc.time), "localTime": .string(local.time),
            "utcDateTime": .string(ISO8601.string(from: now)),
            "localDateTime": .string("\(local.date)T\(local.time)"),
        ]
    }
}

/// ISO-8601 UTC with milliseconds, the one date format of the wire.
public enum ISO8601 {
    /// `2026-11-28T08:29:10.123Z`: UTC, milliseconds truncated, as Foundation's
    /// `ISO8601FormatStyle(includingFractionalSeconds: true)` writes it. Written by hand for
    /// the years 1970 to 9999 (Foundation's formatter costs a few thousand instructions, and
    /// every event is stamped with it on its way out); Foundation's for the others.
    public static func string(from date: Date) -> String {
        let sinceReference = date.timeIntervalSinceReferenceDate
        let wholeSeconds = sinceReference.rounded(.down)
        guard sinceReference.isFinite, wholeSeconds >= -978_307_200, wholeSeconds < 252_423_993_600 else {
            return date.formatted(Date.ISO8601FormatStyle(includingFractionalSeconds: true))
        }
        let seconds = Int(wholeSeconds) + 978_307_200
        let milliseconds = min(Int(((sinceReference - wholeSeconds) * 1000).rounded(.down)), 999)
        let (year, month, day) = Chronology.civilFromDays(Int64(seconds / 86_400))
        let secondOfDay = seconds % 86_400
        return String(unsafeUninitializedCapacity: 24) { text in
            func put(_ value: Int, digits: Int, at offset: Int) {
                var value = value
                for index in stride(from: offset + digits - 1, through: offset, by: -1) {
                    text[index] = UInt8(ascii: "0") + UInt8(value % 10)
                    value /= 10
                }
            }
            put(Int(year), digits: 4, at: 0)
            put(Int(month), digits: 2, at: 5)
            put(Int(day), digits: 2, at: 8)
            put(secondOfDay / 3600, digits: 2, at: 11)
            put(secondOfDay / 60 % 60, digits: 2, at: 14)
            put(secondOfDay % 60, digits: 2, at: 17)
            put(milliseconds, digits: 3, at: 20)
            (text[4], text[7], text[10], text[13]) = (
                UInt8(ascii: "-"), UInt8(ascii: "-"), UInt8(ascii: "T"), UInt8(ascii: ":")
            )
            (text[16], text[19], text[23]) = (UInt8(ascii: ":"), UInt8(ascii: "."), UInt8(ascii: "Z"))
            return 24
        }
    }

    /// With or without fractional seconds.
    public static func date(from text: String) -> Date? {
        (try? Date.ISO8601FormatStyle(includingFractionalSeconds: true).parse(text))
            ?? (try? Date.ISO8601FormatStyle().parse(text))
    }
}

/// The last device template built, for the version of its inputs and the second it is of:
/// rules read `device` on most evaluations, and building it costs queries and date
/// arithmetic. Within a second, with the inputs unchanged, it is the same dictionary.
final class DeviceTemplateCache: Sendable {
    private struct Entry {
        var version: Int
        var second: Int64
        var attributes: [String: JSON]
    }

    private let entry = Mutex<Entry?>(nil)

    /// The template built for `version` within `second`, if it is the one kept.
    func cached(version: Int, second: Int64) -> [String: JSON]? {
        entry.withLock { entry in
            guard let entry, entry.version == version, entry.second == second else { return nil }
            return entry.attributes
        }
    }

    func attributes(version: Int, second: Int64, build: () -> [String: JSON]) -> [String: JSON] {
        if let cached = cached(version: version, second: second) { return cached }
        let built = build()
        entry.withLock { $0 = Entry(version: version, second: second, attributes: built) }
        return built
    }
}

extension ISO8601 {
    /// SuperwallKit's `Date.isoFormatter`, which its transaction events use: milliseconds,
    /// UTC, `+00:00`.
    static func storeTransactionDate(_ date: Date) -> String {
        let text = date.formatted(
            Date.ISO8601FormatStyle(includingFractionalSeconds: true, timeZone: .gmt).dateTimeSeparator(.standard)
        )
        return text.hasSuffix("Z") ? text.dropLast() + "+00:00" : text
    }
}

extension String {
    /// The string without `prefix`, when it starts with it. Foundation's and the standard
    /// library's replacing each cost a device template about a quarter of a million
    /// instructions on first use.
    func removingPrefix(_ prefix: String) -> String {
        hasPrefix(prefix) ? String(dropFirst(prefix.count)) : self
    }
}
