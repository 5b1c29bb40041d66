import Foundation
import JSONRPC
import TestSupport
import Testing

@Suite struct ValidateCommandTests {
    /// The conformance suite's demo config, edited by `change` and written to a file.
    private func configFile(_ change: (inout [String: Any]) -> Void = { _ in }) throws -> String {
        let source = conformanceConfig("demo-holdout.json")
        var config = try #require(try JSONSerialization.jsonObject(with: Data(contentsOf: source)) as? [String: Any])
        change(&config)
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("validate-\(UUID().uuidString).json")
            .path
        try JSONSerialization.data(withJSONObject: config).write(to: URL(fileURLWithPath: path))
        return path
    }

    @Test func aValidConfigPrintsASummaryAndExitsZero() async throws {
        let path = try configFile()
        let result = try await runBridge(["validate", path])
        #expect(result.status == 0)
        #expect(result.stdout.contains("valid: build pt-conformance-holdout, 7 placements, 6 paywalls"))
        // A warning does not fail the file.
        #expect(
            result.stdout.contains(#"warning: placement "workout_shared" has no campaign: register always skips it"#)
        )
        #expect(result.stdout.hasSuffix(", 1 warning\n"))
    }

    @Test func everyProblemIsPrintedWithItsJSONPathAndTheExitIsOne() async throws {
        let path = try configFile { config in
            var triggers = config["trigger_options"] as! [[String: Any]]
            var rules = triggers[0]["rules"] as! [[String: Any]]
            rules[0]["expression_cel"] = "user.plan =="
            triggers[0]["rules"] = rules
            config["trigger_options"] = triggers
            config["products_v3"] = (config["products_v3"] as! [Any]) + [["no": "store_product"]]
        }
        let result = try await runBridge(["validate", path])
        #expect(result.status == 1)
        let lines = result.stdout.split(separator: "\n").map(String.init).filter { !$0.contains(": warning: ") }
        #expect(lines.count == 2)
        #expect(
            lines.contains {
                $0.hasPrefix("\(path):$.trigger_options[0].rules[0].expression_cel: the rule does not compile")
            }
        )
        #expect(lines.contains { $0.hasPrefix("\(path):$.products_v3[3]: dropped") })
    }

    @Test func aGooglePlayProductIsDroppedUnlessTheConfigIsReadForAndroid() async throws {
        let path = try configFile { config in
            let play: [String: Any] = [
                "store_product": [
                    "store": "PLAY_STORE", "product_identifier": "pro_sub", "base_plan_identifier": "monthly",
                    "offer": ["type": "AUTOMATIC"],
                ],
                "entitlements": [["identifier": "pro", "type": "SERVICE_LEVEL"]],
            ]
            config["products_v3"] = (config["products_v3"] as! [Any]) + [play]
        }
        let asIOS = try await runBridge(["validate", path])
        #expect(asIOS.status == 1)
        #expect(asIOS.stdout.contains("\(path):$.products_v3[3]: dropped"), "\(asIOS.stdout)")
        #expect(asIOS.stdout.contains("Google Play"))
        let asAndroid = try await runBridge(["validate", "--platform", "Android", path])
        #expect(asAndroid.status == 0, "\(asAndroid.stdout)")
        #expect(!asAndroid.stdout.contains("dropped"))
    }

    @Test func aMisspeltKeyIsAWarningNamingTheKeyMeantAndTheFileStaysValid() async throws {
        let path = try configFile { config in
            config["trigger_optoins"] = []
            var triggers = config["trigger_options"] as! [[String: Any]]
            var rules = triggers[0]["rules"] as! [[String: Any]]
            rules[0]["expresion_cel"] = rules[0].removeValue(forKey: "expression_cel") ?? "true"
            triggers[0]["rules"] = rules
            config["trigger_options"] = triggers
        }
        let result = try await runBridge(["validate", path])
        #expect(result.status == 0)
        #expect(
            result.stdout.contains(
                "\(path):$.trigger_optoins: warning: unknown key \"trigger_optoins\" is ignored; did you mean \"trigger_options\"?"
            )
        )
        #expect(
            result.stdout.contains(
                "\(path):$.trigger_options[0].rules[0].expresion_cel: warning: unknown key \"expresion_cel\" is ignored; did you mean \"expression_cel\"?"
            )
        )
    }

    @Test func aMisspeltRequiredKeyIsNamedInTheErrorAsTheKeyMeant() async throws {
        let path = try configFile { config in
            config["trigger_optoins"] = config.removeValue(forKey: "trigger_options")
            config["bulid_id"] = config.removeValue(forKey: "build_id")
        }
        let result = try await runBridge(["validate", path])
        #expect(result.status == 1)
        #expect(
            result.stdout
                == "\(path):$.build_id: is required but missing; the config has \"bulid_id\": did you mean \"build_id\"?\n",
            "\(result.stdout)"
        )
        let triggersOnly = try configFile { config in
            config["trigger_optoins"] = config.removeValue(forKey: "trigger_options")
        }
        let second = try await runBridge(["validate", triggersOnly])
        #expect(
            second.stdout.contains(
                "\(triggersOnly):$.trigger_options: is required but missing; the config has \"trigger_optoins\": did you mean \"trigger_options\"?"
            ),
            "\(second.stdout)"
        )
    }

    /// A file that is not JSON gets the line and column in plain words, not Foundation's
    /// "expected Array<Any>" with no position.
    @Test func aFileThatIsNotJSONGetsTheLineAndColumnInPlainWords() async throws {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("validate-\(UUID().uuidString).json")
            .path
        try Data("{\n  \"build_id\": \"b1\",\n  \"trigger_options\": [,]\n}\n".utf8).write(
            to: URL(fileURLWithPath: path)
        )
        let result = try await runBridge(["validate", path])
        #expect(result.status == 1)
        #expect(result.stdout.hasPrefix("\(path):3:23: not JSON: "), "\(result.stdout)")
        #expect(!result.stdout.contains("Array<Any>"))
    }

    /// jansson's message quotes the text where it failed: a token of a file that may hold secrets.
    @Test func aFileThatIsNotJSONIsNamedByPositionNeverByContent() async throws {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("secret-\(UUID().uuidString).env").path
        try Data("API_TOKEN=sk_live_0123456789\n".utf8).write(to: URL(fileURLWithPath: path))
        let validated = try await runBridge(["validate", path])
        #expect(validated.status == 1)
        #expect(validated.stdout.hasPrefix("\(path):1:"), "\(validated.stdout)")
        let evaluated = try await runBridge(["eval", "--context", path, "true"])
        #expect(evaluated.status != 0)
        #expect(evaluated.stderr.contains("line 1, column"), "\(evaluated.stderr)")
        for output in [validated.stdout, validated.stderr, evaluated.stdout, evaluated.stderr] {
            #expect(!output.contains("API_TOKEN") && !output.contains("sk_live"), "\(output)")
        }
    }

    @Test func aConfigThatDoesNotDecodeNamesThePathOfTheError() async throws {
        let path = try configFile { $0["build_id"] = 7 }
        let result = try await runBridge(["validate", path])
        #expect(result.status == 1)
        #expect(result.stdout == "\(path):$.build_id: expected a string\n")
    }

    @Test func aFileWithAByteOrderMarkIsValidAndAKeyWrittenTwiceIsAWarning() async throws {
        let path = try configFile()
        let text = try String(contentsOfFile: path, encoding: .utf8)
        let edited = "\u{FEFF}{\"build_id\": \"written first\"," + text.dropFirst()
        try edited.write(toFile: path, atomically: true, encoding: .utf8)
        let result = try await runBridge(["validate", path])
        #expect(result.status == 0, "\(result.stdout)")
        #expect(result.stdout.contains("valid: build pt-conformance-holdout"))
        #expect(result.stdout.contains("\(path):1:"))
        #expect(result.stdout.contains("warning: duplicate object key: of a key written twice the last is read"))
    }

    @Test func thousandsOfUnknownKeysPrintTheFirstFewHundredAndACount() async throws {
        let path = try configFile { config in
            for index in 0..<20_000 { config["unknown_\(index)"] = index }
        }
        let result = try await runBridge(["validate", path])
        #expect(result.status == 0)
        let warnings = result.stdout.split(separator: "\n").filter { $0.contains(": warning: ") }
        #expect(warnings.count <= 210)
        #expect(result.stdout.contains("19800 more unknown keys are ignored: only the first 200 are listed"))
    }
}

func conformanceConfig(_ name: String) -> URL {
    URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent(
        "../../protocol/conformance/configs/\(name)"
    )
}
