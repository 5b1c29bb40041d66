import BridgeServer
import Foundation
import JSONRPC
import Logging
import TestSupport
import Testing

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
