import Foundation
import JSONRPC
import SuperwallCore

// Entitlements, customer info and products as the protocol spells them: camelCase keys and
// enum values, ISO-8601 dates, explicit nulls.

extension Entitlement.Store {
    static let byWireName = Dictionary(uniqueKeysWithValues: allCases.flatMap { [($0.wireName, $0), ($0.rawValue, $0)] })
}

extension Entitlement {
    var wireValue: JSONValue { JSONValue(json) }

    /// `{id, type?, isActive?, productIds?, latestProductId?, store?, startsAt?, renewedAt?,
    /// expiresAt?, isLifetime?, willRenew?, state?, offerType?}`. As with SuperwallKit's
    /// `Entitlement(id:)`, one given by the host is active unless it says otherwise.
    init(wire params: Params) throws(RPCError) {
        let id = try params.string("id")
        guard !id.isEmpty else {
            throw RPCError.invalidParams("\(params.path(of: "id")) must not be empty.", details: ["path": .string(params.path(of: "id"))])
        }
        if let type = try params.optionalString("type"), type != "serviceLevel", type != "SERVICE_LEVEL" {
            throw RPCError.invalidParams("\(params.path(of: "type")) must be \"serviceLevel\", the only entitlement type, not \"\(type)\".",
                                         details: ["path": .string(params.path(of: "type"))])
        }
        self.init(
            id: id, isActive: try params.optionalBool("isActive") ?? true, productIds: Set(try params.optionalStrings("productIds") ?? []),
            latestProductId: try params.optionalString("latestProductId"),
            store: try params.optionalChoice("store", Entitlement.Store.byWireName) ?? .appStore,
            startsAt: try params.optionalDate("startsAt"), renewedAt: try params.optionalDate("renewedAt"),
            expiresAt: try params.optionalDate("expiresAt"), isLifetime: try params.optionalBool("isLifetime"),
            willRenew: try params.optionalBool("willRenew"),
            state: try params.optionalChoice("state", Entitlement.State.byWireName),
            offerType: try params.optionalChoice("offerType", Entitlement.OfferType.byWireName))
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
        ["active": .array(active.map(\.wireValue)), "inactive": .array(inactive.map(\.wireValue)),
         "all": .array(all.map(\.wireValue)), "web": .array(web.map(\.wireValue))]
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
            "period": period.map { ["unit": .string($0.unit.rawValue), "count": .int(Int64($0.count))] } ?? .null,
            "trialPeriodDays": trialPeriodDays.map { .int(Int64($0)) } ?? .null, "isConsumable": .bool(isConsumable),
        ]
    }

    /// `{productIdentifier, price?, currencyCode?, localizedPrice?, period?: {unit, count?},
    /// trialPeriodDays?, isConsumable?}`.
    init(wire params: Params) throws(RPCError) {
        let identifier = try params.string("productIdentifier")
        var period: Period?
        if let fields = try params.optionalObject("period") {
            let units = Dictionary(uniqueKeysWithValues: Period.Unit.allCases.map { ($0.rawValue, $0) })
            guard let unit = try fields.optionalChoice("unit", units) else {
                throw RPCError.invalidParams("\(fields.path(of: "unit")) is required and must be day, week, month or year.",
                                             details: ["path": .string(fields.path(of: "unit"))])
            }
            let count = try fields.optionalInt("count") ?? 1
            guard count > 0 else {
                throw RPCError.invalidParams("\(fields.path(of: "count")) must be a positive integer.", details: ["path": .string(fields.path(of: "count"))])
            }
            period = Period(unit: unit, count: count)
        }
        let trialDays = try params.optionalInt("trialPeriodDays")
        if let trialDays, trialDays < 0 {
            throw RPCError.invalidParams("\(params.path(of: "trialPeriodDays")) must not be negative.",
                                         details: ["path": .string(params.path(of: "trialPeriodDays"))])
        }
        self.init(
            productIdentifier: identifier, price: try params.optionalDouble("price"), currencyCode: try params.optionalString("currencyCode"),
            localizedPrice: try params.optionalString("localizedPrice"), period: period, trialPeriodDays: trialDays,
            isConsumable: try params.optionalBool("isConsumable") ?? false)
    }

    /// A list of them under `key`, e.g. `configure`'s `storeProducts`.
    static func list(_ params: Params?, key: String) throws(RPCError) -> [StoreProductDetails] {
        var details: [StoreProductDetails] = []
        for element in try params?.optionalObjects(key) ?? [] { details.append(try StoreProductDetails(wire: element)) }
        return details
    }
}

extension TransactionReport {
    /// A `purchased` reply's optional `transaction: {transactionId?, purchaseDate?,
    /// expirationDate?, willRenew?, offerType?, store?}`.
    init(wire params: Params) throws(RPCError) {
        self.init(
            transactionId: try params.optionalString("transactionId"), purchaseDate: try params.optionalDate("purchaseDate"),
            expirationDate: try params.optionalDate("expirationDate"), willRenew: try params.optionalBool("willRenew"),
            offerType: try params.optionalChoice("offerType", Entitlement.OfferType.byWireName),
            store: try params.optionalChoice("store", Entitlement.Store.byWireName))
    }
}
