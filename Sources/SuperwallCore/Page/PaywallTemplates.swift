import Foundation

/// What a paywall page is told after its `ping`: the TEMPLATES array of
/// products, template variables, free-trial prefix and experiment, as one `accept64` argument.
struct PaywallTemplates {
    /// The paywall with the host's store details on its products.
    var paywall: Paywall
    var userAttributes: [String: JSON]
    /// The device template and the paywall's computed properties.
    var device: [String: JSON]
    /// The presenting placement's audience-filter params; empty without a placement.
    var params: [String: JSON]
    var experiment: Experiment?
    var isFreeTrialAvailable: Bool
    /// The App Store product ids whose newest purchase is active (`isSubscribed`).
    var subscribedProductIds: Set<String>
    var deviceLocale: String
    var now: Date
    var timeZone: TimeZone = .current

    /// The four events, in order.
    var events: [JSON] {
        [productsEvent, variablesEvent, prefixEvent, experimentEvent]
    }

    /// The base64 of the JSON array of `events`: what the host passes to `accept64`.
    var accept64: String { PageEvents.accept64(events) }

    private var productsEvent: JSON {
        let named = paywall.products.compactMap { product -> JSON? in
            guard let name = product.referenceName else { return nil }
            return ["product": .string(name), "productId": .string(product.id)]
        }
        return ["event_name": "products", "products": .array(named)]
    }

    private var variablesEvent: JSON {
        var variables: [String: JSON] = [
            "user": .object(userAttributes), "device": .object(device), "params": .object(params),
            "primary": .object([:]), "secondary": .object([:]), "tertiary": .object([:]),
        ]
        var products: [JSON] = []
        for product in paywall.products {
            guard let name = product.referenceName, let attributes = attributes(of: product) else { continue }
            products.append(.object([name: .object(attributes)]))
            if ["primary", "secondary", "tertiary"].contains(name) { variables[name] = .object(attributes) }
        }
        variables["products"] = .array(products)
        return ["event_name": "template_variables", "variables": .object(variables)]
    }

    /// A product's variables, when its store resolved it: only App Store, custom and Google Play
    /// products do (Stripe and Paddle never get any), and only once the host described them.
    private func attributes(of product: Product) -> [String: JSON]? {
        guard let details = product.storeDetails, details.price != nil else { return nil }
        var attributes: [String: JSON] = [:]
        switch product.storeProduct {
        case .appStore:
            // SuperwallKit looks the purchase up by the paywall's product id, so a composite
            // (billing-plan) id never reads as subscribed.
            attributes["isSubscribed"] = .bool(subscribedProductIds.contains(product.id))
        case .custom, .playStore:
            break
        case .stripe, .paddle:
            return nil
        }
        for (key, value) in ProductAttributes(
            details: details,
            deviceLocale: deviceLocale,
            now: now,
            timeZone: timeZone
        ).strings {
            attributes[key] = .string(value)
        }
        return attributes
    }

    /// `prefix` is left out, not null, when there is no free trial.
    private var prefixEvent: JSON {
        isFreeTrialAvailable
            ? ["event_name": "template_substitutions_prefix", "prefix": "freeTrial"]
            : ["event_name": "template_substitutions_prefix"]
    }

    private var experimentEvent: JSON {
        [
            "event_name": "experiment", "experimentId": .string(experiment?.id ?? ""),
            "variantId": .string(experiment?.variant.id ?? ""), "campaignId": .string(experiment?.groupId ?? ""),
        ]
    }
}

/// The argument of `window.paywall.accept64(...)`: standard base64 of a JSON array's UTF-8,
/// keys in order, so that the same events always pass the same text (a replay compares it).
enum PageEvents {
    static func accept64(_ events: [JSON]) -> String {
        Data(JSON.array(events).sortedJSONText.utf8).base64EncodedString()
    }

    /// `callback_result`: the app's answer to the page's `request_callback` `requestId`.
    static func callbackResult(requestId: String, name: String, result: CustomCallbackResult) -> String {
        var event: [String: JSON] = [
            "event_name": "callback_result", "request_id": .string(requestId), "name": .string(name),
            "status": .string(result.status.rawValue),
        ]
        if let data = result.data { event["data"] = .object(data) }
        return accept64([.object(event)])
    }

    /// `event_tracking_behavior`: which events go out, for the page's own tracking.
    static func trackingBehavior(_ behavior: EventTrackingBehavior) -> String {
        accept64([["event_name": "event_tracking_behavior", "behavior": .string(behavior.rawValue)]])
    }

    /// A lifecycle event as SuperwallKit passes it (`pass(placement:)`): its name, the
    /// paywall's `paywall_id` and `paywall_identifier`, and `payload`, which wins on collision.
    static func lifecycle(_ name: String, paywall: Paywall, payload: [String: JSON] = [:]) -> String {
        var event: [String: JSON] = [
            "event_name": .string(name), "paywall_id": .string(paywall.id),
            "paywall_identifier": .string(paywall.identifier),
        ]
        event.merge(payload, uniquingKeysWith: { _, extra in extra })
        return accept64([.object(event)])
    }
}
