import Foundation
import JSONRPC
import SuperwallCore

// Entitlements, customer info and products as the protocol spells them: camelCase keys and
// enum values, ISO-8601 dates, explicit nulls.

extension Entitlement.Store {
    static let byWireName = Dictionary(
        uniqueKeysWithValues: allCases.flatMap { [($0.wireName, $0), ($0.rawValue, $0)] }
    )
}

extension Entitlement {
    var wireValue: JSONValue { JSONValue(json) }

    /// `{id, type?, isActive?, productIds?, latestProductId?, store?, startsAt?, renewedAt?,
    /// expiresAt?, isLifetime?, willRenew?, state?, offerType?}`. As with SuperwallKit's
    /// `Entitlement(id:)`, one given by the host is active unless it says otherwise.
    init(wire params: Params) throws(RPCError) {
        let id = try params.string("id")
        guard !id.isEmpty else {
            throw RPCError.invalidParams(
                "\(params.path(of: "id")) must not be empty.",
                details: ["path": .string(params.path(of: "id"))]
            )
        }
        if let type = try params.optionalString("type"), type != "serviceLevel", type != "SERVICE_LEVEL" {
            throw RPCError.invalidParams(
                "\(params.path(of: "type")) must be \"serviceLevel\", the only entitlement type, not \"\(type)\".",
                details: ["path": .string(params.path(of: "type"))]
            )
        }
        self.init(
            id: id,
            isActive: try params.optionalBool("isActive") ?? true,
            productIds: Set(try params.optionalStrings("productIds") ?? []),
            latestProductId: try params.optionalString("latestProductId"),
            store: try params.optionalChoice("store", Entitlement.Store.byWireName) ?? .appStore,
            startsAt: try params.optionalDate("startsAt"),
            renewedAt: try params.optionalDate("renewedAt"),
            expiresAt: try params.optionalDate("expiresAt"),
            isLifetime: try params.optionalBool("isLifetime"),
            willRenew: try params.optionalBool("willRenew"),
            state: try params.optionalChoice("state", Entitlement.State.byWireName),
            offerType: try params.optionalChoice("offerType", Entitlement.OfferType.byWireName)
        )
    }
}

extension Entitlement.OfferType {
    static let byWireName = Dictionary(uniqueKeysWithValues: allCases.map { ($0.rawValue, $0) })
}

extension Entitlement.State {
    static let byWireName = Dictionary(uniqueKeysWithValues: allCases.map { ($0.rawValue, $0) })
}

extension EntitlementsInfo {
    var wireValue: JSONValue {
        [
            "active": .array(active.map(\.wireValue)), "inactive": .array(inactive.map(\.wireValue)),
            "all": .array(all.map(\.wireValue)), "web": .array(web.map(\.wireValue)),
        ]
    }
}

extension CustomerInfo {
    var wireValue: JSONValue { JSONValue(json) }
}

extension StoreProductDetails {
    var wireValue: JSONValue {
        [
            "productIdentifier": .string(productIdentifier), "price": price.map(JSONValue.double) ?? .null,
            "currencyCode": .optional(currencyCode), "localizedPrice": .optional(localizedPrice),
            "period": period?.wireValue ?? .null,
            "trialPeriodDays": trialPeriodDays.map { .int(Int64($0)) } ?? .null, "isConsumable": .bool(isConsumable),
            "priceLocale": .optional(priceLocale), "subscriptionGroupId": .optional(subscriptionGroupId),
            "isEligibleForIntroOffer": isEligibleForIntroOffer.map(JSONValue.bool) ?? .null,
            "introductoryOffer": introductoryOffer.map { offer in
                [
                    "price": .double(NSDecimalNumber(decimal: offer.price).doubleValue),
                    "period": offer.period.wireValue,
                    "periodCount": .int(Int64(offer.periodCount)), "paymentMode": .string(offer.paymentMode.rawValue),
                ]
            } ?? .null,
            "playOffers": .array(playOffers.map(\.wireValue)),
            "chosenOfferId": chosenPlayOffer.map { .optional($0.offerId) } ?? .null,
        ]
    }

