import BridgeServer
import Foundation
import JSONRPC
import Logging
import TestSupport
import Testing

private func bridgeProcess(
    delegate: Bool = false,
    logLevel: RecordingLogLevel = RecordingLogLevel()
) async -> InProcessServer {
    let process = InProcessServer(handler: BridgeServer(logger: quietLogger(), logLevel: logLevel))
    process.client.request(0, "initialize", ["protocolVersion": "1.0", "capabilities": ["delegate": .bool(delegate)]])
    _ = await process.client.nextReply()
    return process
}

private func temporaryDirectory() -> String {
    FileManager.default.temporaryDirectory.appendingPathComponent("bridge-\(UUID().uuidString)").path
}

private func configureParams(_ directory: String, source: JSONValue = ["type": "embedded"]) -> JSONValue {
    [
        "apiKey": "pk_test", "options": ["configSource": source, "dataDirectory": .string(directory)],
        "device": ["platform": "iOS"],
    ]
}

/// Sends a request and returns its reply, collecting the notifications that come before it.
private func call(
    _ process: InProcessServer,
    _ method: String,
    _ params: JSONValue = [:],
    notifications: inout [JSONValue]
) async -> JSONValue? {
    process.client.request("call", method, params)
    return await process.client.nextReply(skipped: &notifications)
}

private func call(_ process: InProcessServer, _ method: String, _ params: JSONValue = [:]) async -> JSONValue? {
    var ignored: [JSONValue] = []
    return await call(process, method, params, notifications: &ignored)
}

@Suite struct ConfigureMethodTests {
    @Test func configureOnTheEmbeddedDemoAnswersConfiguredAndTheUser() async {
        let process = await bridgeProcess()
        let result = await call(process, "configure", configureParams(temporaryDirectory()))?["result"]
        #expect(result?["configurationStatus"] == "configured")
        #expect(result?["userId"]?.stringValue?.hasPrefix("$SuperwallAlias:") == true)
        #expect(result?["error"] == .null)
        #expect(await call(process, "getConfigurationStatus")?["result"] == ["status": "configured"])
    }

    @Test func callsBeforeConfigureAnswerNotConfigured() async {
        let process = await bridgeProcess()
        for method in [
            "identify", "reset", "getUserId", "getUserAttributes", "setUserAttributes", "getDeviceAttributes",
        ] {
            let params: JSONValue =
                method == "identify" ? ["userId": "u"] : method == "setUserAttributes" ? ["attributes": [:]] : [:]
            let error = await call(process, method, params)?["error"]
            #expect(error?["code"] == -32001, "\(method)")
            #expect(error?["data"]?["kind"] == "notConfigured", "\(method)")
        }
        #expect(await call(process, "getConfigurationStatus")?["result"] == ["status": "pending"])
    }

    @Test func aSecondConfigureWithAnotherKeyIsRefused() async {
        let process = await bridgeProcess()
        let directory = temporaryDirectory()
        _ = await call(process, "configure", configureParams(directory))
        var params = configureParams(directory).objectValue!
        params["apiKey"] = "pk_other"
        let error = await call(process, "configure", .object(params))?["error"]
        #expect(error?["code"] == -32602)
        #expect(error?["data"]?["kind"] == "apiKeyMismatch")
    }

    @Test func anInvalidConfigFileAnswersFailedWithThePath() async throws {
        let path = temporaryDirectory() + ".json"
        try Data(#"{"build_id":"x","trigger_options":[{"rules":[]}]}"#.utf8).write(to: URL(fileURLWithPath: path))
        let process = await bridgeProcess()
        let result = await call(
            process,
            "configure",
            configureParams(temporaryDirectory(), source: ["type": "file", "path": .string(path)])
        )?["result"]
        #expect(result?["configurationStatus"] == "failed")
        #expect(result?["error"]?["data"]?["kind"] == "invalidConfig")
        #expect(result?["error"]?["data"]?["path"] == "$.trigger_options[0].event_name")
        #expect(result?["error"]?["code"] == -32602)
    }

    /// Text that is not JSON gave path `$` and a byte offset inside the message, as an
    /// internal error.
    @Test func aConfigFileThatIsNotJSONAnswersItsLineAndColumn() async throws {
        let path = temporaryDirectory() + ".json"
        try Data("{\n  \"build_id\": \"x\",\n  \"trigger_options\": [,]\n}".utf8).write(to: URL(fileURLWithPath: path))
        let process = await bridgeProcess()
        let result = await call(
            process,
            "configure",
            configureParams(temporaryDirectory(), source: ["type": "file", "path": .string(path)])
        )?["result"]
        let error = result?["error"]
        #expect(error?["data"]?["kind"] == "invalidConfig")
        #expect(error?["code"] == -32602)
        #expect(error?["data"]?["line"] == 3)
        #expect(error?["data"]?["column"] == 23)
        #expect(error?["message"]?.stringValue?.contains("line 3, column 23") == true)
    }

    @Test func anUnreachableServerFailsConfigureWithTheTransportError() async {
        let process = await bridgeProcess()
        let params: JSONValue = [
            "apiKey": "pk_test",
            "options": [
                "configSource": ["type": "http", "baseUrl": "http://127.0.0.1:1"],
                "dataDirectory": .string(temporaryDirectory()),
                "maxConfigRetryCount": 0,
            ],
        ]
        let result = await call(process, "configure", params)?["result"]
        #expect(result?["configurationStatus"] == "failed")
        #expect(
            result?["error"]?["message"]?.stringValue?.contains("the request failed: the connection was refused")
                == true
        )
        // In words for a person: no Swift type names from the HTTP stack.
        #expect(result?["error"]?["message"]?.stringValue?.contains("Error") == false)
    }

