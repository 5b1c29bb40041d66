import BridgeServer
import Foundation
import JSONRPC
import Logging
import TestSupport
import Testing

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

    /// A misplaced `configSource` is refused, naming where it belongs, rather than ignored (the
    /// bridge would fetch from the Superwall API instead, 68 s to fail without a network).
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

    /// SuperwallKit's alert options, as a wrapper passes them; a misspelt member of one warns.
    @Test func theAlertOptionsAreTakenAndTheirTextReachesConfigAttributes() async {
        let process = await bridgeProcess(delegate: true)
        var notifications: [JSONValue] = []
        let result = await call(
            process,
            "configure",
            [
                "apiKey": "pk_test",
                "options": [
                    "configSource": ["type": "embedded"], "dataDirectory": .string(temporaryDirectory()),
                    "paywalls": [
                        "restoreFailed": ["title": "Kein Abo gefunden", "closeButtonTitel": "OK"],
                        "shouldShowWebRestorationAlert": false, "shouldShowWebPurchaseConfirmationAlert": false,
                    ],
                ],
            ],
            notifications: &notifications
        )?["result"]
        #expect(result?["configurationStatus"] == "configured")
        #expect(
            result?["warnings"]?.arrayValue?.compactMap { $0["path"]?.stringValue } == [
                "params.options.paywalls.restoreFailed.closeButtonTitel"
            ]
        )
        _ = await call(process, "flushEvents", notifications: &notifications)
        let attributes = notifications.first { $0["params"]?["event"]?["name"] == "config_attributes" }
        let params = attributes?["params"]?["params"]
        #expect(params?["restoreTitle"] == "Kein Abo gefunden", "\(String(describing: attributes))")
        #expect(params?["restoreCloseButtonTitle"] == "Okay")
        #expect(params?["shouldShowWebPurchaseConfirmationAlert"] == false)
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

    @Test func thousandsOfUnknownKeysAnswerTheFirstFewHundredAndACount() async {
        let process = await bridgeProcess()
        var options: JSONObject = [
            "configSource": ["type": "embedded"], "dataDirectory": .string(temporaryDirectory()),
        ]
        for index in 0..<5_000 { options["unknown\(index)"] = .int(Int64(index)) }
        let result = await call(process, "configure", ["apiKey": "pk_test", "options": .object(options)])?["result"]
        #expect(result?["configurationStatus"] == "configured")
        let warnings = result?["warnings"]?.arrayValue ?? []
        #expect(warnings.count == 201)
        #expect(
            warnings.last?["message"]
                == "4800 more keys configure does not know were ignored: only the first 200 are listed."
        )
    }

    @Test func aConfigKeyNoDecoderReadsIsAWarningOfTheConfigure() async throws {
        let directory = temporaryDirectory()
        let file = URL(fileURLWithPath: directory).appendingPathComponent("config.json")
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        var config = try demoConfigObject()
        config["trigger_optoins"] = []
        try JSONSerialization.data(withJSONObject: config).write(to: file)
        let process = await bridgeProcess()
        let result = await call(
            process,
            "configure",
            [
                "apiKey": "pk_test",
                "options": [
                    "configSource": ["type": "file", "path": .string(file.path)],
                    "dataDirectory": .string(directory + "/data"),
                ],
            ]
        )?["result"]
        #expect(result?["configurationStatus"] == "configured")
        #expect(
            result?["warnings"] == [
                [
                    "path": "$.trigger_optoins",
                    "message": "unknown key \"trigger_optoins\" is ignored; did you mean \"trigger_options\"?",
                ]
            ]
        )
    }
}
