import JSONRPC
import SuperwallCore

/// `paywall/action`'s `action`: `{type, ...}` as the host forwards what the user did.
enum PaywallActionRequest {
    static func action(_ fields: Params) throws(RPCError) -> PaywallAction {
        switch try fields.string("type") {
        case "purchase": return .purchase(productId: try fields.string("productId"))
        case "restore": return .restore
        case "close": return .close
        case "custom": return .custom(name: try fields.string("name"))
        case "customPlacement":
            return .customPlacement(
                name: try ClientLimits.placementName(fields, "name"),
                params: [String: JSON](try fields.optionalJSONObject("params") ?? [:])
            )
        case "openUrl": return .openURL(try fields.string("url"))
        case "openDeepLink": return .openDeepLink(try fields.string("url"))
        case "setUserAttributes":
            return .setUserAttributes(attributeChanges(try ClientLimits.checkedAttributes(fields)))
        case "requestCallback":
            let behavior = try fields.optionalString("behavior") ?? "blocking"
            guard ["blocking", "nonBlocking", "non-blocking"].contains(behavior) else {
                throw RPCError.invalidParams(
                    "\(fields.path(of: "behavior")) must be \"blocking\" or \"nonBlocking\".",
                    details: ["path": .string(fields.path(of: "behavior"))]
                )
            }
            return .requestCallback(
                CustomCallback(
                    name: try fields.string("name"),
                    variables: [String: JSON](try fields.optionalJSONObject("variables") ?? [:]),
                    isBlocking: behavior == "blocking"
                )
            )
        case "pageView":
            return .pageView(try pageView(fields))
        case let other:
            throw RPCError.invalidParams(
                "\(fields.path(of: "type")) must be one of purchase, restore, close, custom, customPlacement, openUrl, openDeepLink, setUserAttributes, requestCallback, pageView; not \"\(other)\".",
                details: ["path": .string(fields.path(of: "type"))]
            )
        }
    }

    /// The page view's fields, renamed to `paywall_page_view`'s parameters.
    private static func pageView(_ fields: Params) throws(RPCError) -> [String: JSON] {
        var page: [String: JSON] = [
            "page_node_id": .string(try fields.string("pageNodeId")),
            "flow_position": .int(Int64(try fields.optionalInt("flowPosition") ?? 0)),
            "page_name": .string(try fields.optionalString("pageName") ?? ""),
            "navigation_node_id": .string(try fields.optionalString("navigationNodeId") ?? ""),
            "navigation_type": .string(try fields.optionalString("navigationType") ?? "entry"),
        ]
        if let previous = try fields.optionalString("previousPageNodeId") {
            page["previous_page_node_id"] = .string(previous)
        }
        if let position = try fields.optionalInt("previousFlowPosition") {
            page["previous_flow_position"] = .int(Int64(position))
        }
        if let milliseconds = try fields.optionalInt("timeOnPreviousPageMs") {
            page["time_on_previous_page_ms"] = .int(Int64(milliseconds))
        }
        return page
    }
}