    /// Against a refused port, the default retries took 67 s; `timeouts.configMs` bounds it.
    @Test func anHTTPConfigureAnswersWithinItsTimeLimit() async {
        let process = await bridgeProcess()
        let (result, elapsed) = await measuredOffThePool {
            await call(
                process,
                "configure",
                [
                    "apiKey": "pk_test",
                    "options": [
                        "configSource": ["type": "http", "baseUrl": "http://127.0.0.1:1"],
                        "dataDirectory": .string(temporaryDirectory()),
                        "timeouts": ["configMs": 1000],
                    ],
                ]
            )?["result"]
        }
        #expect(result?["configurationStatus"] == "failed")
        #expect(elapsed < .seconds(20), "the first retry alone waits 5 s, all six over 60 s")
    }

    @Test func badConfigSourcesAreInvalidParams() async {
        let process = await bridgeProcess()
        let badURL = await call(
            process,
            "configure",
            configureParams(temporaryDirectory(), source: ["type": "http", "baseUrl": "ftp://x"])
        )
        #expect(badURL?["error"]?["data"]?["path"] == "params.options.configSource.baseUrl")
        let badEnvironment = await call(
            process,
            "configure",
            ["apiKey": "pk_test", "options": ["networkEnvironment": "moon"]]
        )
        #expect(badEnvironment?["error"]?["data"]?["path"] == "params.options.networkEnvironment")
        let watch = await call(
            process,
            "configure",
            configureParams(temporaryDirectory(), source: ["type": "file", "path": "/x", "watch": "yes"])
        )
        #expect(watch?["error"]?["data"]?["path"] == "params.options.configSource.watch")
        let unknown = await call(process, "configure", configureParams(temporaryDirectory(), source: ["type": "ftp"]))
        #expect(unknown?["error"]?["code"] == -32602)
        #expect(unknown?["error"]?["data"]?["path"] == "params.options.configSource.type")
        let noKey = await call(process, "configure", ["apiKey": " "])
        #expect(noKey?["error"]?["data"]?["path"] == "params.apiKey")
    }

    /// A misplaced `configSource` used to be ignored, and the bridge fetched from the
    /// Superwall API instead (68 s to fail without a network).
    @Test func aKnownKeyAtTheWrongLevelIsRefusedNamingWhereItBelongs() async {
        let process = await bridgeProcess()
        let misplaced = await call(
            process,
            "configure",
            [
                "apiKey": "pk_test", "configSource": ["type": "embedded"],
                "dataDirectory": .string(temporaryDirectory()),
            ]
        )
        #expect(misplaced?["error"]?["code"] == -32602)
        #expect(misplaced?["error"]?["data"]?["path"] == "params.configSource")
        #expect(misplaced?["error"]?["data"]?["belongsAt"] == "params.options.configSource")
        #expect(misplaced?["error"]?["message"]?.stringValue?.contains("params.options.configSource") == true)
        let nested = await call(
            process,
            "configure",
            [
                "apiKey": "pk_test", "options": ["configSource": ["type": "embedded"], "subscriptionStatusMs": 1000],
            ]
        )
        #expect(nested?["error"]?["data"]?["belongsAt"] == "params.options.timeouts.subscriptionStatusMs")
        #expect(await call(process, "getConfigurationStatus")?["result"] == ["status": "pending"])
    }

