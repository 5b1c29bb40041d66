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

extension Superwall {
    /// Runs SuperwallKit's logic for a paywall action. Answers the custom callback's result,
    /// the purchase's or the restore's; nil for the rest.
    public func perform(
        _ action: PaywallAction,
        inSession sessionId: String
    ) async throws(SuperwallError) -> PaywallActionResult? {
        try await answering { () async throws(SuperwallError) -> PaywallActionResult? in
            guard session != nil else { throw .notConfigured }
            // The host's answer to `paywall/present` and the user's first action may reach the
            // SDK in either order; the action goes after `paywall_open`, as on a device.
            _ = await wait(on: paywalls.shownWaiters, within: timeouts.presentation) {
                paywalls.open.map { $0.id == sessionId && !$0.isShown } ?? false
            }
            guard let current = paywalls.open, current.id == sessionId, !current.isClosing else {
                throw .paywallSessionNotFound(sessionId)
            }
            switch action {
            case .purchase(let productId):
                return .purchase(try await purchase(productId: productId, from: current))
            case .restore:
                let result = try await restore(from: current)
                guard result == .restored, paywalls.open?.id == current.id else { return .restore(result) }
                let locked = lockedEntitlements(of: current)
                return .restore(
                    result,
                    paywallKept: locked.isEmpty
                        ? .automaticallyDismissOff : .webRestoreOffered(lockedEntitlements: locked)
                )
            case .close:
                await userClosed(current)
            case .custom(let name):
                host.delegate?.handleCustomPaywallAction(name: name)
            case .customPlacement(let name, let params):
                // SuperwallKit's `track` refuses its own events' names, with a log line.
                guard !SuperwallEventNames.all.contains(name) else {
                    Self.pageLogger.warning(
                        "paywall \(current.info.identifier) fired the custom placement \"\(name.prefix(200))\", one of Superwall's own event names; ignored",
                        metadata: [
                            "paywallIdentifier": .string(current.info.identifier),
                            "placement": .string(String(name.prefix(4_096))),
                        ]
                    )
                    return nil
                }
                let event = tracker.makeEvent(
                    name,
                    current.info.placementParameters.merging(
                        ["name": .string(name)],
                        uniquingKeysWith: { _, new in new }
                    ),
                    custom: params.merging(current.info.audienceFilterParameters, uniquingKeysWith: { own, _ in own })
                )
                record(event, offeringImplicitTrigger: false)
                offerImplicitTrigger(.customPlacement, event: event, firedBy: current.id)
            case .openURL(let url):
                host.delegate?.paywallWillOpenURL(url)
            case .openDeepLink(let url):
                // A redemption link is handled where the paywall stays up.
                if !Self.isRedemptionLink(url) { await closePaywall(result: .declined, closeReason: .systemLogic) }
                host.delegate?.paywallWillOpenDeepLink(url)
            case .setUserAttributes(let changes):
                host.delegate?.userAttributesDidChange(try setUserAttributes(changes))
            case .requestCallback(let callback):
                return .callback(await customCallback(callback, handler: current.flow.handler))
            case .pageView(let page):
                track(
                    "paywall_page_view",
                    current.info.placementParameters.merging(page, uniquingKeysWith: { _, new in new }),
                    subject: EventSubject(paywallInfo: current.info)
                )
            }
            return nil
        }
    }

    /// SuperwallKit's `dismiss(result: .declined, closeReason: .manualClose)`: the paywall's
    /// survey may be asked first. Then SuperwallKit's decline: when closing would present a
    /// `paywall_decline` paywall (and this paywall is not loop-protected, the rule the implicit
    /// trigger applies too), the implicit trigger replaces it; otherwise it closes as declined
    /// by the user.
    private func userClosed(_ current: PresentedPaywall) async {
        guard await askSurvey(of: current, closingAs: .declined, for: .manualClose), paywalls.open?.id == current.id
        else { return }
        let decline = tracker.makeEvent(
            ImplicitTrigger.paywallDecline.rawValue,
            current.info.placementParameters,
            custom: current.info.audienceFilterParameters,
            subject: EventSubject(paywallInfo: current.info)
        )
        let replaces = await implicitTriggerReplaces(
            current,
            with: decline,
            trigger: .paywallDecline,
            checkingAs: .declineCheck
        )
        record(decline)
        if !replaces { await closePaywall(result: .declined, closeReason: .manualClose) }
    }

    /// Asks the presentation's handler, within `timeouts.customCallback`. No handler, a
    /// handler that takes no callbacks, and a deadline passed all answer failure.
    private func customCallback(
        _ callback: CustomCallback,
        handler: (any PresentationHandler)?
    ) async -> CustomCallbackResult {
        guard let handler, handler.handlesCustomCallbacks else {
            return .failure(
                "No handler takes custom callbacks for this paywall (the client did not declare customCallbacks)."
            )
        }
        let limit = timeouts.customCallback
        return await withDeadline(
            limit,
            fallback: .failure("The custom callback \"\(callback.name)\" was not answered within \(limit).")
        ) {
            await handler.onCustomCallback(callback)
        }
    }

    /// `<scheme>://superwall/redeem?code=…` and `https://*.superwall.app/app-link/superwall/redeem?…`.
    static func isRedemptionLink(_ url: String) -> Bool {
        guard let components = URLComponents(string: url) else { return false }
        let path = (components.host.map { "/" + $0 } ?? "") + components.path
        return path.hasSuffix("superwall/redeem")
    }
}
