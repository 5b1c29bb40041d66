extension DeviceTemplate {
    /// The keys only SuperwallKit's template has (UIKit's, Swift's, StoreKit's).
    private static let appleOnlyKeys = [
        "interfaceType", "fontSize", "fontScale", "preferredContentSizeCategory", "isApplePayAvailable",
        "localResourceIds", "customerInfo", "swiftVersion", "compilerVersion",
    ]

    /// SuperwallKit's template as Superwall-Android 2.7's `DeviceTemplate` has it, for an
    /// Android session: without the Apple-only keys; the wrapper as `platform_wrapper` and
    /// `platform_wrapper_version`; the active entitlements as `activeEntitlementsObject`
    /// (`{identifier, type}`); `reviewRequestCount`; `kotlinVersion` (the Kotlin Superwall-Android
    /// is built with) and `deviceTier` (`unknown` until the client gives its classifier's); and
    /// the last paywall view's days and minutes null before the first. What the client gave
    /// (`configure.device`, `setPlatformWrapper`) is in `template` already and kept, renamed.
    static func shapedAsSuperwallAndroid(
        _ template: [String: JSON],
        activeEntitlements: [Entitlement]
    ) -> [String: JSON] {
        var android = template
        for key in appleOnlyKeys { android[key] = nil }
        if let wrapper = android.removeValue(forKey: "platformWrapper") { android["platform_wrapper"] = wrapper }
        if let version = android.removeValue(forKey: "platformWrapperVersion") {
            android["platform_wrapper_version"] = version
        }
        android["activeEntitlementObjects"] = nil
        android["activeEntitlementsObject"] = .array(
            activeEntitlements.map { ["identifier": .string($0.id), "type": "SERVICE_LEVEL"] }
        )
        let reviews = android.removeValue(forKey: "totalReviewRequests")
        android["reviewRequestCount"] = android["reviewRequestCount"] ?? reviews ?? 0
        android["kotlinVersion"] = android["kotlinVersion"] ?? "2.0.21"
        android["deviceTier"] = android["deviceTier"] ?? "unknown"
        android["isMac"] = false
        android["daysSinceLastPaywallView"] = android["daysSinceLastPaywallView"] ?? .null
        android["minutesSinceLastPaywallView"] = android["minutesSinceLastPaywallView"] ?? .null
        return android
    }
}
