import Executors
import Foundation

/// How redeeming one web-checkout code ended (SuperwallKit's `RedemptionResult`).
public struct RedemptionResult: Sendable, Equatable {
    public enum Status: String, Sendable {
        case success = "SUCCESS"
        case error = "ERROR"
        case codeExpired = "CODE_EXPIRED"
        case invalidCode = "INVALID_CODE"
        case expiredSubscription = "EXPIRED_SUBSCRIPTION"
    }

    public var code: String
    public var status: Status
    /// Why it failed, as the server or the bridge says.
    public var message: String?
    /// What the server said of a success (`redemptionInfo`), kept as sent.
    public var redemptionInfo: JSON?
}

/// The subscriptions API's answer to a redeem request: a result per code and the user's web
/// customer info.
struct RedeemResponse: Decodable {
    struct CodeResult: Decodable {
        var status: String
        var code: String
        var redemptionInfo: JSON?
        var error: Failure?
        struct Failure: Decodable { var message: String? }
    }

    var codes: [CodeResult]
    var customerInfo: CustomerInfo?
}

extension Superwall {
    /// SuperwallKit's `WebEntitlementRedeemer.redeem(.code)`: posts the code to the
    /// subscriptions API (`http` sources only), and on success takes the web customer info
    /// it answers, whose entitlements join the status. `redemption_start`, then
    /// `redemption_complete` or `redemption_fail`; the delegate hears `willRedeemLink` and
    /// `didRedeemLink`.
    func redeem(code: String) {
        redemptions.begin()
        track("redemption_start")
        host.delegate?.willRedeemLink()
        guard let server = configLoading.backend?.redemption, let session else {
            finishRedemption(
                RedemptionResult(
                    code: code,
                    status: .error,
                    message:
                        "Redeeming the code \(code) needs Superwall's subscriptions API, which only the http config source reaches."
                )
            )
            return
        }
        let body = redeemBody(session, codes: [(code, firstRedemption: !redeemedCodes.contains(code))])
        let request = redeemRequest
        startTask { superwall in
            let result: RedemptionResult
            var webCustomerInfo: CustomerInfo?
            do {
                let response = try JSONDecoder().decode(
                    RedeemResponse.self,
                    from: try await server.redeem(body, request: request)
                )
                let answer = response.codes.first { $0.code == code }
                let status = answer.flatMap { RedemptionResult.Status(rawValue: $0.status) } ?? .error
                result = RedemptionResult(
                    code: code,
                    status: status,
                    message: status == .success
                        ? nil
                        : answer?.error?.message
                            ?? (answer == nil ? "The answer has no result for the code." : status.rawValue),
                    redemptionInfo: answer?.redemptionInfo
                )
                if status == .success { webCustomerInfo = response.customerInfo }
            } catch {
                result = RedemptionResult(
                    code: code,
                    status: .error,
                    message: "The redemption request failed: \(error)"
                )
            }
            superwall.finishRedemption(result, webCustomerInfo: webCustomerInfo)
        }
    }

    private func finishRedemption(_ result: RedemptionResult, webCustomerInfo: CustomerInfo? = nil) {
        defer { endRedemptionWork() }
        if result.status == .success {
            if let webCustomerInfo { adoptWebCustomerInfo(webCustomerInfo) }
            let redeemed = redeemedCodes
            if !redeemed.contains(result.code) { try? store?.set(redeemed + [result.code], for: .redeemedCodes) }
            track("redemption_complete")
        } else {
            track("redemption_fail", ["error_message": .string(result.message ?? result.status.rawValue)])
        }
        host.delegate?.didRedeemLink(result)
    }

    /// SuperwallKit's `redeem(.existingCodes)` after `identify`: the codes this user already
    /// redeemed are posted again with the identified user, so the web's purchases follow the
    /// account, and the web customer info it answers replaces the stored one. Quiet: no
    /// redemption events or delegate calls, as in SuperwallKit. `http` sources only.
    func redeemExistingCodes() {
        let codes = redeemedCodes
        guard !codes.isEmpty, let server = configLoading.backend?.redemption, let session else { return }
        let body = redeemBody(session, codes: codes.map { ($0, firstRedemption: false) })
        let request = redeemRequest
        redemptions.begin()
        startTask { superwall in
            let response = try? JSONDecoder().decode(
                RedeemResponse.self,
                from: try await server.redeem(body, request: request)
            )
            if let customerInfo = response?.customerInfo { superwall.adoptWebCustomerInfo(customerInfo) }
            superwall.endRedemptionWork()
        }
    }

