import Foundation
import Testing

@testable import SuperwallCore

/// The real static-config response from SuperwallKit's own decoding test.
func sampleJSON() throws -> [String: Any] {
    let url = try #require(
        Bundle.module.url(forResource: "superwall-config-sample", withExtension: "json", subdirectory: "Fixtures")
    )
    return try #require(try JSONSerialization.jsonObject(with: Data(contentsOf: url)) as? [String: Any])
}

/// The sample with one change applied, decoded.
func decodeSample(_ change: (inout [String: Any]) -> Void = { _ in }) throws -> Config {
    var json = try sampleJSON()
    change(&json)
    return try Config.decode(from: JSONSerialization.data(withJSONObject: json))
}

func decodingError(_ change: (inout [String: Any]) -> Void) throws -> ConfigDecodingError? {
    do {
        _ = try decodeSample(change)
        return nil
    } catch let error as ConfigDecodingError {
        return error
    }
}

/// Edits the first audience of the first trigger.
func editFirstAudience(_ json: inout [String: Any], _ edit: (inout [String: Any]) -> Void) {
    var triggers = json["trigger_options"] as! [[String: Any]]
    var rules = triggers[0]["rules"] as! [[String: Any]]
    edit(&rules[0])
    triggers[0]["rules"] = rules
    json["trigger_options"] = triggers
}

func editFirstPaywall(_ json: inout [String: Any], _ edit: (inout [String: Any]) -> Void) {
    var paywalls = json["paywall_responses"] as! [[String: Any]]
    edit(&paywalls[0])
    json["paywall_responses"] = paywalls
}