    @Test func productOverridesMustNameProductIdentifiers() async {
        let process = await bridgeProcess()
        let refused = await call(
            process,
            "configure",
            [
                "apiKey": "pk_test",
                "options": [
                    "configSource": ["type": "embedded"], "dataDirectory": .string(temporaryDirectory()),
                    "paywalls": ["overrideProductsByName": ["primary": 5]],
                ],
            ]
        )
        #expect(refused?["error"]?["code"] == -32602)
        #expect(refused?["error"]?["data"]?["path"] == "params.options.paywalls.overrideProductsByName.primary")
        let accepted = await call(
            process,
            "configure",
            [
                "apiKey": "pk_test",
                "options": [
                    "configSource": ["type": "embedded"], "dataDirectory": .string(temporaryDirectory()),
                    "paywalls": ["overrideProductsByName": ["primary": "com.pockettrainer.coach.monthly"]],
                ],
            ]
        )?["result"]
        #expect(accepted?["configurationStatus"] == "configured")
        #expect(accepted?["warnings"] == [])
    }

    @Test func unknownKeysAreAnsweredAsWarningsAndTheConfigureGoesOn() async {
        let process = await bridgeProcess()
        let result = await call(
            process,
            "configure",
            [
                "apiKey": "pk_test", "colour": "blue",
                "options": [
                    "configSource": ["type": "embedded"], "dataDirectory": .string(temporaryDirectory()),
                    "timeouts": ["purchaseMS": 5],
                ],
            ]
        )?["result"]
        #expect(result?["configurationStatus"] == "configured")
        #expect(
            result?["warnings"]?.arrayValue?.compactMap { $0["path"]?.stringValue } == [
                "params.colour", "params.options.timeouts.purchaseMS",
            ]
        )
        let plain = await call(process, "configure", configureParams(temporaryDirectory()))?["result"]
        #expect(plain?["warnings"] == [])
    }
}

@Suite struct IdentityMethodTests {
    @Test func identifyGetUserIdAndResetFollowTheContract() async {
        let process = await bridgeProcess()
        _ = await call(process, "configure", configureParams(temporaryDirectory()))
        #expect(await call(process, "identify", ["userId": " user_7 "])?["result"] == ["userId": "user_7"])
        let user = await call(process, "getUserId")?["result"]
        #expect(user?["userId"] == "user_7")
        #expect(user?["appUserId"] == "user_7")
        #expect(user?["isLoggedIn"] == true)
        #expect(user?["aliasId"]?.stringValue?.hasPrefix("$SuperwallAlias:") == true)
        #expect(user?["seed"]?.int64Value.map { (0..<100).contains($0) } == true)
        let reset = await call(process, "reset")?["result"]?["userId"]?.stringValue
        #expect(reset?.hasPrefix("$SuperwallAlias:") == true)
        #expect(reset != user?["aliasId"]?.stringValue)
        #expect(await call(process, "getUserId")?["result"]?["appUserId"] == .null)
        #expect(await call(process, "identify", ["userId": "  "])?["error"]?["data"]?["kind"] == "invalidUserId")
    }

    @Test func attributesMergeAndNullRemoves() async {
        let process = await bridgeProcess()
        _ = await call(process, "configure", configureParams(temporaryDirectory()))
        let merged = await call(
            process,
            "setUserAttributes",
            ["attributes": ["plan": "pro", "tags": ["a", "b"], "$x": 1]]
        )?["result"]?["attributes"]
        #expect(merged?["plan"] == "pro")
        #expect(merged?["tags"] == ["a", "b"])
        #expect(merged?["$x"] == nil)
        #expect(merged?["applicationInstalledAt"]?.stringValue?.hasSuffix("Z") == true)
        let removed = await call(process, "setUserAttributes", ["attributes": ["plan": nil]])?["result"]?["attributes"]
        #expect(removed?["plan"] == nil)
        #expect(await call(process, "getUserAttributes")?["result"]?["attributes"] == removed)
        let notAnObject = await call(process, "setUserAttributes", ["attributes": ["a", "b"]])?["error"]
        #expect(notAnObject?["data"]?["path"] == "params.attributes")
        #expect(
            await call(process, "setIntegrationAttributes", ["attributes": ["adjustId": "adj-1"]])?["result"] == [
                "attributes": ["adjustId": "adj-1"]
            ]
        )
        #expect(await call(process, "getIntegrationAttributes")?["result"] == ["attributes": ["adjustId": "adj-1"]])
        // SuperwallKit takes its own list of keys; a misspelt one was stored without a word.
        let misspelt = await call(process, "setIntegrationAttributes", ["attributes": ["adjustID": "adj-2"]])?["error"]
        #expect(misspelt?["code"] == -32602)
        #expect(misspelt?["data"]?["path"] == "params.attributes.adjustID")
        #expect(misspelt?["message"]?.stringValue?.contains("adjustId, amplitudeDeviceId") == true)
        #expect(await call(process, "getIntegrationAttributes")?["result"] == ["attributes": ["adjustId": "adj-1"]])
    }

    @Test func deviceAttributesReportTheClientsDevice() async {
        let process = await bridgeProcess()
        _ = await call(process, "configure", configureParams(temporaryDirectory()))
        let device = await call(process, "getDeviceAttributes")?["result"]?["attributes"]
        #expect(device?["platform"] == "iOS")
        #expect(device?["publicApiKey"] == "pk_test")
        #expect(device?["sdkVersion"] == "4.16.4")
    }
}