    /// `{productIdentifier, price?, currencyCode?, localizedPrice?, period?: {unit, count?},
    /// trialPeriodDays?, isConsumable?, priceLocale?, introductoryOffer?, subscriptionGroupId?,
    /// isEligibleForIntroOffer?, playOffers?}`.
    init(wire params: Params) throws(RPCError) {
        let identifier = try params.string("productIdentifier")
        let period = try params.optionalObject("period").map { fields throws(RPCError) in try Period(wire: fields) }
        var offer: IntroductoryOffer?
        if let fields = try params.optionalObject("introductoryOffer") {
            let modes = Dictionary(
                uniqueKeysWithValues: IntroductoryOffer.PaymentMode.allCases.map { ($0.rawValue, $0) }
            )
            guard let mode = try fields.optionalChoice("paymentMode", modes) else {
                throw RPCError.invalidParams(
                    "\(fields.path(of: "paymentMode")) is required and must be freeTrial, payAsYouGo or payUpFront.",
                    details: ["path": .string(fields.path(of: "paymentMode"))]
                )
            }
            guard let periodFields = try fields.optionalObject("period") else {
                throw RPCError.invalidParams(
                    "\(fields.path(of: "period")) is required.",
                    details: ["path": .string(fields.path(of: "period"))]
                )
            }
            let count = try fields.optionalInt("periodCount") ?? 1
            let price = try fields.optionalDouble("price") ?? 0
            guard count > 0, price >= 0, price.isFinite else {
                throw RPCError.invalidParams(
                    "\(fields.path(of: "periodCount")) must be positive and the price not negative.",
                    details: ["path": .string(fields.path(of: "periodCount"))]
                )
            }
            offer = IntroductoryOffer(
                price: Decimal(string: String(price), locale: Locale(identifier: "en_US_POSIX")) ?? 0,
                period: try Period(wire: periodFields),
                periodCount: count,
                paymentMode: mode
            )
        }
        let trialDays = try params.optionalInt("trialPeriodDays")
        if let trialDays, trialDays < 0 {
            throw RPCError.invalidParams(
                "\(params.path(of: "trialPeriodDays")) must not be negative.",
                details: ["path": .string(params.path(of: "trialPeriodDays"))]
            )
        }
        self.init(
            productIdentifier: identifier,
            price: try params.optionalDouble("price"),
            currencyCode: try params.optionalString("currencyCode"),
            localizedPrice: try params.optionalString("localizedPrice"),
            period: period,
            trialPeriodDays: trialDays,
            isConsumable: try params.optionalBool("isConsumable") ?? false,
            priceLocale: try params.optionalString("priceLocale"),
            introductoryOffer: offer,
            subscriptionGroupId: try params.optionalString("subscriptionGroupId"),
            isEligibleForIntroOffer: try params.optionalBool("isEligibleForIntroOffer"),
            playOffers: try PlayOfferDetails.list(params)
        )
    }

    /// A list of them under `key`, e.g. `configure`'s `storeProducts`.
    static func list(_ params: Params?, key: String) throws(RPCError) -> [StoreProductDetails] {
        var details: [StoreProductDetails] = []
        for element in try params?.optionalObjects(key) ?? [] { details.append(try StoreProductDetails(wire: element)) }
        return details
    }
}

extension PlayOfferDetails {
    var wireValue: JSONValue {
        [
            "basePlanId": .string(basePlanId), "offerId": .optional(offerId),
            "offerTags": .array(tags.map(JSONValue.string)),
            "pricingPhases": .array(
                pricingPhases.map { phase in
                    [
                        "price": .double(Double(phase.price.description) ?? 0),
                        "period": phase.period.wireValue, "cycles": .int(Int64(phase.cycles)),
                    ]
                }
            ),
        ]
    }

