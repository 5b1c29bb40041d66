import BridgeServer
import Foundation
import JSONRPC
import Logging
import TestSupport
import Testing

@Suite struct DelegateNotificationTests {
    /// An initialized bridge whose log lines go to the client (`delegate/handleLog`), as the
    /// command line wires it.
    private static func loggingBridge(delegate: Bool) async -> InProcessServer {
        let clientLog = ClientLog()
        let logger = Logger(label: "bridge-tests") { ClientLog.Handler(label: $0, log: clientLog) }
        let process = InProcessServer(
            handler: BridgeServer(logger: logger, logLevel: RecordingLogLevel(), clientLog: clientLog)
        )
        process.client.request(
            0,
            "initialize",
            ["protocolVersion": "1.0", "capabilities": ["delegate": .bool(delegate)]]
        )
        _ = await process.client.nextReply()
        return process
    }

    @Test func eventsAreBufferedUntilADelegateIsBoundThenDeliveredInOrder() async {
        let process = await bridgeProcess(delegate: false)
        var early: [JSONValue] = []
        _ = await call(process, "configure", configureParams(temporaryDirectory()), notifications: &early)
        #expect(early.isEmpty)
        var delivered: [JSONValue] = []
        _ = await call(process, "setDelegate", ["enabled": true], notifications: &delivered)
        // The backlog may trail the reply; collect until the last launch event has come.
        while delivered.count < 7, let message = await process.client.next() { delivered.append(message) }
        let names = delivered.compactMap { $0["params"]?["event"]?["name"]?.stringValue }
        // `session_start`'s implicit trigger may add its `trigger_fire` after these.
        #expect(
            names.prefix(7) == [
                "app_install", "app_launch", "first_seen", "session_start", "config_refresh", "device_attributes",
                "config_attributes",
            ]
        )
        #expect(delivered.allSatisfy { $0["method"] == "delegate/handleSuperwallEvent" })
        #expect(delivered.first?["params"]?["params"]?["is_superwall"] == true)
    }

    /// A request sent without an id (a Go client's `omitempty` drops id 0) was dropped with a
    /// line at debug level only.
    /// Each event carries the name the wrappers give it, SuperwallKit's case name, beside the raw one.
    @Test func eachEventCarriesTheWrappersNameForIt() async {
        let process = await bridgeProcess(delegate: true)
        var notifications: [JSONValue] = []
        _ = await call(process, "configure", configureParams(temporaryDirectory()), notifications: &notifications)
        _ = await call(process, "handleDeepLink", ["url": "pockettrainer://workouts"], notifications: &notifications)
        _ = await call(process, "getUserId", notifications: &notifications)
        let names = Dictionary(
            notifications.compactMap { notification -> (String, String)? in
                guard let event = notification["params"]?["event"], let name = event["name"]?.stringValue,
                    let caseName = event["event"]?.stringValue
                else { return nil }
                return (name, caseName)
            },
            uniquingKeysWith: { first, _ in first }
        )
        #expect(names["app_launch"] == "appLaunch")
        #expect(names["deepLink_open"] == "deepLink")
        #expect(names["config_attributes"] == "configAttributes")
        #expect(names["device_attributes"] == "deviceAttributes")
    }

    @Test func aRequestSentAsANotificationIsWarnedOfAndNotRun() async {
        let process = await Self.loggingBridge(delegate: true)
        process.client.notify("getUserId")
        process.client.notify("vendor/somethingElse")
        var notifications: [JSONValue] = []
        _ = await call(process, "$/ping", notifications: &notifications)
        // The log reaches the delegate on its own time, not before the next answer.
        func logged(_ text: String) -> Bool {
            notifications.contains { $0["params"]?["message"]?.stringValue?.contains(text) == true }
        }
        while !(logged("getUserId was sent") && logged("vendor/somethingElse")),
            let message = await process.client.next()
        {
            notifications.append(message)
        }
        let logs = notifications.filter { $0["method"] == "delegate/handleLog" }.map { $0["params"] }
        let warning = logs.first {
            $0?["message"]?.stringValue?.hasPrefix("getUserId was sent as a notification") == true
        }
        #expect(warning??["level"] == "warn")
        #expect(warning??["message"]?.stringValue?.contains("0 is a valid id") == true)
        #expect(
            logs.first { $0?["message"]?.stringValue?.contains("vendor/somethingElse") == true }??["level"] == "debug"
        )
    }

    @Test func aBoundDelegateHearsTheLogAsHandleLogAndAnUnboundOneNothingOfIt() async {
        let process = await Self.loggingBridge(delegate: false)
        let unknownKey: JSONValue = [
            "apiKey": "pk_test", "colour": "blue",
            "options": ["configSource": ["type": "embedded"], "dataDirectory": .string(temporaryDirectory())],
        ]
        var unbound: [JSONValue] = []
        _ = await call(process, "configure", unknownKey, notifications: &unbound)
        _ = await call(process, "setDelegate", ["enabled": true], notifications: &unbound)
        #expect(!unbound.contains { $0["method"] == "delegate/handleLog" })
        var bound: [JSONValue] = []
        _ = await call(process, "configure", unknownKey, notifications: &bound)
        let log = bound.first { $0["method"] == "delegate/handleLog" }?["params"]
        #expect(log?["level"] == "warn")
        #expect(log?["scope"] == "bridge-tests")
        #expect(log?["message"]?.stringValue?.contains("params.colour") == true)
        #expect(log?["error"] == .null)
    }

    /// Each of 50,000 unknown notifications became a `delegate/handleLog`, and the next answer
    /// waited 8–11 s behind them.
    /// SuperwallKit's `handleLog(..., error:)`: a line's `error` metadata is the error, and the
    /// rest its `info`.
    @Test func aLogLinesErrorReachesHandleLogAsItsError() async {
        let clientLog = ClientLog()
        let logger = Logger(label: "bridge-tests") { ClientLog.Handler(label: $0, log: clientLog) }
        let process = InProcessServer(
            handler: BridgeServer(logger: logger, logLevel: RecordingLogLevel(), clientLog: clientLog)
        )
        process.client.request(0, "initialize", ["protocolVersion": "1.0", "capabilities": ["delegate": true]])
        _ = await process.client.nextReply()
        logger.error("the flush failed", metadata: ["error": "connection refused", "batch": "50"])
        var line: JSONValue?
        while line == nil, let message = await process.client.next() {
            if message["params"]?["message"] == "the flush failed" { line = message["params"] }
        }
        #expect(line?["level"] == "error")
        #expect(line?["error"] == "connection refused")
        #expect(line?["info"] == ["batch": "50"])
    }

    @Test func aFloodOfIgnoredNotificationsReachesTheDelegateAsACountNotLineByLine() async {
        let process = await Self.loggingBridge(delegate: true)
        for index in 0..<5_000 { process.client.notify("vendor/unknown\(index % 7)") }
        var notifications: [JSONValue] = []
        _ = await call(process, "$/ping", notifications: &notifications)
        // Each held-back count is said at the end of its second; on a slow machine the flood
        // may span several.
        var (lines, heldBack, summaries) = (0, 0, 0)
        func tally(_ message: JSONValue) {
            guard message["method"] == "delegate/handleLog", let text = message["params"]?["message"]?.stringValue
            else { return }
            if text.hasSuffix("were not forwarded to the delegate: more than \(ClientLog.linesPerSecond) a second") {
                summaries += 1
                heldBack += Int(text.prefix { $0.isNumber }) ?? 0
            } else if text.contains("vendor/unknown") {
                lines += 1
            }
        }
        notifications.forEach(tally)
        while lines + heldBack < 5_000, let message = await process.client.next() { tally(message) }
        #expect(lines + heldBack == 5_000)
        #expect(summaries >= 1)
        #expect(lines <= ClientLog.linesPerSecond * (summaries + 1))
    }

    @Test func aBoundDelegateHearsEventsAsTheyHappen() async {
        let process = await bridgeProcess(delegate: true)
        _ = await call(process, "configure", configureParams(temporaryDirectory()))
        var notifications: [JSONValue] = []
        _ = await call(process, "identify", ["userId": "user_9"], notifications: &notifications)
        while !notifications.contains(where: { $0["params"]?["event"]?["name"] == "identity_alias" }),
            let message = await process.client.next()
        {
            notifications.append(message)
        }
        #expect(notifications.contains { $0["params"]?["event"]?["name"] == "identity_alias" })
    }
}
