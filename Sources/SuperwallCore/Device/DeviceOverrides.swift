import Foundation

/// What the host set over the device's own facts (SuperwallKit's `localeIdentifier`,
/// `setInterfaceStyle(to:)` and `setPlatformWrapper(_:version:)`), and the device template
/// last built, kept while none of its inputs changed.
///
/// Owned by the `Superwall` actor, which is the only one to touch it.
final class DeviceOverrides {
    /// Overrides the device locale until set back to nil.
    private(set) var locale: String? {
        didSet { templateInputsChanged() }
    }
    /// "Light" or "Dark" until set back to nil (automatic).
    private(set) var interfaceStyle: String? {
        didSet { templateInputsChanged() }
    }
    /// The wrapper SDK driving the bridge, reported in place of the bridge itself.
    private(set) var platformWrapper: (name: String, version: String)? {
        didSet { templateInputsChanged() }
    }

    func override(locale: String?) {
        self.locale = locale
    }

    func override(interfaceStyle: String?) {
        self.interfaceStyle = interfaceStyle
    }

    func override(platformWrapper name: String, version: String) {
        platformWrapper = (name, version)
    }

    /// Changes whenever an input of the device template may have: these overrides, the
    /// session, the paywall views in the placement log.
    private(set) var templateVersion = 0
    let templateCache = DeviceTemplateCache()

    /// Says that an input of the template changed, so the one kept is not used again.
    func templateInputsChanged() {
        templateVersion &+= 1
    }

    /// The template kept for `second`, if its inputs have not changed since.
    func cachedTemplate(second: Int64) -> [String: JSON]? {
        templateCache.cached(version: templateVersion, second: second)
    }

    /// Lays the overrides over the device's facts and the attributes the host gave.
    func apply(to facts: inout DeviceFacts, attributes: inout [String: JSON]) {
        if let locale {
            facts.locale = locale
            attributes.removeValue(forKey: "deviceLocale")
        }
        if let platformWrapper {
            attributes["platformWrapper"] = .string(platformWrapper.name)
            attributes["platformWrapperVersion"] = .string(platformWrapper.version)
        }
        if let interfaceStyle {
            facts.interfaceStyle = interfaceStyle
            attributes["interfaceStyleMode"] = "manual"
            attributes.removeValue(forKey: "interfaceStyle")
        }
    }

    // MARK: The template

    /// The device template as of now, built when first called: most audience rules never
    /// read `device`, and building it costs two queries and some date arithmetic.
    func template(
        of session: Superwall.Session?,
        users: Users,
        entitlements: Entitlements,
        at now: Date,
        inTestMode isTestModeActive: Bool
    ) -> @Sendable () -> [String: JSON] {
        // Placements in the same second, with nothing changed between them, share one template;
        // this check spares them copying the inputs out of the session.
        if let cached = cachedTemplate(second: Self.templateSecond(now)) { return { cached } }
        guard let session else { return { [:] } }
        var facts = session.deviceFacts
        var overrides = session.deviceOverrides
        apply(to: &facts, attributes: &overrides)
        // SuperwallKit's test mode makes the device a sandbox one, for rules, events and headers.
        if isTestModeActive {
            facts.isSandbox = true
            overrides.removeValue(forKey: "isSandbox")
        }
        let store = session.store
        let (apiKey, identity, installedAt, status) = (
            session.apiKey, users.identity, users.appInstalledAt, entitlements.status
        )
        let customerInfo = entitlements.customerInfo.read(by: identity.userId)
        let experimentalVariables = session.enableExperimentalDeviceVariables
        let (cache, version) = (templateCache, templateVersion)
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
    static func templateSecond(_ time: Date) -> Int64 { Int64(time.timeIntervalSince1970.rounded(.down)) }
}
