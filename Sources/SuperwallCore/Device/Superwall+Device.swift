import Executors
import Foundation
import Logging
import Synchronization

extension Superwall {
    /// SuperwallKit's `localeIdentifier` option: the locale reported in device attributes
    /// (and used for paywalls); nil goes back to the device's own.
    public func setLocaleIdentifier(_ identifier: String?) {
        device.override(locale: identifier)
    }

    /// SuperwallKit's `setPlatformWrapper(_:version:)`: a wrapper SDK (Flutter, Expo, ...) says
    /// who it is; the device attributes (`platformWrapper`, `platformWrapperVersion`) and the
    /// API's `X-Platform-Wrapper` headers report it instead of the bridge.
    public func setPlatformWrapper(_ name: String, version: String) {
        device.override(platformWrapper: name, version: version)
    }

    public enum InterfaceStyle: String, Sendable {
        case light = "Light"
        case dark = "Dark"
    }

    /// SuperwallKit's `setInterfaceStyle(to:)`: forces light or dark; nil follows the device.
    /// Tracks `device_attributes` after the change, as SuperwallKit does.
    public func setInterfaceStyle(_ style: InterfaceStyle?) throws(SuperwallError) {
        try answeringWithoutSuspending { () throws(SuperwallError) -> Void in
            device.override(interfaceStyle: style?.rawValue)
            if session != nil { trackDeviceAttributes() }
        }
    }

    /// The context audience rules see now, for `params` (nil outside a placement).
    public func audienceContext(params: [String: JSON]?) throws(SuperwallError) -> AudienceContext {
        guard let session else { throw .notConfigured }
        return AudienceContext(
            userAttributes: session.userAttributes,
            isLoggedIn: session.identity.isLoggedIn,
            device: deviceTemplate(),
            params: params,
            history: StorePlacementHistory(store: session.store, now: clock.now())
        )
    }

    public func deviceAttributes() -> [String: JSON] {
        deviceTemplate()()
    }

    /// The device template as of now, built when first called: most audience rules never
    /// read `device`, and building it costs two queries and some date arithmetic.
    func deviceTemplate() -> @Sendable () -> [String: JSON] {
        let now = clock.now()
        // Placements in the same second, with nothing changed between them, share one template;
        // this check spares them copying the inputs out of the session.
        if let cached = device.cachedTemplate(second: Self.templateSecond(now)) { return { cached } }
        guard let session else { return { [:] } }
        var facts = session.deviceFacts
        var overrides = session.deviceOverrides
        device.apply(to: &facts, attributes: &overrides)
        // SuperwallKit's test mode makes the device a sandbox one, for rules, events and headers.
        if isTestModeActive {
            facts.isSandbox = true
            overrides.removeValue(forKey: "isSandbox")
        }
        let store = session.store
        let (apiKey, identity, installedAt, status) = (
            session.apiKey, session.identity, session.appInstalledAt, session.subscriptionStatus
        )
        let customerInfo = session.customerInfo.read(by: identity.userId)
        let experimentalVariables = session.enableExperimentalDeviceVariables
        let (cache, version) = (device.templateCache, device.templateVersion)
        return { [facts, overrides] in
            cache.attributes(version: version, second: Self.templateSecond(now)) {
                DeviceTemplate.attributes(
                    DeviceTemplate.Inputs(
                        facts: facts,
                        overrides: overrides,
                        apiKey: apiKey,
                        identity: identity,
                        appInstalledAt: installedAt,
                        now: now,
                        timeZone: .current,
                        sdkVersion: SuperwallSDK.referenceVersion,
                        subscriptionStatus: status,
                        customerInfo: customerInfo,
                        totalPaywallViews: (try? store.placementCount(named: "paywall_open", since: nil, until: now))
                            ?? 0,
                        lastPaywallView: try? store.lastPlacement(named: "paywall_open", before: now),
                        experimentalVariables: experimentalVariables
                    )
                )
            }
        }
    }

    /// The second a device template is built for; it holds the time in whole seconds.
    nonisolated static func templateSecond(_ time: Date) -> Int64 { Int64(time.timeIntervalSince1970.rounded(.down)) }
}