    /// `playOffers: [{basePlanId, offerId?, offerTags?, pricingPhases: [{price, period, cycles?}]}]`,
    /// at most `ClientLimits.playOffers`, each with one to `ClientLimits.pricingPhases` phases.
    static func list(_ params: Params) throws(RPCError) -> [PlayOfferDetails] {
        let elements = try params.optionalObjects("playOffers") ?? []
        try ClientLimits.check(elements.count, at: params.path(of: "playOffers"), within: ClientLimits.playOffers)
        var offers: [PlayOfferDetails] = []
        for fields in elements {
            let phases = try fields.optionalObjects("pricingPhases") ?? []
            guard (1...ClientLimits.pricingPhases).contains(phases.count) else {
                throw RPCError.invalidParams(
                    "\(fields.path(of: "pricingPhases")) must list 1 to \(ClientLimits.pricingPhases) phases, the recurring one last.",
                    details: ["path": .string(fields.path(of: "pricingPhases"))]
                )
            }
            var pricing: [PricingPhase] = []
            for phase in phases {
                guard let periodFields = try phase.optionalObject("period") else {
                    throw RPCError.invalidParams(
                        "\(phase.path(of: "period")) is required.",
                        details: ["path": .string(phase.path(of: "period"))]
                    )
                }
                let price = try phase.optionalDouble("price") ?? 0
                let cycles = try phase.optionalInt("cycles") ?? 1
                guard price >= 0, price.isFinite, cycles > 0 else {
                    throw RPCError.invalidParams(
                        "\(phase.path(of: "price")) must not be negative, and cycles positive.",
                        details: ["path": .string(phase.path(of: "price"))]
                    )
                }
                pricing.append(
                    PricingPhase(
                        price: Decimal(string: String(price), locale: Locale(identifier: "en_US_POSIX")) ?? 0,
                        period: try StoreProductDetails.Period(wire: periodFields),
                        cycles: cycles
                    )
                )
            }
            offers.append(
                PlayOfferDetails(
                    basePlanId: try fields.string("basePlanId"),
                    offerId: try fields.optionalString("offerId"),
                    tags: try fields.optionalStrings("offerTags") ?? [],
                    pricingPhases: pricing
                )
            )
        }
        return offers
    }
}

extension StoreProductDetails.Period {
    var wireValue: JSONValue { ["unit": .string(unit.rawValue), "count": .int(Int64(count))] }

    /// `{unit: day | week | month | year, count?}`.
    init(wire fields: Params) throws(RPCError) {
        let units = Dictionary(uniqueKeysWithValues: Unit.allCases.map { ($0.rawValue, $0) })
        guard let unit = try fields.optionalChoice("unit", units) else {
            throw RPCError.invalidParams(
                "\(fields.path(of: "unit")) is required and must be day, week, month or year.",
                details: ["path": .string(fields.path(of: "unit"))]
            )
        }
        let count = try fields.optionalInt("count") ?? 1
        guard count > 0 else {
            throw RPCError.invalidParams(
                "\(fields.path(of: "count")) must be a positive integer.",
                details: ["path": .string(fields.path(of: "count"))]
            )
        }
        self.init(unit: unit, count: count)
    }
}

extension TransactionReport {
    /// A `purchased` reply's optional `transaction: {transactionId?, purchaseDate?,
    /// expirationDate?, willRenew?, offerType?, store?}`.
    init(wire params: Params) throws(RPCError) {
        self.init(
            transactionId: try params.optionalString("transactionId"),
            purchaseDate: try params.optionalDate("purchaseDate"),
            expirationDate: try params.optionalDate("expirationDate"),
            willRenew: try params.optionalBool("willRenew"),
            offerType: try params.optionalChoice("offerType", Entitlement.OfferType.byWireName),
            store: try params.optionalChoice("store", Entitlement.Store.byWireName)
        )
    }
}
