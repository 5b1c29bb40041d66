import Executors
import Foundation
import Logging

/// The paywall page's side of the protocol: what the page posts comes
/// in through `handlePageMessage`, and what SuperwallKit passes into the page goes out to the
/// host as `accept64` strings (`PaywallPresenter.passToPage`), in order.
extension Superwall {
    /// Decodes what the page of paywall `sessionId` posted and performs each of its events in
    /// order. A message that does not decode changes nothing (and is logged, for a host that does
    /// not read the error); answers how many events ran.
    @discardableResult
    public func handlePageMessage(_ posted: JSON, inSession sessionId: String) async throws(SuperwallError) -> Int {
        try await answering { () async throws(SuperwallError) -> Int in
            guard session != nil else { throw .notConfigured }
            guard let current = paywalls.open, current.id == sessionId, !current.isClosing else {
                throw .paywallSessionNotFound(sessionId)
            }
            let messages: [PageMessage]
            do throws(PageMessageError) {
                messages = try PageMessage.decodeEnvelope(posted)
            } catch {
                error.logRefusal(by: current.info.identifier)
                throw .invalidPageMessage(error)
            }
            for message in messages {
                // A message that closed the paywall ends the rest: there is no page left to act for.
                guard let current = paywalls.open, current.id == sessionId else { break }
                try await perform(message, on: current)
            }
            return messages.count
        }
    }

    private func perform(_ message: PageMessage, on paywall: PresentedPaywall) async throws(SuperwallError) {
        switch message {
        case .ping(let version):
            pageDidPing(version, paywall)
        case .close:
            hapticFeedback(on: paywall)
            _ = try await perform(.close, inSession: paywall.id)
        case .restore:
            hapticFeedback(on: paywall)
            _ = try await perform(.restore, inSession: paywall.id)
        case .purchase(let productIdentifier, let shouldDismiss):
            hapticFeedback(on: paywall)
            _ = try await purchase(productId: productIdentifier, from: paywall, dismissing: shouldDismiss)
        case .custom(let data):
            _ = try await perform(.custom(name: data), inSession: paywall.id)
        case .customPlacement(let name, let params):
            _ = try await perform(.customPlacement(name: name, params: params), inSession: paywall.id)
        case .userAttributesUpdated(let attributes):
            _ = try await perform(.setUserAttributes(UserAttributes.pageChanges(attributes)), inSession: paywall.id)
        case .pageView(let page):
            _ = try await perform(.pageView(page), inSession: paywall.id)
        case .requestCallback(let requestId, let name, let isBlocking, let variables):
            let callback = CustomCallback(name: name, variables: variables ?? [:], isBlocking: isBlocking)
            guard case .callback(let result)? = try await perform(.requestCallback(callback), inSession: paywall.id)
            else { return }
            host.presenter?.passToPage(
                PageEvents.callbackResult(requestId: requestId, name: name, result: result),
                sessionId: paywall.id
            )
        case .openURL(let url, browserType: "payment_sheet"):
            guard opens(url, as: .paymentSheet, from: paywall) else { return }
            hapticFeedback(on: paywall)
            request(.loadingState(.loadingPurchase), on: paywall)
            request(.openURL(url, mode: .paymentSheet), on: paywall)
        case .openURL(let url, _), .openURLExternal(let url):
            let mode: PageEffect.URLMode = if case .openURLExternal = message { .external } else { .inApp }
            guard opens(url, as: mode, from: paywall) else { return }
            hapticFeedback(on: paywall)
            _ = try await perform(.openURL(url), inSession: paywall.id)
            request(.openURL(url, mode: mode), on: paywall)
        case .openDeepLink(let link):
            guard opens(link, as: .deepLink, from: paywall) else { return }
            hapticFeedback(on: paywall)
            _ = try await perform(.openDeepLink(link), inSession: paywall.id)
            request(.openURL(link, mode: .deepLink), on: paywall)
        case .requestStoreReview(let external):
            requestReview(external: external, on: paywall)
        case .requestPermission(let type, let requestId):
            await requestPermission(type, requestId: requestId, on: paywall)
        case .scheduleNotification(let title, let subtitle, let body, let delayMs):
            // One trial reminder per paywall; a delay that is not positive is ignored.
            guard delayMs > 0 else { return }
            let notification = PageNotification(
                trialReminderOf: paywall.info.identifier,
                title: title,
                subtitle: subtitle,
                body: body,
                delayMs: delayMs,
                isSandbox: deviceAttributes()["isSandbox"]?.stringValue == "true"
            )
            // SuperwallKit's `notificationPermissionsDenied` alert when the OS refused to notify.
            request(
                .scheduleNotification(notification),
                on: paywall,
                alertingIfDenied: session?.notificationPermissionsDeniedAlert
            )
        case .hapticFeedback(let type):
            // Unknown types are ignored; this one is not subject to the haptics option.
            if Self.hapticTypes.contains(type) { request(.haptic(type), on: paywall) }
        case .stripeCheckout(let stage, _, let productIdentifier):
            let name = stage == .abandon ? "transaction_abandon" : "stripeCheckout_\(stage.rawValue)"
            track(
                name,
                paywall.info.stripeCheckoutParameters(productIdentifier: productIdentifier),
                subject: EventSubject(paywallInfo: paywall.info)
            )
        case .initiateWebCheckout:
            break
        }
    }

