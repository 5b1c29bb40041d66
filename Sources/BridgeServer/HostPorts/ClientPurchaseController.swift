import JSONRPC
import SuperwallCore

/// Purchases made by the client: `purchaseController/purchase` and
/// `purchaseController/restorePurchases` requests.
///
/// Every way a reply can go wrong resolves, never hangs: an error reply or one that does not
/// decode is `failed` with the reason; a connection that closes (or a shutdown) is
/// `sessionEnded`, which tracks nothing: the user did not cancel. The core's deadline cancels the
/// request at the client (`$/cancelRequest`).
struct ClientPurchaseController: PurchaseController {
    let host: ClientHost

    func purchase(_ product: Product, paywallInfo: PaywallInfo?) async -> PurchaseAnswer {
        var params: JSONObject = ["product": product.wireValue, "paywallInfo": paywallInfo?.wireValue ?? .null]
        // Superwall-Android's `purchase(activity, productDetails, basePlanId, offerId)`.
        if case .playStore(_, let basePlan, let offer) = product.storeProduct {
            params["basePlanId"] = basePlan.isEmpty ? .null : .string(basePlan)
            // The offer chosen from the store's offers, when it described them (an automatic
            // offer's choice, a specified one it does not have falling back to the base plan).
            params["offerId"] = .optional(product.storeDetails?.chosenPlayOffer.map(\.offerId) ?? offer.offerId)
        }
        switch await host.ask("purchaseController/purchase", .object(params)) {
        case .lost: return PurchaseAnswer(.sessionEnded)
        case .refused(let message): return PurchaseAnswer(.failed(message))
        case .answered(let reply): return Self.decodePurchase(reply)
        }
    }

    func restorePurchases() async -> RestorationResult {
        switch await host.ask("purchaseController/restorePurchases", [:]) {
        case .lost: return .failed("The client went away before the restore finished.")
        case .refused(let message): return .failed(message)
        case .answered(let reply): return Self.decodeRestoration(reply)
        }
    }

    /// `{type: "purchased" | "cancelled" | "pending" | "restored" | "failed", error?,
    /// transaction?}`; `transaction` (`TransactionReport`) only means something with `purchased`.
    static func decodePurchase(_ reply: JSONValue) -> PurchaseAnswer {
        switch decode(reply, types: ["purchased", "cancelled", "pending", "restored", "failed"], of: "purchase") {
        case .malformed(let reason): return PurchaseAnswer(.failed(reason))
        case .result("purchased", _):
            guard let fields = reply["transaction"], fields != .null else { return PurchaseAnswer(.purchased) }
            do {
                return PurchaseAnswer(
                    .purchased,
                    transaction: try TransactionReport(wire: Params(fields, path: "result.transaction"))
                )
            } catch {
                return PurchaseAnswer(.failed("The client's purchase result does not decode: \(error.message)"))
            }
        case .result("cancelled", _): return PurchaseAnswer(.cancelled)
        case .result("pending", _): return PurchaseAnswer(.pending)
        case .result("restored", _): return PurchaseAnswer(.restored)
        case .result(_, let error): return PurchaseAnswer(.failed(error ?? "The purchase failed."))
        }
    }

    /// `{type: "restored" | "failed", error?}`.
    static func decodeRestoration(_ reply: JSONValue) -> RestorationResult {
        switch decode(reply, types: ["restored", "failed"], of: "restore") {
        case .malformed(let reason): return .failed(reason)
        case .result("restored", _): return .restored
        case .result(_, let error): return .failed(error)
        }
    }

    private enum Decoded {
        case result(type: String, error: String?)
        case malformed(String)
    }

    /// A reply's `type`, which must be one of `types`, and its `error`; else why it does not decode.
    private static func decode(_ reply: JSONValue, types: [String], of what: String) -> Decoded {
        guard case .object(let fields) = reply, case .string(let type)? = fields["type"] else {
            return .malformed(
                "The client's \(what) result does not decode: expected an object {type, error?} with a string type, got \(reply.typeName)."
            )
        }
        guard types.contains(type) else {
            return .malformed(
                "The client's \(what) result does not decode: type \"\(type)\" is not one of \(types.joined(separator: ", "))."
            )
        }
        return .result(type: type, error: message(fields["error"]))
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
        let (type, error): (String, String?) =
            switch self {
            case .purchased: ("purchased", nil)
            case .cancelled: ("cancelled", nil)
            case .pending: ("pending", nil)
            case .restored: ("restored", nil)
            case .failed(let message): ("failed", message)
            case .timedOut: ("timedOut", "The purchase controller did not answer within the purchase deadline.")
            case .sessionEnded: ("sessionEnded", "The session ended before the purchase controller answered.")
            }
        return ["type": .string(type), "error": error.map(JSONValue.string) ?? .null]
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

extension PaywallKept {
    var wireValue: JSONValue {
        switch self {
        case .webRestoreOffered(let locked):
            [
                "reason": "webRestoreOffered", "lockedEntitlements": .array(locked.map(JSONValue.string)),
                "message": .string(
                    "The restore left \(locked.joined(separator: ", ")) locked: the web restore was offered (paywall/alert) and the paywall stays, as in SuperwallKit."
                ),
            ]
        case .automaticallyDismissOff:
            [
                "reason": "automaticallyDismissOff",
                "message": "paywalls.automaticallyDismiss is false: the app dismisses the paywall.",
            ]
        }
    }
}
