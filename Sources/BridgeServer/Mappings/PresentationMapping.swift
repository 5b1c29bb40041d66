import Foundation
import JSONRPC
import SuperwallCore

// The presentation models as the protocol spells them: camelCase keys, `type`
// discriminators, lowercase enum values, explicit nulls.

extension JSONValue {
    static func optional(_ text: String?) -> JSONValue { text.map(JSONValue.string) ?? .null }
}

extension Variant {
    var wireValue: JSONValue {
        ["id": .string(id), "type": .string(camelCase(kind.rawValue)), "paywallId": .optional(paywallIdentifier)]
    }
}

extension Experiment {
    var wireValue: JSONValue {
        ["id": .string(id), "groupId": .string(groupId), "variant": variant.wireValue]
    }
}

extension Store.Assignment {
    var wireValue: JSONValue {
        ["experimentId": .string(experimentId), "variant": variant.wireValue, "isSentToServer": .bool(isSentToServer)]
    }
}

extension Product {
    /// With a Google Play product's parts under `playStore`: its product id, base plan and offer.
    var wireValue: JSONValue {
        var value: JSONObject = [
            "id": .string(id), "referenceName": .optional(referenceName),
            "store": .string(camelCase(storeProduct.store)),
            "productIdentifier": .string(storeProduct.productIdentifier),
            "entitlements": .array(entitlements.sorted { $0.id < $1.id }.map(\.wireValue)),
            "storeDetails": storeDetails?.wireValue ?? .null,
        ]
        if case .playStore(let product, let basePlan, let offer) = storeProduct {
            value["playStore"] = [
                "productId": .string(product), "basePlanId": .string(basePlan), "offer": offer.wireValue,
            ]
        }
        return .object(value)
    }
}

extension PresentationStyle {
    var wireValue: JSONValue {
        [
            "type": .string(kind.wireName), "height": height.map(JSONValue.double) ?? .null,
            "width": width.map(JSONValue.double) ?? .null,
            "cornerRadius": cornerRadius.map(JSONValue.double) ?? .null,
        ]
    }
}

extension Survey {
    var wireValue: JSONValue {
        [
            "id": .string(id), "assignmentKey": .string(assignmentKey), "title": .string(title),
            "message": .string(message),
            "options": .array(options.map { ["id": .string($0.id), "title": .string($0.title)] }),
            "presentationCondition": .string(camelCase(presentationCondition.rawValue)),
            "presentationProbability": .double(presentationProbability),
            "includeOtherOption": .bool(includeOtherOption),
            "includeCloseOption": .bool(includeCloseOption),
        ]
    }
}

extension PaywallInfo {
    /// The seconds from `start` to `end`, null unless both are known.
    private static func seconds(from start: Date?, to end: Date?) -> JSONValue {
        guard let start, let end else { return .null }
        return .double(end.timeIntervalSince(start))
    }

    var wireValue: JSONValue {
        [
            "identifier": .string(identifier), "name": .string(name), "databaseId": .string(databaseId),
            "url": .string(url),
            "cacheKey": .string(cacheKey), "buildId": .string(buildId), "experiment": experiment?.wireValue ?? .null,
            "products": .array(products.map(\.wireValue)), "productIds": .array(productIds.map(JSONValue.string)),
            "presentedByPlacementWithName": .optional(presentedByPlacementWithName),
            "presentedByPlacementWithId": .optional(presentedByPlacementWithId),
            "presentedByPlacementAt": .optional(presentedByPlacementAt.map(ISO8601.string(from:))),
            // The wrappers' older names (Flutter's, React Native's `presentedByEventWithName`).
            "presentedByEventWithName": .optional(presentedByPlacementWithName),
            "presentedByEventWithId": .optional(presentedByPlacementWithId),
            "presentedByEventAt": .optional(presentedByPlacementAt.map(ISO8601.string(from:))),
            "presentedBy": .string(presentedBy), "presentationSourceType": .optional(presentationSourceType),
            "isFreeTrialAvailable": .bool(isFreeTrialAvailable),
            "featureGatingBehavior": .string(camelCase(featureGating.rawValue)),
            "closeReason": .string(closeReason.rawValue),
            "localNotifications": .array(
                localNotifications.map {
                    [
                        "type": "trialStarted", "title": .string($0.title), "subtitle": .optional($0.subtitle),
                        "body": .string($0.body),
                        "delayMs": .int(Int64($0.delayMs)),
                    ]
                }
            ),
            "computedPropertyRequests": .array(
                computedPropertyRequests.map {
                    ["type": .string($0.kind.functionName), "placementName": .string($0.placementName)]
                }
            ),
            "surveys": .array(surveys.map(\.wireValue)),
            "presentation": ["style": presentationStyle.wireValue, "delayMs": .int(Int64(presentationDelayMs))],
            "isScrollEnabled": .bool(isScrollEnabled), "presentationId": .string(presentationId),
            "introOfferEligibility": .string(introOfferEligibility.rawValue),
            "paywalljsVersion": .optional(paywalljsVersion),
            "state": .object(JSONValue.sortedObject(state)),
            "loadTimes": [
                "responseStart": .optional(loadTimes.responseStart.map(ISO8601.string(from:))),
                "responseComplete": .optional(loadTimes.responseComplete.map(ISO8601.string(from:))),
                "webViewStart": .optional(loadTimes.webViewStart.map(ISO8601.string(from:))),
                "webViewComplete": .optional(loadTimes.webViewComplete.map(ISO8601.string(from:))),
            ],
            // The wrappers' load durations (`responseLoadDuration`, `webViewLoadDuration`), in seconds.
            "responseLoadDuration": Self.seconds(from: loadTimes.responseStart, to: loadTimes.responseComplete),
            "webViewLoadDuration": Self.seconds(from: loadTimes.webViewStart, to: loadTimes.webViewComplete),
        ]
    }
}