@Suite struct DelegateNotificationTests {
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
    @Test func aRequestSentAsANotificationIsWarnedOfAndNotRun() async {
        let clientLog = ClientLog()
        let logger = Logger(label: "bridge-tests") { ClientLog.Handler(label: $0, log: clientLog) }
        let process = InProcessServer(
            handler: BridgeServer(logger: logger, logLevel: RecordingLogLevel(), clientLog: clientLog)
        )
        process.client.request(0, "initialize", ["protocolVersion": "1.0", "capabilities": ["delegate": true]])
        _ = await process.client.nextReply()
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
        let clientLog = ClientLog()
        let logger = Logger(label: "bridge-tests") { ClientLog.Handler(label: $0, log: clientLog) }
        let process = InProcessServer(
            handler: BridgeServer(logger: logger, logLevel: RecordingLogLevel(), clientLog: clientLog)
        )
        process.client.request(0, "initialize", ["protocolVersion": "1.0", "capabilities": ["delegate": false]])
        _ = await process.client.nextReply()
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
    @Test func aFloodOfIgnoredNotificationsReachesTheDelegateAsACountNotLineByLine() async {
        let clientLog = ClientLog()
        let logger = Logger(label: "bridge-tests") { ClientLog.Handler(label: $0, log: clientLog) }
        let process = InProcessServer(
            handler: BridgeServer(logger: logger, logLevel: RecordingLogLevel(), clientLog: clientLog)
        )
        process.client.request(0, "initialize", ["protocolVersion": "1.0", "capabilities": ["delegate": true]])
        _ = await process.client.nextReply()
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

@Suite struct OptionSetterTests {
    @Test func setLogLevelTakesSuperwallKitsNamesAndRefusesOthers() async {
        let levels = RecordingLogLevel()
        let process = await bridgeProcess(logLevel: levels)
        for name in ["debug", "warn", "none", "error", "trace"] {
            #expect(await call(process, "setLogLevel", ["level": .string(name)])?["result"] == [:], "\(name)")
        }
        #expect(levels.levels == [.debug, .warning, .critical, .error, .trace])
        #expect(await call(process, "setLogLevel", ["level": "loud"])?["error"]?["data"]?["path"] == "params.level")
    }

    @Test func configuresLoggingLevelSetsTheLogLevelAndScopesAreAnsweredAsNotApplied() async {
        let levels = RecordingLogLevel()
        let process = await bridgeProcess(logLevel: levels)
        let result = await call(
            process,
            "configure",
            [
                "apiKey": "pk_test",
                "options": [
                    "configSource": ["type": "embedded"], "dataDirectory": .string(temporaryDirectory()),
                    "logging": ["level": "debug", "scopes": ["paywallPresentation"]],
                ],
            ]
        )?["result"]
        #expect(result?["configurationStatus"] == "configured")
        #expect(levels.levels == [.debug])
        #expect(
            result?["warnings"]?.arrayValue?.compactMap { $0["path"]?.stringValue } == ["params.options.logging.scopes"]
        )
        let refused = await call(
            process,
            "configure",
            [
                "apiKey": "pk_test", "options": ["configSource": ["type": "embedded"], "logging": ["level": "loud"]],
            ]
        )
        #expect(refused?["error"]?["data"]?["path"] == "params.options.logging.level")
        #expect(levels.levels == [.debug])
    }

    @Test func configuresLocaleIdentifierIsTheDevicesLocaleAndExperimentalVariablesAreAKnownOption() async {
        let process = await bridgeProcess()
        let result = await call(
            process,
            "configure",
            [
                "apiKey": "pk_test",
                "options": [
                    "configSource": ["type": "embedded"], "dataDirectory": .string(temporaryDirectory()),
                    "localeIdentifier": "de_DE",
                    "enableExperimentalDeviceVariables": true,
                ],
            ]
        )?["result"]
        #expect(result?["warnings"] == [])
        #expect(await call(process, "getDeviceAttributes")?["result"]?["attributes"]?["deviceLocale"] == "de_DE")
    }

    @Test func localeAndInterfaceStyleShowInTheDeviceAttributes() async {
        let process = await bridgeProcess()
        _ = await call(process, "configure", configureParams(temporaryDirectory()))
        #expect(await call(process, "setLocaleIdentifier", ["localeIdentifier": "fr_CA"])?["result"] == [:])
        #expect(await call(process, "setInterfaceStyle", ["style": "dark"])?["result"] == [:])
        var device = await call(process, "getDeviceAttributes")?["result"]?["attributes"]
        #expect(device?["deviceLocale"] == "fr_CA")
        #expect(device?["deviceLanguageCode"] == "fr")
        #expect(device?["regionCode"] == "CA")
        #expect(device?["interfaceStyle"] == "Dark")
        #expect(device?["interfaceStyleMode"] == "manual")
        _ = await call(process, "setInterfaceStyle", ["style": nil])
        device = await call(process, "getDeviceAttributes")?["result"]?["attributes"]
        #expect(device?["interfaceStyleMode"] == "automatic")
        #expect(await call(process, "setInterfaceStyle", ["style": "sepia"])?["error"]?["code"] == -32602)
    }
}

@Suite struct EvaluateExpressionMethodTests {
    private let context: JSONValue = [
        "variables": ["user": ["type": "map", "value": ["credits": ["type": "int", "value": 3]]]],
        "computed": ["daysSince": [["type": "string", "value": "event_name"]]],
        "host": ["daysSince": ["type": "uint", "value": 4]],
    ]

    @Test func aGivenContextIsUsedAndTheValueComesBackTagged() async {
        let process = await bridgeProcess()
        let result = await call(
            process,
            "debug/evaluateExpression",
            ["expression": "user.credits < 5 && computed.daysSince('x') == 4", "context": context]
        )?["result"]
        #expect(result == ["value": ["type": "bool", "value": true]])
        let list = await call(
            process,
            "debug/evaluateExpression",
            ["expression": "[user.credits, 'a']", "context": context]
        )?["result"]
        #expect(
            list == [
                "value": ["type": "list", "value": [["type": "int", "value": 3], ["type": "string", "value": "a"]]]
            ]
        )
    }

    @Test func compileAndEvaluationErrorsAreResultsWithAMessage() async {
        let process = await bridgeProcess()
        let compile = await call(
            process,
            "debug/evaluateExpression",
            ["expression": "user.credits <", "context": context]
        )?["result"]
        #expect(compile?["error"]?["message"]?.stringValue?.hasPrefix("Failed to compile expression") == true)
        #expect(compile?["error"]?["line"] == 1 && compile?["error"]?["column"] == 15)
        let evaluation = await call(process, "debug/evaluateExpression", ["expression": "1 / 0", "context": context])?[
            "result"
        ]
        #expect(evaluation == ["error": ["message": "Division by zero"]])
    }

    @Test func aMalformedContextOrExpressionIsInvalidParams() async {
        let process = await bridgeProcess()
        let badContext = await call(
            process,
            "debug/evaluateExpression",
            ["expression": "1", "context": ["variables": ["user": ["type": "mystery"]]]]
        )?["error"]
        #expect(badContext?["code"] == -32602)
        #expect(badContext?["data"]?["path"] == "params.context")
        #expect(badContext?["message"]?.stringValue?.contains("context.variables.user") == true)
        let noExpression = await call(process, "debug/evaluateExpression", ["context": context])?["error"]
        #expect(noExpression?["code"] == -32602)
    }

    @Test func withoutAContextTheLiveUserIsUsedOnceConfigured() async {
        let process = await bridgeProcess()
        let early = await call(process, "debug/evaluateExpression", ["expression": "true"])?["error"]
        #expect(early?["data"]?["kind"] == "notConfigured")
        _ = await call(process, "configure", configureParams(temporaryDirectory()))
        _ = await call(process, "setUserAttributes", ["attributes": ["plan": "pro"]])
        let live = await call(
            process,
            "debug/evaluateExpression",
            [
                "expression":
                    "user.plan == 'pro' && device.platform == 'iOS' && params.source == 'settings' && device.placementsSinceInstall('app_launch') == 1",
                "params": ["source": "settings"],
            ]
        )?["result"]
        #expect(live == ["value": ["type": "bool", "value": true]])
        let noPlacement = await call(process, "debug/evaluateExpression", ["expression": "params"])?["result"]
        #expect(noPlacement == ["value": ["type": "string", "value": ""]])
    }
}

@Suite struct EventTrackingOptionTests {
    /// The names in the data directory's `events.jsonl` after a `register` and a `shutdown`.
    private func sentNames(options: JSONValue) async throws -> [String] {
        let directory = temporaryDirectory()
        let process = await bridgeProcess()
        var params = configureParams(directory)
        if case .object(var members) = params, case .object(var given)? = members["options"],
            case .object(let extra) = options
        {
            for (key, value) in extra { given[key] = value }
            members["options"] = .object(given)
            params = .object(members)
        }
        #expect(await call(process, "configure", params)?["result"]?["configurationStatus"] == "configured")
        _ = await call(process, "register", ["placement": "workout_shared"])
        _ = await call(process, "shutdown")
        let text = (try? String(contentsOfFile: directory + "/events.jsonl", encoding: .utf8)) ?? ""
        return text.split(separator: "\n").compactMap { line in
            (try? JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])?["event_name"] as? String
        }
    }