    /// The subscriptions API's redeem request body (camelCase), for the session's user.
    private func redeemBody(_ session: Session, codes: [(code: String, firstRedemption: Bool)]) -> JSON {
        [
            "metadata": .object(session.integrationAttributes),
            "deviceId": .string(webDeviceId),
            "appUserId": session.identity.appUserId.map(JSON.string) ?? .null,
            "aliasId": .string(session.identity.aliasId),
            "codes": .array(codes.map { ["code": .string($0.code), "firstRedemption": .bool($0.firstRedemption)] }),
            "receipts": [],
        ]
    }

    private var redeemRequest: ConfigRequest { apiRequest(retryPolicy: RetryPolicy(maxRetries: 2), attemptTimeout: 30) }

    private var redeemedCodes: [String] { ((try? store?.value(.redeemedCodes)) ?? nil) ?? [] }

    /// Makes `customerInfo` the user's web customer info; its entitlements join the status.
    /// `revoking` derives the status even when it holds none (a poll that found them gone).
    private func adoptWebCustomerInfo(_ customerInfo: CustomerInfo, revoking: Bool = false) {
        try? store?.set(customerInfo, for: .webCustomerInfo)
        session?.webCustomerInfo = customerInfo
        try? refreshCustomerInfo(webEntitlementsChanged: revoking)
    }

    /// One redemption, re-redemption or poll is over; `awaitRedemptions` waits for none left.
    private func endRedemptionWork() {
        redemptions.end()
    }

    /// Waits until no redemption is in flight. Each is bounded by its request's attempts.
    public func awaitRedemptions() async {
        guard redemptions.inFlight > 0 else { return }
        let ticket = redemptions.waiters.ticket()
        await withCheckedContinuation { redemptions.waiters.park($0, ticket: ticket) }
    }
}

extension Superwall {
    /// SuperwallKit's `pollWebEntitlements`: the user's web entitlements from the subscriptions
    /// API (`http` sources only, never in test mode). `force` (the first config) always asks;
    /// otherwise the config's `web2app_config.entitlements_max_age_ms` must be set and have
    /// passed since the last fetch. An empty answer does not replace web entitlements that are
    /// active and not yet expired (a backend artifact, not a revocation, as SuperwallKit reads it).
    func pollWebEntitlements(force: Bool) {
        guard let session, let server = configLoading.backend?.webEntitlements, !isTestModeActive else { return }
        let now = clock.now()
        if !force {
            guard let maxAgeMs = session.config?.web2appConfig?.entitlementsMaxAgeMs else { return }
            if let last = (try? session.store.value(.lastWebEntitlementsFetch)) ?? nil {
                guard now.timeIntervalSince1970 * 1000 - last > Double(maxAgeMs) else { return }
            }
        }
        let deviceId = webDeviceId
        let userId = session.identity.appUserId ?? deviceId
        let request = apiRequest(attemptTimeout: 15)
        redemptions.begin()
        startTask { superwall in
            let fetched = try? await server.fetchWebCustomerInfo(userId: userId, deviceId: deviceId, request: request)
            superwall.finishWebEntitlements(fetched, askedFor: userId, at: now)
        }
    }

    private func finishWebEntitlements(_ fetched: CustomerInfo?, askedFor userId: String, at time: Date) {
        defer { endRedemptionWork() }
        // A user who changed meanwhile is not the one asked about.
        guard let fetched, let session, (session.identity.appUserId ?? webDeviceId) == userId else { return }
        let holdsUnexpired = session.webCustomerInfo.entitlements.contains {
            $0.isActive && ($0.expiresAt ?? .distantPast) > time
        }
        if fetched.entitlements.isEmpty && holdsUnexpired { return }
        try? session.store.set(time.timeIntervalSince1970 * 1000, for: .lastWebEntitlementsFetch)
        guard fetched != session.webCustomerInfo else { return }
        adoptWebCustomerInfo(fetched, revoking: true)
    }

    /// The device id the subscriptions API knows the device by, the device template's `deviceId`.
    var webDeviceId: String {
        guard let session else { return DeviceTemplate.deviceIdPrefix }
        if let given = session.deviceOverrides["deviceId"]?.stringValue { return given }
        return DeviceTemplate.deviceId(vendorId: session.deviceFacts.vendorId, identity: session.identity)
    }
}