    static let hapticTypes: Set<String> = ["light", "medium", "heavy", "success", "warning", "error", "selection"]

    /// Whether the page's link may be opened (`PageURLPolicy`); a refused one is logged as a
    /// warning, which a bound delegate hears as `delegate/handleLog`, and nothing else happens.
    private func opens(_ url: String, as mode: PageEffect.URLMode, from paywall: PresentedPaywall) -> Bool {
        guard let refusal = PageURLPolicy.refusal(of: url, as: mode) else { return true }
        Self.pageLogger.warning(
            "paywall \(paywall.info.identifier) asked to open \(url.prefix(200)) (\(mode.rawValue)); refused: \(refusal)",
            metadata: [
                "paywallIdentifier": .string(paywall.info.identifier), "url": .string(String(url.prefix(2_048))),
                "mode": .string(mode.rawValue),
            ]
        )
        return false
    }

    static let pageLogger = Logger(label: "superwall.paywall")

    /// Asks the host for `effect` behind the effects before it; nothing waits for it, and a
    /// host that does not answer within `timeouts.pageEffect` is given up on. A host that says
    /// the OS denied it is shown `alertingIfDenied`, when given.
    func request(_ effect: PageEffect, on paywall: PresentedPaywall?, alertingIfDenied: PaywallAlert? = nil) {
        guard let paywall, let presenter = host.presenter else { return }
        if case .loadingState(let state) = effect {
            paywalls.changeOpen(paywall.id) { $0.page.loadingState = state }
        }
        let (limit, sessionId) = (timeouts.pageEffect, paywall.id)
        paywalls.queuePageEffect(on: offload) {
            let status = await withDeadline(limit, fallback: nil) {
                (try? await presenter.perform(effect, sessionId: sessionId)) ?? nil
            }
            guard status == .denied, let alert = alertingIfDenied else { return }
            await withDeadline(limit, fallback: ()) { try? await presenter.showAlert(alert, sessionId: sessionId) }
        }
    }

    /// SuperwallKit's medium impact on a close, a purchase, a restore or a link.
    private func hapticFeedback(on paywall: PresentedPaywall) {
        request(.haptic("medium"), on: paywall)
    }

    /// `request_store_review`: the prompt in the app, or the store's review page, which needs
    /// the app's id from the config (without it, nothing happens, as in SuperwallKit).
    private func requestReview(external: Bool, on paywall: PresentedPaywall) {
        var url: String?
        if external {
            guard let appId = session?.config?.iosAppId, !appId.isEmpty else { return }
            url = "https://apps.apple.com/app/id\(appId)?action=write-review"
        }
        let count =
            ((try? session?.store.placementCount(named: "review_requested", since: nil, until: clock.now())) ?? 0) + 1
        track("review_requested", ["count": .int(Int64(count)), "type": .string(external ? "external" : "in-app")])
        request(.requestReview(external: external, url: url), on: paywall)
    }