    @Test func theDeprecatedExternalDataCollectionSwitchMeansSuperwallOnly() async throws {
        let names = try await sentNames(options: ["isExternalDataCollectionEnabled": false])
        #expect(names.contains("app_launch"))
        #expect(!names.contains("workout_shared") && !names.contains("trigger_fire"))
    }

    @Test func eventTrackingBehaviorNoneSendsNothingAndAllSendsThePlacement() async throws {
        #expect(try await sentNames(options: ["eventTrackingBehavior": "none"]).isEmpty)
        #expect(try await sentNames(options: ["eventTrackingBehavior": "all"]).contains("workout_shared"))
    }

    @Test func anUnknownBehaviorIsInvalidParams() async {
        let process = await bridgeProcess()
        var params = configureParams(temporaryDirectory())
        if case .object(var members) = params, case .object(var given)? = members["options"] {
            given["eventTrackingBehavior"] = "some"
            members["options"] = .object(given)
            params = .object(members)
        }
        #expect(
            await call(process, "configure", params)?["error"]?["data"]?["path"]
                == "params.options.eventTrackingBehavior"
        )
    }
}

@Suite struct PlatformWrapperTests {
    /// Wrappers say who they are, often before `configure`; the device attributes report it.
    @Test func aWrapperNamedBeforeConfigureIsReportedInTheDeviceAttributes() async {
        let process = await bridgeProcess()
        #expect(
            await call(process, "setPlatformWrapper", ["platformWrapper": "Flutter", "version": "2.3.1"])?["result"]
                == [:]
        )
        _ = await call(process, "configure", configureParams(temporaryDirectory()))
        let device = await call(process, "getDeviceAttributes")?["result"]?["attributes"]
        #expect(device?["platformWrapper"] == "Flutter")
        #expect(device?["platformWrapperVersion"] == "2.3.1")
        #expect(
            await call(process, "setPlatformWrapper", ["platformWrapper": "Flutter"])?["error"]?["data"]?["path"]
                == "params.version"
        )
    }
}