extension PaywallSkipReason {
    var wireValue: JSONValue {
        switch self {
        case .holdout(let experiment): ["type": "holdout", "experiment": experiment.wireValue]
        case .noAudienceMatch: Self.noAudienceMatchValue
        case .placementNotFound: Self.placementNotFoundValue
        }
    }

    // Built once: most `register`s end in one of these.
    private static let noAudienceMatchValue: JSONValue = ["type": "noAudienceMatch"]
    private static let placementNotFoundValue: JSONValue = ["type": "placementNotFound"]
}

extension PaywallResult {
    var wireValue: JSONValue {
        switch self {
        case .purchased(let productId): ["type": "purchased", "productId": .string(productId)]
        case .declined: ["type": "declined"]
        case .restored: ["type": "restored"]
        }
    }
}

extension PresentationError {
    /// SuperwallKit's number as the error code, its name as `data.kind`.
    var rpcError: RPCError {
        RPCError(code: code.rawValue, message: message, kind: code.kind)
    }
}

extension PresentationOutcome {
    /// `register`'s answer.
    var wireValue: JSONValue {
        // Most `register`s are skipped for one of two reasons: their answers are built once.
        if case .skipped(let reason) = ending, featureGranted {
            switch reason {
            case .noAudienceMatch: return Self.skippedWithNoAudienceMatch
            case .placementNotFound: return Self.skippedWithPlacementNotFound
            case .holdout: break
            }
        }
        return Self.wireValue(ending, featureGranted: featureGranted)
    }

    private static let skippedWithNoAudienceMatch = wireValue(.skipped(.noAudienceMatch), featureGranted: true)
    private static let skippedWithPlacementNotFound = wireValue(.skipped(.placementNotFound), featureGranted: true)

    private static func wireValue(_ ending: Ending, featureGranted: Bool) -> JSONValue {
        var result: JSONObject = [
            "featureGranted": .bool(featureGranted), "skipReason": .null, "paywallInfo": .null, "paywallResult": .null,
            "error": .null,
        ]
        switch ending {
        case .skipped(let reason):
            result["outcome"] = "skipped"
            result["skipReason"] = reason.wireValue
        case .dismissed(let info, let paywallResult):
            result["outcome"] = "dismissed"
            result["paywallInfo"] = info.wireValue
            result["paywallResult"] = paywallResult.wireValue
        case .failed(let error):
            result["outcome"] = "error"
            result["error"] = error.rpcError.jsonValue
        }
        return .object(result)
    }
}

extension PresentationResult {
    var wireValue: JSONValue {
        switch self {
        case .placementNotFound: ["type": "placementNotFound", "experiment": .null]
        case .noAudienceMatch: ["type": "noAudienceMatch", "experiment": .null]
        case .paywall(let experiment): ["type": "paywall", "experiment": experiment.wireValue]
        case .holdout(let experiment): ["type": "holdout", "experiment": experiment.wireValue]
        case .paywallNotAvailable: ["type": "paywallNotAvailable", "experiment": .null]
        }
    }
}

extension PaywallPresentation {
    /// `paywall/present`'s params, and `getPaywall`'s answer.
    var wireValue: JSONValue {
        [
            "sessionId": .string(sessionId),
            "paywall": [
                "info": info.wireValue, "url": .string(paywall.url),
                "presentationStyle": paywall.presentationStyle.wireValue,
                "products": .array(paywall.products.map(\.wireValue)),
                "page": page.wireValue(presentationDelayMs: paywall.presentationDelayMs),
            ],
        ]
    }
}

