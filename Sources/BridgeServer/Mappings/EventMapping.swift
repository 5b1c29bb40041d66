import JSONRPC
import SuperwallCore

extension TrackedEvent {
    /// `delegate/handleSuperwallEvent`'s `event`: the name, the wrappers' name for it (`event`,
    /// SuperwallKit's case name), id and time, and the typed fields
    /// of SuperwallKit's `SuperwallEvent` case where it has them (what wrappers unpack from
    /// its associated values): `paywallInfo` and `product` objects, and named fields taken
    /// from the params.
    var typedWireValue: JSONValue {
        var fields: JSONObject = [
            "name": .string(name), "id": .string(id.text), "createdAt": .string(ISO8601.string(from: createdAt)),
        ]
        if let caseName { fields["event"] = .string(caseName) }
        if let info = subject.paywallInfo { fields["paywallInfo"] = info.wireValue }
        if let product = subject.product { fields["product"] = product.wireValue }
        for (field, parameter) in Self.typedFields[name] ?? [] {
            if let value = superwallParameters[parameter] { fields[field] = JSONValue(value) }
        }
        switch name {
        case "user_attributes":
            if let written = customParametersText?.texts {
                fields["attributes"] = .encoded(
                    EncodedJSON(unchecked: written.sortedObjectText(eventParametersOnly: true))
                )
            } else {
                fields["attributes"] = .object(JSONValue.sortedObject(customParameters))
            }
        case "deepLink_open": fields["url"] = superwallParameters["url"].map { JSONValue($0) } ?? .null
        case "survey_response":
            let surveyId = superwallParameters["survey_id"]?.stringValue
            fields["survey"] = subject.paywallInfo?.surveys.first { $0.id == surveyId }?.wireValue ?? .null
            fields["selectedOption"] = [
                "id": superwallParameters["survey_selected_option_id"].map { JSONValue($0) } ?? .null,
                "title": customParameters["survey_selected_option_title"].map { JSONValue($0) } ?? .null,
            ]
            fields["customResponse"] = customParameters["survey_custom_response"].map { JSONValue($0) } ?? .null
        default: break
        }
        return .object(fields)
    }

    /// Field name → SDK parameter, by event, as wrappers name SuperwallKit's associated values.
    private static let typedFields: [String: [(String, String)]] = [
        "trigger_fire": [("placementName", "trigger_name"), ("result", "result")],
        "paywallPresentationRequest": [
            ("status", "status"), ("reason", "status_reason"), ("placementName", "source_event_name"),
        ],
        "subscriptionStatus_didChange": [("status", "status")],
        "transaction_complete": [("transactionType", "transaction_type")],
        "transaction_fail": [("error", "message")],
        "restore_fail": [("error", "error_message")],
        "config_fail": [("error", "error_message")],
        "redemption_fail": [("error", "error_message")],
        "config_refresh": [("buildId", "config_build_id"), ("cacheStatus", "cache_status")],
    ]
}
