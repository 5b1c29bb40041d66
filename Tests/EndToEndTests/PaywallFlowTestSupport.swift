import Foundation
import JSONRPC
import TestSupport
import Testing

/// A client that presents paywalls and answers custom callbacks, driving the real binary.
struct PaywallClient {
    let bridge: BridgeProcess
    /// Every message that was not what a wait looked for, in order. A later wait looks here
    /// first: replies to concurrent requests (a `dismiss` and the `register` it ends) may come
    /// in either order.
    var seen: [JSONValue] = []

    static func start(
        capabilities: JSONValue = ["paywallPresenter": true, "customCallbacks": true, "delegate": true],
        configSource: JSONValue = ["type": "embedded"],
        timeouts: JSONValue = [:],
        storeProducts: JSONValue = [],
        testModeBehavior: String = "automatic",
        options extra: JSONObject = [:]
    ) async throws -> PaywallClient {
        let bridge = try BridgeProcess()
        await bridge.initialize(capabilities: capabilities)
        var client = PaywallClient(bridge: bridge)
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent(
            "e2e-paywall-\(UUID().uuidString)"
        ).path
        var options: JSONObject = [
            "configSource": configSource, "dataDirectory": .string(directory), "timeouts": timeouts,
            "testModeBehavior": .string(testModeBehavior),
        ]
        options.merge(extra) { $1 }
        bridge.client.request(
            "configure",
            "configure",
            ["apiKey": "pk_e2e", "options": .object(options), "storeProducts": storeProducts]
        )
        let configured = try #require(await client.reply(to: "configure"))
        #expect(configured["result"]?["configurationStatus"] == "configured")
        return client
    }

    /// Reads until the reply to `id`.
    mutating func reply(to id: JSONValue, timeout: Duration = expectationTimeout) async -> JSONValue? {
        await next { $0["id"] == id && $0["method"] == nil }
    }

    /// Reads until a message from the bridge with `method` (a request or a notification).
    mutating func message(_ method: String, timeout: Duration = expectationTimeout) async -> JSONValue? {
        await next { $0["method"] == .string(method) }
    }

    private mutating func next(where matches: (JSONValue) -> Bool) async -> JSONValue? {
        if let index = seen.firstIndex(where: { matches($0) && $0["id"] != nil }) { return seen.remove(at: index) }
        while let message = await bridge.client.next() {
            if matches(message) { return message }
            seen.append(message)
        }
        return nil
    }

    /// The client goes away: the bridge must resolve every wait and exit 0 without waiting out
    /// any deadline it holds (a purchase's is an hour). The bound is the suites' expectation
    /// timeout, not a figure for the machine's speed: a busy CI machine took 12.8 s here.
    func disconnectAndExpectAPromptExit() async {
        bridge.client.closeWriting()
        let status = await bridge.waitForExit()
        #expect(status == 0, "the bridge had not exited after \(expectationTimeout)")
    }

    func answer(_ request: JSONValue, _ result: JSONValue) {
        bridge.client.send(["jsonrpc": "2.0", "id": request["id"] ?? .null, "result": result])
    }

    func request(_ id: JSONValue, _ method: String, _ params: JSONValue? = nil) {
        bridge.client.request(id, method, params)
    }

    /// The names of the delegate events seen so far.
    var eventNames: [String] { seen.compactMap { $0["params"]?["event"]?["name"]?.stringValue } }

    /// Registers `placement`, answers the `paywall/present` that follows, and returns the
    /// session id.
    mutating func registerAndShow(_ id: JSONValue, _ placement: String, params: JSONValue = [:]) async throws -> String
    {
        request(id, "register", ["placement": .string(placement), "params": params])
        let present = try #require(await message("paywall/present"))
        answer(present, [:])
        return try #require(present["params"]?["sessionId"]?.stringValue)
    }

    /// Sends `close` for the session, answers the `paywall/dismiss`, and returns `register`'s result.
    mutating func close(_ sessionId: String, register id: JSONValue) async throws -> JSONValue {
        request("close", "paywall/action", ["sessionId": .string(sessionId), "action": ["type": "close"]])
        let dismiss = try #require(await message("paywall/dismiss"))
        #expect(dismiss["params"]?["sessionId"] == .string(sessionId))
        answer(dismiss, [:])
        return try #require(await reply(to: id)?["result"])
    }
}

/// One placement whose only audience holds everybody out, another nobody matches.
let holdoutConfig = #"""
    {"build_id": "e2e-1", "log_level": 10, "app_session_timeout_ms": 3600000, "toggles": [],
     "disable_preload": {"all": false, "triggers": []}, "localization": {"locales": [{"locale": "en"}]},
     "trigger_options": [
       {"event_name": "held", "rules": [{"experiment_group_id": "c1", "experiment_id": "x1", "expression_cel": null,
         "preload": {"behavior": "IF_TRUE"}, "variants": [{"variant_id": "h1", "variant_type": "HOLDOUT", "percentage": 100}]}]},
       {"event_name": "nobody", "rules": [{"experiment_group_id": "c2", "experiment_id": "x2", "expression_cel": "user.plan == \"gold\"",
         "preload": {"behavior": "IF_TRUE"}, "variants": [{"variant_id": "h2", "variant_type": "HOLDOUT", "percentage": 100}]}]}],
     "paywall_responses": []}
    """#
