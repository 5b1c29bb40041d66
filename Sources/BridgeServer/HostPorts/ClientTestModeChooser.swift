import JSONRPC
import SuperwallCore

/// Test mode's choices made by the client: `testMode/purchase` and `testMode/restore`
/// requests, to a client that declared `testModeUI`. A reply that is an error or does not
/// decode is no choice, and says why; the core bounds the wait.
struct ClientTestModeChooser: TestModeChooser {
    let host: ClientHost

    var offersChoices: Bool { host.capabilities.testModeUI && host.connection != nil }

    func choosePurchaseOutcome(for product: Product) async -> TestModeChoice<TestModePurchaseOutcome> {
        let method = "testMode/purchase"
        switch await host.ask(method, ["product": product.wireValue]) {
        case .lost: return .unavailable(reason: Self.lost)
        case .refused(let reason): return .unavailable(reason: reason)
        case .answered(let reply):
            guard let outcome = reply["outcome"]?.stringValue.flatMap(TestModePurchaseOutcome.init(rawValue:)) else {
                return .unavailable(
                    reason:
                        "The client's \(method) answer does not decode: expected {outcome: \"purchased\" | \"abandoned\" | \"failed\"}."
                )
            }
            return .chosen(outcome)
        }
    }

    func chooseRestoredEntitlements(from available: [String]) async -> TestModeChoice<[String]?> {
        let method = "testMode/restore"
        switch await host.ask(method, ["availableEntitlements": .array(available.map(JSONValue.string))]) {
        case .lost: return .unavailable(reason: Self.lost)
        case .refused(let reason): return .unavailable(reason: reason)
        case .answered(let reply):
            if reply["entitlements"] == .null { return .chosen(nil) }
            let chosen = reply["entitlements"]?.arrayValue ?? []
            let ids = chosen.compactMap(\.stringValue)
            guard reply["entitlements"]?.arrayValue != nil, ids.count == chosen.count else {
                return .unavailable(
                    reason: "The client's \(method) answer does not decode: expected {entitlements: [string] | null}."
                )
            }
            guard ids.count <= ClientLimits.entitlementCount else {
                return .unavailable(
                    reason:
                        "The client's \(method) answer names \(ids.count) entitlements, more than the \(ClientLimits.entitlementCount) a subscription status may hold."
                )
            }
            return .chosen(ids)
        }
    }

    private static let lost = "The client went away, or the request was cancelled, before it chose."
}
