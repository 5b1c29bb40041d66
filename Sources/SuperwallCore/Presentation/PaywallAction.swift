import Foundation
import Logging

/// What the user does on a paywall, as the host forwards it (SuperwallKit's paywall.js
/// messages).
public enum PaywallAction: Sendable, Equatable {
    case purchase(productId: String)
    case restore
    case close
    case custom(name: String)
    case customPlacement(name: String, params: [String: JSON])
    case openURL(String)
    case openDeepLink(String)
    case setUserAttributes([String: JSON?])
    case requestCallback(CustomCallback)
    /// `paywall_page_view`'s parameters (`page_node_id`, `flow_position`, ...).
    case pageView([String: JSON])
}

/// Why a paywall stays on screen after a restore that succeeded.
public enum PaywallKept: Sendable, Equatable {
    /// SuperwallKit's web-restore exception: with a web restore URL, a restore that leaves
    /// some of the paywall's entitlements locked offers the web restore (an alert) instead.
    case webRestoreOffered(lockedEntitlements: [String])
    /// `paywalls.automaticallyDismiss` is false: the app dismisses.
    case automaticallyDismissOff
}

/// What a paywall action answers, for the actions that answer something.
public enum PaywallActionResult: Sendable, Equatable {
    case callback(CustomCallbackResult)
    case purchase(PurchaseResult)
    /// `paywallKept` says why a paywall stays up after a restore that succeeded.
    case restore(RestorationResult, paywallKept: PaywallKept? = nil)

    public var callbackResult: CustomCallbackResult? {
        if case .callback(let result) = self { return result }
        return nil
    }
}
