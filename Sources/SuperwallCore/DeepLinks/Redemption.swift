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

        /// SuperwallKit's case of `RedemptionResult`, as the wrappers name it.
        public var caseName: String {
            switch self {
            case .success: "success"
            case .error: "error"
            case .codeExpired: "expiredCode"
            case .invalidCode: "invalidCode"
            case .expiredSubscription: "expiredSubscription"
            }
        }
    }

    public var code: String
    public var status: Status
    /// Why it failed, as the server or the bridge says.
    public var message: String?
    /// What the server said of a success or an expired subscription (`redemptionInfo`), kept as sent.
    public var redemptionInfo: JSON?
    /// For an expired code, what the server said of it (`expired`: `resent`, whether the
    /// redemption email went out again, and `obfuscatedEmail`), kept as sent.
    public var expiredInfo: JSON? = nil
}

/// The subscriptions API's answer to a redeem request: a result per code and the user's web
/// customer info.
struct RedeemResponse: Decodable {
    struct CodeResult: Decodable {
        var status: String
        var code: String
        var redemptionInfo: JSON?
        var error: Failure?
        var expired: JSON?
        struct Failure: Decodable { var message: String? }
    }

    var codes: [CodeResult]
    var customerInfo: CustomerInfo?
}

extension RedemptionResult {
    /// The subscriptions API's answer for `code`, and the web customer info it brings when
    /// the code was redeemed; a failed request is an `error` result naming why.
    static func answer(
        for code: String,
        _ fetch: () async throws -> Data
    ) async -> (result: RedemptionResult, webCustomerInfo: CustomerInfo?) {
        do {
            let response = try JSONDecoder().decode(RedeemResponse.self, from: try await fetch())
            let answer = response.codes.first { $0.code == code }
            let status = answer.flatMap { Status(rawValue: $0.status) } ?? .error
            let result = RedemptionResult(
                code: code,
                status: status,
                message: status == .success
                    ? nil
                    : answer?.error?.message
                        ?? (answer == nil ? "The answer has no result for the code." : status.rawValue),
                redemptionInfo: answer?.redemptionInfo,
                expiredInfo: status == .codeExpired ? answer?.expired : nil
            )
            return (result, status == .success ? response.customerInfo : nil)
        } catch {
            return (
                RedemptionResult(code: code, status: .error, message: "The redemption request failed: \(error)"), nil
            )
        }
    }
}