/// A rule of 200 `matches` on a 60 KB value ran on the thread that reads messages: `$/ping`
/// waited seconds behind it, and `$/cancelRequest` was not read until it had finished.
@Suite struct SlowRuleTests {
    private static let heavy = (0..<200).map { "text.matches('(a|b)*c\($0)')" }.joined(separator: " || ")
    private static let context: JSONValue = [
        "variables": ["text": ["type": "string", "value": .string(String(repeating: "a", count: 60_000))]]
    ]

    @Test func aPingIsAnsweredWhileASlowRuleEvaluates() async {
        let process = await bridgeProcess()
        process.client.request(
            "slow",
            "debug/evaluateExpression",
            ["expression": .string(Self.heavy), "context": Self.context]
        )
        process.client.request("ping", "$/ping")
        var order: [JSONValue] = []
        while order.count < 2, let message = await process.client.next(timeout: .seconds(120)) {
            if let id = message["id"], message["method"] == nil { order.append(id) }
        }
        #expect(order == ["ping", "slow"])
    }

    @Test func aSlowRuleIsCancelledAtOnce() async {
        let process = await bridgeProcess()
        process.client.request(
            "slow",
            "debug/evaluateExpression",
            ["expression": .string(Self.heavy), "context": Self.context]
        )
        process.client.notify("$/cancelRequest", ["id": "slow"])
        let reply = await process.client.next(timeout: .seconds(120))
        #expect(reply?["id"] == "slow")
        #expect(reply?["error"]?["code"] == -32800)
    }
}

