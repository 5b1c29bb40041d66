import Executors
import Foundation
import Logging
import Rules

/// The paywall on screen, from what the user does on it to its closing (with its survey and
/// the implicit triggers that may show the next one), and the paywalls loaded ahead of it.
extension Superwall {
    // MARK: What is on screen

    /// The paywall on screen, as it stands.
    var openPaywall: PresentedPaywall? { paywalls.open }

    /// SuperwallKit's `isPaywallPresented`.
    public var isPaywallPresented: Bool { paywalls.open != nil }

    /// SuperwallKit's `latestPaywallInfo`: the paywall on screen's, else the last dismissed one's.
    public var latestPaywallInfo: PaywallInfo? { paywalls.open?.info ?? paywalls.lastDismissedInfo }

    /// SuperwallKit's `togglePaywallSpinner(isHidden:)`: shows the paywall's spinner
    /// (`manualLoading`) over a ready page, or hides the spinner of a manual load or a
    /// purchase. Answers the loading state asked of the host, nil without a paywall.
    public func togglePaywallSpinner(isHidden: Bool) -> PageLoadingState? {
        guard let paywall = paywalls.open else { return nil }
        let state = paywall.page.loadingState
        if isHidden, state == .manualLoading || state == .loadingPurchase {
            request(.loadingState(.ready), on: paywall)
        } else if !isHidden, state == .ready {
            request(.loadingState(.manualLoading), on: paywall)
        }
        return paywalls.open?.page.loadingState
    }

    /// The session id of the paywall on screen, once it is shown.
    public var openSessionId: String? { paywalls.open.flatMap { $0.isShown && !$0.isClosing ? $0.id : nil } }

    // MARK: What the user does on it

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
                if !Redemptions.isRedemptionLink(url) {
                    await closePaywall(result: .declined, closeReason: .systemLogic)
                }
                host.delegate?.paywallWillOpenDeepLink(url)
            case .setUserAttributes(let changes):
                host.delegate?.userAttributesDidChange(try setUserAttributes(changes))
            case .requestCallback(let callback):
                return .callback(
                    await CustomCallbackResult.asking(current.flow.handler, callback, within: timeouts.customCallback)
                )
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
}
