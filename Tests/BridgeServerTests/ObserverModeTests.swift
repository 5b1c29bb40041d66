import BridgeServer
import Foundation
import JSONRPC
import Logging
import TestSupport
import Testing

/// Observer mode: the app buys through its own store and reports each purchase; the purchase
/// gets the events, the history and the customer info of one made through the bridge.
@Suite struct ObserverModeTests {
    private static let product = "com.pockettrainer.coach.monthly"

    private func observingBridge(
        platform: JSONValue = "iOS",
        observing: Bool = true
    ) async -> (InProcessServer, [JSONValue]) {
        let process = await bridgeProcess(delegate: true)
        var notifications: [JSONValue] = []
        let configured = await call(
            process,
            "configure",
            [
                "apiKey": "pk_test",
                "options": [
                    "configSource": ["type": "embedded"], "dataDirectory": .string(temporaryDirectory()),
                    "shouldObservePurchases": .bool(observing),
                ],
                "device": ["platform": platform],
            ],
            notifications: &notifications
        )
        #expect(configured?["result"]?["configurationStatus"] == "configured", "\(String(describing: configured))")
        #expect(configured?["result"]?["warnings"]?.arrayValue?.isEmpty ?? true, "\(String(describing: configured))")
        return (process, notifications)
    }

    /// The tracked events' params by name, read until `last` has come.
    private func events(
        through last: String,
        from process: InProcessServer,
        after notifications: [JSONValue]
    ) async -> [String: JSONValue] {
        var seen = notifications
        func tracked() -> [String: JSONValue] {
            Dictionary(
                seen.compactMap { notification -> (String, JSONValue)? in
                    guard notification["method"] == "delegate/handleSuperwallEvent",
                        let name = notification["params"]?["event"]?["name"]?.stringValue,
                        let params = notification["params"]?["params"]
                    else { return nil }
                    return (name, params)
                },
                uniquingKeysWith: { _, latest in latest }
            )
        }
        while tracked()[last] == nil, let message = await process.client.next() { seen.append(message) }
        return tracked()
    }

    @Test func aReportedPurchaseIsTrackedAndEntersTheCustomerInfo() async {
        var (process, notifications) = await observingBridge()
        let started = await call(
            process,
            "observePurchaseStart",
            ["productId": .string(Self.product)],
            notifications: &notifications
        )
        #expect(started?["result"] == [:], "\(String(describing: started))")
        let ended = await call(
            process,
            "observePurchaseResult",
            ["result": ["type": "purchased", "transaction": ["transactionId": "gpa.1234"]]],
            notifications: &notifications
        )
        #expect(ended?["result"] == [:], "\(String(describing: ended))")
        let events = await events(through: "transaction_complete", from: process, after: notifications)
        #expect(events["transaction_start"]?["source"] == "APP")
        #expect(events["transaction_start"]?["product_id"] == .string(Self.product))
        #expect(events["transaction_complete"]?["store_transaction_id"] == "gpa.1234")
        #expect(events["transaction_complete"]?["source"] == "APP")
        let info = await call(process, "getCustomerInfo")?["result"]
        let transactions =
            (info?["subscriptions"]?.arrayValue ?? []) + (info?["nonSubscriptions"]?.arrayValue ?? [])
        #expect(
            transactions.contains { $0["transactionId"] == "gpa.1234" && $0["productId"] == .string(Self.product) },
            "\(String(describing: info))"
        )
    }

    /// Superwall-Android names the source of an observed purchase `OBSERVER`; a cancelled
    /// purchase is abandoned, an error a failure with its message.
    @Test func anAndroidSessionsObservedPurchasesAreFromTheObserverAndEachEndIsTracked() async {
        var (process, notifications) = await observingBridge(platform: "Android")
        _ = await call(process, "observePurchaseStart", ["productId": "pro_annual"], notifications: &notifications)
        _ = await call(process, "observePurchaseResult", ["result": "cancelled"], notifications: &notifications)
        _ = await call(process, "observePurchaseStart", ["productId": "pro_annual"], notifications: &notifications)
        let failed = await call(
            process,
            "observePurchaseError",
            ["productId": "pro_annual", "error": "BILLING_UNAVAILABLE"],
            notifications: &notifications
        )
        #expect(failed?["result"] == [:], "\(String(describing: failed))")
        let events = await events(through: "transaction_fail", from: process, after: notifications)
        #expect(events["transaction_start"]?["source"] == "OBSERVER")
        #expect(events["transaction_abandon"]?["product_id"] == "pro_annual")
        #expect(events["transaction_fail"]?["message"] == "BILLING_UNAVAILABLE")
    }

    @Test func reportsWithoutTheOptionAndEndsWithoutAStartAreRefused() async {
        let (off, _) = await observingBridge(observing: false)
        let refused = await call(off, "observePurchaseStart", ["productId": .string(Self.product)])?["error"]
        #expect(refused?["code"] == -32006)
        #expect(refused?["data"]?["kind"] == "notObservingPurchases")

        let (on, _) = await observingBridge()
        let unstarted = await call(on, "observePurchaseResult", ["result": ["type": "purchased"]])?["error"]
        #expect(unstarted?["data"]?["kind"] == "observedPurchaseNotStarted")
        let malformed = await call(on, "observePurchaseResult", ["result": ["type": "bought"]])?["error"]
        #expect(malformed?["code"] == -32602)
        #expect(malformed?["data"]?["path"] == "params.result.type")
    }

    /// SuperwallKit: "You cannot use `purchase(_:)` while `shouldObservePurchases` is true".
    @Test func purchaseIsRefusedWhileObserving() async {
        let (process, _) = await observingBridge()
        let refused = await call(process, "purchase", ["productId": .string(Self.product)])?["error"]
        #expect(refused?["data"]?["kind"] == "observingPurchases", "\(String(describing: refused))")
        let options = await call(process, "getOptions")?["result"]
        #expect(options?["options"]?["shouldObservePurchases"] == true, "\(String(describing: options))")
    }
}