extension PageLoadTarget {
    var wireValue: JSONValue {
        ["url": .string(url), "timeoutMs": timeoutMs.map { .int(Int64($0)) } ?? .null]
    }
}

extension PageBootstrap {
    /// `paywall.page`: what the host needs to load the page (protocol/README.md, "The paywall page").
    func wireValue(presentationDelayMs: Int) -> JSONValue {
        [
            "load": load?.wireValue ?? .null, "documentStartScript": .string(documentStartScript),
            "documentEndStyle": .string(documentEndStyle),
            "webView": [
                "transparentBackground": true, "allowsZoom": false, "inlineMediaPlayback": true,
                "mediaRequiresUserGesture": false,
                "scrollEnabled": .bool(scrollEnabled), "textInteraction": .bool(textInteraction),
                "allowsSubframeNavigation": .bool(allowsSubframeNavigation), "prefersCache": .bool(prefersCache),
            ],
            "backgroundColorHex": .string(backgroundColorHex),
            "darkBackgroundColorHex": .optional(darkBackgroundColorHex),
            "loadingControlsAfterMs": .int(Int64(loadingControlsAfterMs)),
            "presentationDelayMs": .int(Int64(presentationDelayMs)),
        ]
    }
}

extension PageLoadInstruction {
    /// `paywall/pageLoad`'s answer: `{action, url?, timeoutMs?}`.
    var wireValue: JSONValue {
        switch self {
        case .wait: ["action": "wait"]
        case .reload: ["action": "reload"]
        case .close: ["action": "close"]
        case .load(let target):
            [
                "action": "load", "url": .string(target.url),
                "timeoutMs": target.timeoutMs.map { .int(Int64($0)) } ?? .null,
            ]
        }
    }
}

extension SubscriptionStatus {
    var wireValue: JSONValue {
        switch resolved {
        case .unknown: ["type": "unknown"]
        case .inactive: ["type": "inactive"]
        case .active(let entitlements):
            ["type": "active", "entitlements": .array(entitlements.sorted { $0.id < $1.id }.map(\.wireValue))]
        }
    }

    /// `{type: "unknown" | "inactive"}` or `{type: "active", entitlements: [Entitlement]}`; also
    /// the wrappers' own shapes, so that a wrapper passes its users' value through: the name
    /// under `status` and in capitals (React Native's and Expo's `{status: "ACTIVE",
    /// entitlements}`), and entitlements as their ids (Android's `setSubscriptionStatus("pro")`).
    init(wire params: Params) throws(RPCError) {
        let key = params.has("type") || !params.has("status") ? "type" : "status"
        try self.init(named: try params.string(key), at: params.path(of: key), entitlements: params)
    }

    /// The status `name` (any case) names, its entitlements read from `params.entitlements`.
    init(named name: String, at path: String, entitlements params: Params) throws(RPCError) {
        switch name.lowercased() {
        case "unknown": self = .unknown
        case "inactive": self = .inactive
        case "active":
            let elements = try params.optionalArray("entitlements") ?? []
            guard elements.count <= ClientLimits.entitlementCount else {
                throw ClientLimits.refuse(
                    params.path(of: "entitlements"),
                    "holds \(elements.count) entitlements; the limit is \(ClientLimits.entitlementCount).",
                    limit: ClientLimits.entitlementCount
                )
            }
            var entitlements: Set<Entitlement> = []
            for (index, element) in elements.enumerated() {
                let elementPath = "\(params.path(of: "entitlements"))[\(index)]"
                if case .string(let id) = element {
                    entitlements.insert(try Entitlement(wire: Params(["id": .string(id)], path: elementPath)))
                } else {
                    entitlements.insert(try Entitlement(wire: Params(element, path: elementPath)))
                }
            }
            self = .active(entitlements)
        case _:
            throw RPCError.invalidParams(
                "\(path) must be \"unknown\", \"inactive\" or \"active\", not \"\(name.prefix(64))\".",
                details: ["path": .string(path)]
            )
        }
    }
}

extension PlayOffer {
    /// `{type: "automatic" | "noOffer" | "specified", offerId?}`.
    var wireValue: JSONValue {
        switch self {
        case .automatic: ["type": "automatic"]
        case .noOffer: ["type": "noOffer"]
        case .specified(let id): ["type": "specified", "offerId": .string(id)]
        }
    }
}
