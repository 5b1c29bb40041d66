import Foundation
import Logging

extension Superwall {
    /// What exists once `configure` has opened the data directory: the key, the options, the
    /// directory, the device's facts, the config in use and what the host's store says of
    /// products. Its fields change only through its own methods; the user, their assignments
    /// and entitlements have owners of their own (`Users`, `Assignments`, `Entitlements`).
    ///
    /// A value whose fields live in one buffer, copied on write (as `Array` is): a read
    /// through the optional `session` (`session?.config`) copies one pointer rather than a
    /// dozen fields.
    ///
    /// Sendable as `Array` is: its storage is changed in place only when no other value shares it.
    @dynamicMemberLookup
    struct Session: @unchecked Sendable {
        struct Fields: Sendable {
            let apiKey: String
            /// What `configure` was given; the fields below read it.
            let options: ConfigureOptions
            var timeouts: Timeouts { options.timeouts }
            var usingPurchaseController: Bool { options.usingPurchaseController }
            var automaticallyDismiss: Bool { options.automaticallyDismiss }
            var testModeBehavior: TestModeBehavior { options.testModeBehavior }
            /// SuperwallKit's `overrideProductsByName`: `configure`'s, until the app sets others.
            fileprivate(set) var overrideProductsByName: [String: String]
            var showsPurchaseFailureAlert: Bool { options.showsPurchaseFailureAlert }
            var enableExperimentalDeviceVariables: Bool { options.enableExperimentalDeviceVariables }
            var shouldPreload: Bool { options.shouldPreload }
            var restoreFailedAlert: PaywallAlert { options.restoreFailedAlert }
            var showsWebRestorationAlert: Bool { options.showsWebRestorationAlert }
            var showsWebPurchaseConfirmationAlert: Bool { options.showsWebPurchaseConfirmationAlert }
            var observesPurchases: Bool { options.observesPurchases }
            var notificationPermissionsDeniedAlert: PaywallAlert? { options.notificationPermissionsDeniedAlert }
            /// What the host's store says of products, by store identifier.
            fileprivate(set) var storeDetails: [String: StoreProductDetails]
            let directory: DataDirectory
            fileprivate(set) var status: ConfigurationStatus = .pending
            fileprivate(set) var configError: SuperwallError?
            fileprivate(set) var config: Config?
            let deviceFacts: DeviceFacts
            let deviceOverrides: [String: JSON]
            var store: Store { directory.store }
            /// Whose rules the session follows where the SDKs differ: its device's platform's.
            var referenceSDK: ReferenceSDK { ReferenceSDK(devicePlatform: deviceFacts.platform) }

            init(apiKey: String, options: ConfigureOptions, directory: DataDirectory, deviceFacts: DeviceFacts) {
                self.apiKey = apiKey
                self.options = options
                // Of details given twice for one product, the last.
                storeDetails = Dictionary(
                    options.storeProducts.map { ($0.productIdentifier, $0) },
                    uniquingKeysWith: { _, last in last }
                )
                self.directory = directory
                self.deviceFacts = deviceFacts
                overrideProductsByName = options.overrideProductsByName
                deviceOverrides = options.device.filter { !DeviceFacts.keysMadeFacts.contains($0.key) }
            }
        }

        /// The fields behind a pointer that a class owns: a `let`, so a read pays no dynamic
        /// exclusivity check, which a class's `var` (or a `ManagedBuffer`'s header) costs on
        /// every access (1.2k instructions a skipped `register`).
        private final class Storage {
            let fields: UnsafeMutablePointer<Fields>

            init(_ value: Fields) {
                fields = .allocate(capacity: 1)
                fields.initialize(to: value)
            }

            deinit {
                fields.deinitialize(count: 1)
                fields.deallocate()
            }
        }

        private var storage: Storage

        init(_ fields: Fields) {
            storage = Storage(fields)
        }

        subscript<Value>(dynamicMember field: KeyPath<Fields, Value>) -> Value {
            storage.fields.pointee[keyPath: field]
        }

        // The session's own changes: its fields are written here and nowhere else.

        /// `config` is in use: the session is configured, with no error.
        mutating func configDidChange(_ config: Config) {
            change {
                $0.config = config
                $0.status = .configured
                $0.configError = nil
            }
        }

        /// The config could not be loaded, for `error`, and none is in use.
        mutating func configFailed(_ error: SuperwallError) {
            change {
                $0.status = .failed
                $0.configError = error
            }
        }

        /// The app set SuperwallKit's `overrideProductsByName` after `configure`.
        mutating func productsOverridden(byName overrides: [String: String]) {
            change { $0.overrideProductsByName = overrides }
        }

        /// The host's store described `details`: they replace what it said of the same products.
        mutating func storeDescribed(_ details: [StoreProductDetails]) {
            change { fields in
                for product in details { fields.storeDetails[product.productIdentifier] = product }
            }
        }

        /// The device id the subscriptions API knows the device by, the device template's
        /// `deviceId`: the one the client gave, else the vendor's and the user's.
        func webDeviceId(of identity: Identity) -> String {
            if let given = self.deviceOverrides["deviceId"]?.stringValue { return given }
            return DeviceTemplate.deviceId(vendorId: self.deviceFacts.vendorId, identity: identity)
        }

        /// The options in effect: `configure`'s, with what was changed since.
        func effective(_ tracking: EventTrackingBehavior, _ locale: String?, _ level: Logger.Level) -> ConfigureOptions
        {
            self.options.changed(tracking, locale, self.overrideProductsByName, level)
        }

        private mutating func change(_ body: (inout Fields) -> Void) {
            if !isKnownUniquelyReferenced(&storage) { storage = Storage(storage.fields.pointee) }
            body(&storage.fields.pointee)
        }
    }

    // MARK: The device

    /// SuperwallKit's `localeIdentifier` option: the locale reported in device attributes
    /// (and used for paywalls); nil goes back to the device's own.
    public func setLocaleIdentifier(_ identifier: String?) {
        device.override(locale: identifier)
    }

    /// The locale override in effect (`setLocaleIdentifier`'s, else the option's), or nil.
    public var localeIdentifier: String? { device.locale }

    /// SuperwallKit's `options` as they are now, in `config_attributes`' form: `configure`'s,
    /// with what was changed since (tracking, locale, product overrides) and `logLevel`.
    public func optionsInEffect(logLevel: Logger.Level) throws(SuperwallError) -> [String: JSON] {
        guard let session else { throw .notConfigured }
        return SuperwallOptionsDump.make(session.effective(tracker.behavior, device.locale, logLevel))
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
            userAttributes: users.attributes,
            isLoggedIn: users.identity.isLoggedIn,
            device: deviceTemplate(),
            params: params,
            history: StorePlacementHistory(store: session.store, now: clock.now())
        )
    }

    public func deviceAttributes() -> [String: JSON] {
        deviceTemplate()()
    }

    /// SuperwallKit's `getDeviceAttributes()`: the device template, once `configure` has opened
    /// the session, while its config may still be loading (a call pipelined behind `configure`
    /// finds the session, as `identity()` does).
    public func sessionDeviceAttributes() throws(SuperwallError) -> [String: JSON] {
        guard session != nil else { throw .notConfigured }
        return deviceAttributes()
    }

    /// The device template as of now, built when first called: most audience rules never
    /// read `device`, and building it costs two queries and some date arithmetic.
    func deviceTemplate() -> @Sendable () -> [String: JSON] {
        device.template(
            of: session,
            users: users,
            entitlements: userEntitlements,
            at: clock.now(),
            inTestMode: isTestModeActive
        )
    }
}