    /// `request_permission`: the host asks the user; the answer is tracked and passed into the
    /// page as `permission_result`. A host that cannot ask, or does not answer within
    /// `timeouts.customCallback`, answers `unsupported`, which counts as denied.
    private func requestPermission(_ type: String, requestId: String, on paywall: PresentedPaywall) async {
        let parameters: [String: JSON] = [
            "permission_name": .string(type), "paywall_identifier": .string(paywall.info.identifier),
        ]
        track("permission_requested", parameters)
        await paywalls.pageEffects?.value
        var status = PermissionStatus.unsupported
        if let presenter = host.presenter {
            let sessionId = paywall.id
            status = await withDeadline(timeouts.customCallback, fallback: .unsupported) {
                ((try? await presenter.perform(.requestPermission(type), sessionId: sessionId)) ?? nil) ?? .unsupported
            }
        }
        track(status == .granted ? "permission_granted" : "permission_denied", parameters)
        host.presenter?.passToPage(
            PageEvents.lifecycle(
                "permission_result",
                paywall: paywall.paywall,
                payload: [
                    "permission_type": .string(type), "request_id": .string(requestId),
                    "status": .string(status.rawValue),
                ]
            ),
            sessionId: paywall.id
        )
    }

    /// The page is ready. It is told the event tracking behaviour, then the TEMPLATES and
    /// the editor's text, then what was held for it.
    private func pageDidPing(_ version: String, _ paywall: PresentedPaywall) {
        guard let (paywall, held) = paywalls.pageDidPing(paywall.id, version: version, at: clock.now()) else {
            return
        }
        track(
            "paywallWebviewLoad_complete",
            paywall.info.placementParameters,
            subject: EventSubject(paywallInfo: paywall.info)
        )
        let events =
            [
                PageEvents.trackingBehavior(tracker.behavior),
                templates(for: paywall).accept64,
                paywall.paywall.paywalljsEvent,
            ] + held
        for event in events { host.presenter?.passToPage(event, sessionId: paywall.id) }
        // The page is revealed `presentation_delay` after it has its data.
        let delay = Duration.milliseconds(paywall.info.presentationDelayMs)
        startTask { superwall in
            if delay > .zero { try? await DeadlineTimer.sleep(for: delay) }
            superwall.revealPage(paywall)
        }
    }

    private func revealPage(_ paywall: PresentedPaywall) {
        guard paywalls.open?.id == paywall.id else { return }
        request(.loadingState(.ready), on: paywall)
    }

    /// The TEMPLATES for the paywall on screen, from the user, the device and the store as
    /// they are now.
    func templates(for paywall: PresentedPaywall) -> PaywallTemplates {
        let now = clock.now()
        var device = deviceTemplate()()
        if let store = session?.store {
            device.merge(
                ComputedPropertyRequest.deviceKeys(
                    paywall.info.computedPropertyRequests,
                    history: StorePlacementHistory(store: store, now: now)
                ),
                uniquingKeysWith: { _, computed in computed }
            )
        }
        let customerInfo = session == nil ? .placeholder : userEntitlements.customerInfo
        return PaywallTemplates(
            paywall: paywall.paywall,
            userAttributes: session == nil ? [:] : users.attributes,
            device: device,
            params: paywall.placementParams,
            experiment: paywall.info.experiment,
            isFreeTrialAvailable: paywall.info.isFreeTrialAvailable,
            subscribedProductIds: customerInfo.subscribedProductIds,
            deviceLocale: device["deviceLocale"]?.stringValue ?? "en_US",
            now: now
        )
    }

    /// A lifecycle event into the page of `paywall`: `paywall_open` and `paywall_close`
    /// wait for the page's first `ping`; the rest go at once.
    func passToPage(_ name: String, on paywall: PresentedPaywall?, payload: [String: JSON] = [:]) {
        guard let paywall, let presenter = host.presenter else { return }
        let event = PageEvents.lifecycle(name, paywall: paywall.paywall, payload: payload)
        let isHeld = name == "paywall_open" || name == "paywall_close"
        if isHeld, paywalls.open?.id == paywall.id, paywalls.open?.page.paywalljsVersion == nil {
            paywalls.changeOpen(paywall.id) { $0.page.held.append(event) }
            return
        }
        presenter.passToPage(event, sessionId: paywall.id)
    }
}