/// What a hostile client found accepted, each now refused with -32602 naming its limit.
@Suite struct ClientLimitTests {
    private func configured() async -> InProcessServer {
        let process = await bridgeProcess()
        _ = await call(process, "configure", configureParams(temporaryDirectory()))
        return process
    }

    private func limit(_ reply: JSONValue?) -> Int64? {
        #expect(reply?["error"]?["code"] == -32602, "\(String(describing: reply))")
        return reply?["error"]?["data"]?["limit"]?.int64Value
    }

    @Test func attributesThatNestTooDeeplyAreRefusedNotAStorageFailure() async {
        let process = await configured()
        var nested: JSONValue = "leaf"
        for _ in 0..<511 { nested = ["a": nested] }
        let reply = await call(process, "setUserAttributes", ["attributes": ["deep": nested]])
        #expect(limit(reply) == Int64(ClientLimits.attributeDepth))
        #expect((reply?["error"]?["message"]?.stringValue?.utf8.count ?? 0) < 300)
    }

    @Test func overlongStringsAreRefused() async {
        let process = await configured()
        let huge = JSONValue.string(String(repeating: "x", count: ClientLimits.attributeStringBytes + 1))
        #expect(
            limit(await call(process, "setUserAttributes", ["attributes": ["bio": huge]]))
                == Int64(ClientLimits.attributeStringBytes)
        )
        #expect(
            limit(await call(process, "identify", ["userId": .string(String(repeating: "u", count: 5_000))]))
                == Int64(ClientLimits.userIdBytes)
        )
        #expect(
            limit(
                await call(
                    process,
                    "setLocaleIdentifier",
                    ["localeIdentifier": .string(String(repeating: "e", count: 300))]
                )
            )
                == Int64(ClientLimits.nameBytes)
        )
    }

    /// A 5 MB placement name took 10 s to register and went into the log and every event.
    @Test func anOverlongPlacementNameIsRefusedWhereverANameIsTaken() async {
        let process = await configured()
        let long = JSONValue.string(String(repeating: "p", count: ClientLimits.placementNameBytes + 1))
        for (method, params) in [
            ("register", ["placement": long]), ("getPaywall", ["placement": long]),
            ("getPresentationResult", ["placement": long]),
            ("debug/explainPlacement", ["placement": long]), ("preloadPaywalls", ["placements": [long]]),
        ] as [(String, JSONValue)] {
            #expect(limit(await call(process, method, params)) == Int64(ClientLimits.placementNameBytes), "\(method)")
        }
        let atTheLimit = JSONValue.string(String(repeating: "p", count: ClientLimits.placementNameBytes))
        #expect(await call(process, "register", ["placement": atTheLimit])?["result"] != nil)
    }

    /// Each call's limit held, but 14 calls of 2,000 keys made 28,000, and each call then took 10 s.
    @Test func theUsersAttributesHaveATotalBoundAndACallPastItChangesNothing() async {
        let process = await configured()
        func keys(_ range: Range<Int>) -> JSONValue {
            .object(JSONObject(uniqueKeysWithValues: range.map { ("k\($0)", JSONValue.int(Int64($0))) }))
        }
        for start in stride(from: 0, to: 9_000, by: 3_000) {
            #expect(
                await call(process, "setUserAttributes", ["attributes": keys(start..<(start + 3_000))])?["result"]
                    != nil
            )
        }
        let refused = await call(process, "setUserAttributes", ["attributes": keys(9_000..<12_000)])
        #expect(limit(refused) == Int64(ClientLimits.attributeTotalCount))
        #expect(refused?["error"]?["data"]?["path"] == "params.attributes")
        let stored = await call(process, "getUserAttributes")?["result"]?["attributes"]?.objectValue
        #expect(stored?["k8999"] != nil && stored?["k9000"] == nil)
        // Integration attributes become user attributes too: at the bound, one more is refused.
        let room = ClientLimits.attributeTotalCount - (stored?.count ?? 0)
        #expect(
            await call(process, "setUserAttributes", ["attributes": keys(20_000..<(20_000 + room))])?["result"] != nil
        )
        #expect(
            limit(await call(process, "setIntegrationAttributes", ["attributes": ["adjustId": "adj-1"]]))
                == Int64(ClientLimits.attributeTotalCount)
        )
        #expect(await call(process, "getIntegrationAttributes")?["result"]?["attributes"] == [:])
        // Removing makes room again.
        #expect(
            await call(process, "setUserAttributes", ["attributes": ["k0": nil, "k1": nil, "fits": true]])?["result"]
                != nil
        )
    }

    @Test func tooManyEntitlementsAreRefused() async {
        let process = await configured()
        let entitlements = JSONValue.array((0...ClientLimits.entitlementCount).map { ["id": .string("e\($0)")] })
        let reply = await call(
            process,
            "setSubscriptionStatus",
            ["status": ["type": "active", "entitlements": entitlements]]
        )
        #expect(limit(reply) == Int64(ClientLimits.entitlementCount))
    }

    @Test func configureRefusesAFlushIntervalOrRetryCountOutOfRange() async {
        let process = await bridgeProcess()
        for options: JSONValue in [
            ["eventFlushIntervalMs": 0], ["eventFlushIntervalMs": -5], ["maxConfigRetryCount": 1_000_000_000],
        ] {
            var merged = configureParams(temporaryDirectory())["options"]?.objectValue ?? [:]
            for (key, value) in options.objectValue ?? [:] { merged[key] = value }
            let reply = await call(process, "configure", ["apiKey": "pk_test", "options": .object(merged)])
            #expect(limit(reply) != nil, "\(options)")
        }
    }

    @Test func requiredFieldsAreRequiredAndAnUnknownEnvironmentIsRefused() async {
        let process = await configured()
        #expect(await call(process, "setDelegate", ["enabled": .null])?["error"]?["data"]?["path"] == "params.enabled")
        #expect(await call(process, "setInterfaceStyle", [:])?["error"]?["data"]?["path"] == "params.style")
        #expect(
            await call(process, "setLocaleIdentifier", [:])?["error"]?["data"]?["path"] == "params.localeIdentifier"
        )
        #expect(
            await call(process, "setInterfaceStyle", ["style": .null])?["result"] == [:],
            "null is the device's style"
        )
        let fresh = await bridgeProcess()
        let environment = await call(
            fresh,
            "configure",
            [
                "apiKey": "pk_test", "options": ["configSource": ["type": "embedded"], "networkEnvironment": "prod"],
            ]
        )
        #expect(environment?["error"]?["data"]?["path"] == "params.options.networkEnvironment")
    }

    @Test func aDataDirectoryWithANulIsRefused() async {
        let process = await bridgeProcess()
        let reply = await call(
            process,
            "configure",
            [
                "apiKey": "pk_test",
                "options": ["configSource": ["type": "embedded"], "dataDirectory": .string("/tmp/a\u{0}b")],
            ]
        )
        #expect(reply?["error"]?["data"]?["path"] == "params.options.dataDirectory")
        #expect(await call(process, "getConfigurationStatus")?["result"] == ["status": "pending"])
    }
}

