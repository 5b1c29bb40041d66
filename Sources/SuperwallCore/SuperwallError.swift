/// Why a core call failed. Each case has a stable `kind` that the bridge passes to clients.
public enum SuperwallError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The call needs `configure` first.
    case notConfigured
    /// `configure` was called again with a different API key.
    case apiKeyMismatch(configured: String)
    /// `identify` with an id that is empty once trimmed.
    case invalidUserId
    /// The data directory cannot be used.
    case dataDirectory(DataDirectory.OpenError)
    /// Reading or writing the database failed.
    case storage(String)
    /// The disk holding the data directory (or the process's file-size limit) has no room
    /// for a write. What was accepted before it is kept.
    case storageFull(String)
    /// No config could be loaded (and none was cached).
    case configUnavailable(String)
    /// A config was fetched but does not decode; the error names the JSON path.
    case invalidConfig(ConfigDecodingError)
    /// `register` or `getPaywall` with the name of one of Superwall's own events.
    case reservedPlacementName(String)
    /// A paywall action or dismissal for a session that is not on screen.
    case paywallSessionNotFound(String)
    /// `getPaywall` found no paywall to show, for a reason that is not an error.
    case paywallSkipped(PaywallSkipReason)
    /// The presentation pipeline failed (SuperwallKit's numbered presentation errors).
    case presentation(PresentationError)
    /// A purchase or restore with no purchase controller and test mode off.
    case noPurchaseController
    /// `purchase` of a product the config does not have.
    case productNotFound(String)
    /// A purchase while another one is in flight.
    case purchaseInProgress
    /// Observer mode's reports (`observePurchaseStart`, ...) without `shouldObservePurchases`.
    case notObservingPurchases
    /// `purchase` while `shouldObservePurchases` is on: the app buys through its own store.
    case observingPurchases
    /// An observed purchase's end with no start reported before it.
    case observedPurchaseNotStarted(String?)
    /// `getCustomerInfo` waited its limit and the host never set a subscription status.
    case customerInfoTimeout(Duration)
    /// A message a paywall page posted does not decode; nothing of it was done.
    case invalidPageMessage(PageMessageError)
    /// The user's attributes would hold more members than `UserAttributes.totalMemberLimit`;
    /// nothing was changed.
    case attributesOverLimit(count: Int, limit: Int)
    /// A call named something the config does not have (an experiment, a variant); `path`
    /// is the param that named it.
    case notInConfig(path: String, message: String)

    public var kind: String {
        switch self {
        case .notConfigured: return "notConfigured"
        case .apiKeyMismatch: return "apiKeyMismatch"
        case .invalidUserId: return "invalidUserId"
        case .dataDirectory(.inUse): return "dataDirectoryInUse"
        case .dataDirectory(.unusable): return "dataDirectoryUnusable"
        case .storage: return "storageFailed"
        case .storageFull, .dataDirectory(.full): return "storageFull"
        case .configUnavailable: return "configUnavailable"
        case .invalidConfig: return "invalidConfig"
        case .reservedPlacementName: return "reservedPlacementName"
        case .paywallSessionNotFound: return "paywallSessionNotFound"
        case .paywallSkipped: return "paywallSkipped"
        case .presentation(let error): return error.code.kind
        case .noPurchaseController: return "noPurchaseController"
        case .productNotFound: return "productNotFound"
        case .purchaseInProgress: return "purchaseInProgress"
        case .notObservingPurchases: return "notObservingPurchases"
        case .observingPurchases: return "observingPurchases"
        case .observedPurchaseNotStarted: return "observedPurchaseNotStarted"
        case .customerInfoTimeout: return "customerInfoTimeout"
        case .invalidPageMessage: return "invalidPageMessage"
        case .attributesOverLimit, .notInConfig: return "invalidParams"
        }
    }

    public var description: String {
        switch self {
        case .notConfigured: return "Superwall is not configured: call configure first."
        case .apiKeyMismatch(let key):
            return
                "Superwall is already configured with another API key (\(key.prefix(8))…); a second configure may not change it."
        case .invalidUserId: return "The user id is empty once whitespace is trimmed."
        case .dataDirectory(let error): return "\(error)."
        case .storage(let reason): return "The data directory's database failed: \(reason)."
        case .storageFull(let reason):
            return
                "The data directory's disk is full (\(reason)); what was accepted before is kept. Free space and try again."
        case .configUnavailable(let reason): return "No config could be loaded: \(reason)."
        case .invalidConfig(let error):
            if let line = error.line, let column = error.column {
                return "The config is not JSON at line \(line), column \(column): \(error.reason)."
            }
            return "The config is invalid at \(error.path): \(error.reason)."
        case .reservedPlacementName(let name):
            return
                "\"\(name)\" is one of Superwall's own events and cannot be registered as a placement; choose another name."
        case .paywallSessionNotFound(let id):
            return "No paywall session \(id) is on screen; it was dismissed or never existed."
        case .paywallSkipped(let reason): return "No paywall to show: \(reason.statusReason)."
        case .presentation(let error): return error.message
        case .noPurchaseController:
            return
                "No purchase controller: declare the host.purchaseController capability, or let test mode simulate purchases (testModeBehavior)."
        case .productNotFound(let id): return "The product \(id) is not in the config's products."
        case .purchaseInProgress: return "A purchase is already in progress; it must finish before another starts."
        case .notObservingPurchases:
            return
                "Purchases are not observed: set options.shouldObservePurchases in configure to report the purchases your app makes itself."
        case .observingPurchases:
            return
                "shouldObservePurchases is on: your app buys through its own store and reports it (observePurchaseStart, observePurchaseResult, observePurchaseError); purchase is refused, as SuperwallKit's Superwall.purchase is."
        case .observedPurchaseNotStarted(let id):
            return
                "No purchase\(id.map { " of \($0)" } ?? "") was reported started: call observePurchaseStart when your app starts one."
        case .customerInfoTimeout(let limit):
            return
                "No customer info within \(limit): the purchase controller has not set a subscription status; set it with setSubscriptionStatus."
        case .invalidPageMessage(let error):
            return "The page's message does not decode, so none of its events was performed: \(error)."
        case .attributesOverLimit(let count, let limit):
            return
                "The user's attributes would hold \(count > limit ? "more than \(limit)" : "\(count)") members and elements in all (every depth counted); the limit is \(limit). Nothing was changed: remove attributes (set them to null) first."
        case .notInConfig(let path, let message): return "\(path): \(message)."
        }
    }
}

extension SuperwallError {
    /// The error for a failed read or write of the store: `storageFull` when the disk (or the
    /// file-size limit) had no room, `storage` otherwise.
    static func storage(from error: any Error) -> SuperwallError {
        if let error = error as? SuperwallError { return error }
        if StoreFault.isFull(error) { return .storageFull("\(error)") }
        return .storage("\(error)")
    }
}

/// Runs a store write, its failure thrown as `SuperwallError.storage`.
func persisting<Result>(_ body: () throws -> Result) throws(SuperwallError) -> Result {
    do {
        return try body()
    } catch {
        throw .storage(from: error)
    }
}
