import JSONRPC
import SuperwallCore

/// Purchases made by the client: `purchaseController/purchase` and
/// `purchaseController/restorePurchases` requests.
///
/// Every way a reply can go wrong resolves, never hangs: an error reply or one that does not
/// decode is `failed` with the reason; a connection that closes (or a shutdown) is
/// `cancelled`, as a store sheet the user walked away from. The core's deadline cancels the
/// request at the client (`$/cancelRequest`).
struct ClientPurchaseController: PurchaseController {
    let host: ClientHost

    func purchase(_ product: Product, paywallInfo: PaywallInfo?) async -> PurchaseResult {
        let params: JSONValue = ["product": product.wireValue, "paywallInfo": paywallInfo?.wireValue ?? .null]
        switch await ask("purchaseController/purchase", params) {
        case .lost: return .cancelled
        case .refused(let message): return .failed(message)
        case .answered(let reply): return Self.decodePurchase(reply)
        }
    }

    func restorePurchases() async -> RestorationResult {
        switch await ask("purchaseController/restorePurchases", [:]) {
        case .lost: return .failed("The client went away before the restore finished.")
        case .refused(let message): return .failed(message)
        case .answered(let reply): return Self.decodeRestoration(reply)
        }
    }

    private enum Reply {
        case answered(JSONValue)
        /// The client answered with an error.
        case refused(String)
        /// The connection closed, the bridge is shutting down, or the request was cancelled.
        case lost
    }

    private func ask(_ method: String, _ params: JSONValue) async -> Reply {
        guard let connection = host.connection else { return .lost }
        do {
            return .answered(try await connection.sendRequest(method, params: params, timeout: ClientHost.backstop))
        } catch {
            if error.code == RPCError.requestCancelled.code || error.kind == RPCError.connectionClosed.kind { return .lost }
            return .refused("The client answered \(method) with an error: \(error.message)")
        }
    }

    /// `{type: "purchased" | "cancelled" | "pending" | "restored" | "failed", error?}`.
    static func decodePurchase(_ reply: JSONValue) -> PurchaseResult {
        guard case .object(let fields) = reply, case .string(let type)? = fields["type"] else {
            return .failed("The client's purchase result does not decode: expected an object {type, error?} with a string type, got \(reply.typeName).")
        }
        switch type {
        case "purchased": return .purchased
        case "cancelled": return .cancelled
        case "pending": return .pending
        case "restored": return .restored
        case "failed": return .failed(Self.message(fields["error"]) ?? "The purchase failed.")
        default:
            return .failed("The client's purchase result does not decode: type \"\(type)\" is not purchased, cancelled, pending, restored or failed.")
        }
    }

    /// `{type: "restored" | "failed", error?}`.
    static func decodeRestoration(_ reply: JSONValue) -> RestorationResult {
        guard case .object(let fields) = reply, case .string(let type)? = fields["type"] else {
            return .failed("The client's restore result does not decode: expected an object {type, error?} with a string type, got \(reply.typeName).")
        }
        switch type {
        case "restored": return .restored
        case "failed": return .failed(Self.message(fields["error"]))
        default: return .failed("The client's restore result does not decode: type \"\(type)\" is not restored or failed.")
        }
    }

    /// `error` as a string, or an object's `message`.
    private static func message(_ error: JSONValue?) -> String? {
        switch error {
        case .string(let text)?: return text
        case .object(let fields)?: return fields["message"]?.stringValue
        default: return nil
        }
    }
}

extension PurchaseResult {
    var wireValue: JSONValue {
        switch self {
        case .purchased: ["type": "purchased", "error": .null]
        case .cancelled: ["type": "cancelled", "error": .null]
        case .pending: ["type": "pending", "error": .null]
        case .restored: ["type": "restored", "error": .null]
        case .failed(let message): ["type": "failed", "error": .string(message)]
        case .timedOut: ["type": "timedOut", "error": "The purchase controller did not answer within the purchase deadline."]
        }
    }
}

extension RestorationResult {
    var wireValue: JSONValue {
        switch self {
        case .restored: ["type": "restored", "error": .null]
        case .failed(let message): ["type": "failed", "error": message.map(JSONValue.string) ?? .null]
        }
    }
}