@Suite struct GetPaywallOverridesTests {
    /// The embedded demo's `open_coach_chat` shows `coach-upsell-gated` to a new user.
    private func configured() async -> InProcessServer {
        let process = await bridgeProcess()
        _ = await call(process, "configure", configureParams(temporaryDirectory()))
        return process
    }

    @Test func productsByNameAndThePresentationStyleReachThePaywallHandedBack() async {
        let process = await configured()
        let reply = await call(
            process,
            "getPaywall",
            [
                "placement": "open_coach_chat",
                "overrides": [
                    "productsByName": ["primary": "com.pockettrainer.pro.annual"],
                    "presentationStyle": ["type": "fullscreenNoAnimation"],
                ],
            ]
        )
        let paywall = reply?["result"]?["paywall"]
        #expect(
            paywall?["products"]?.arrayValue?.first?["productIdentifier"] == "com.pockettrainer.pro.annual",
            "\(String(describing: reply))"
        )
        #expect(paywall?["presentationStyle"]?["type"] == "fullscreenNoAnimation")
        #expect(
            paywall?["info"]?["products"]?.arrayValue?.first?["productIdentifier"] == "com.pockettrainer.pro.annual"
        )
    }

    @Test func anUnknownOverrideAStyleOfNoKnownTypeAndAnUnknownProductAreRefused() async {
        let process = await configured()
        let unknownKey = await call(
            process,
            "getPaywall",
            ["placement": "open_coach_chat", "overrides": ["featureGating": "gated"]]
        )
        #expect(unknownKey?["error"]?["data"]?["path"] == "params.overrides.featureGating")
        let style = await call(
            process,
            "getPaywall",
            ["placement": "open_coach_chat", "overrides": ["presentationStyle": ["type": "sideways"]]]
        )
        #expect(style?["error"]?["data"]?["path"] == "params.overrides.presentationStyle.type")
        let product = await call(
            process,
            "getPaywall",
            ["placement": "open_coach_chat", "overrides": ["productsByName": ["primary": "com.nowhere"]]]
        )
        #expect(product?["error"]?["data"]?["kind"] == "productNotFound")
    }
}
