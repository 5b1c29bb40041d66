import Foundation
import JSONRPC
import Logging
import TestSupport
import Testing

@testable import BridgeServer

@Suite struct MethodTableTests {
    /// The requests a client may send, as `protocol/openrpc.json` lists them: its methods that
    /// are not the bridge's and not notifications; `built: false` gives those it marks
    /// `x-implemented: false` instead.
    private static func specifiedRequests(built: Bool = true) throws -> Set<String> {
        let spec = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().appendingPathComponent("protocol/openrpc.json")
        let document = try #require(try JSONSerialization.jsonObject(with: Data(contentsOf: spec)) as? [String: Any])
        let methods = try #require(document["methods"] as? [[String: Any]])
        return Set(
            methods.compactMap { method -> String? in
                let tags = (method["tags"] as? [[String: Any]] ?? []).compactMap { $0["name"] as? String }
                guard !tags.contains("bridge-to-client"), method["x-notification"] as? Bool != true,
                    (method["x-implemented"] as? Bool != false) == built
                else { return nil }
                return method["name"] as? String
            }
        )
    }

    /// What `initialize` advertises is the spec's list of requests, in both directions: the
    /// table is the one list of methods, and each of its `BridgeMethod`s names itself.
    @Test func initializeAdvertisesExactlyTheSpecsRequests() async throws {
        let specified = try Self.specifiedRequests()
        let (process, _) = bridge()
        let advertised = Set(
            await process.initialize()?["result"]?["methods"]?.arrayValue?.compactMap(\.stringValue) ?? []
        )
        #expect(
            advertised.subtracting(specified).isEmpty,
            "advertised, not in openrpc.json: \(advertised.subtracting(specified).sorted())"
        )
        #expect(
            specified.subtracting(advertised).isEmpty,
            "in openrpc.json, not advertised: \(specified.subtracting(advertised).sorted())"
        )
    }

    /// Every request of the spec reaches a method: whatever its params, it is never answered
    /// as unknown or not built.
    @Test(arguments: try specifiedRequests().subtracting(["initialize", "shutdown"]).sorted())
    func everySpecifiedRequestReachesAMethod(_ method: String) async {
        let (process, _) = bridge()
        await process.initialize()
        process.client.request(1, method, [:])
        let error = await process.client.next()?["error"]
        #expect(error?["code"] != -32601)
        #expect(error?["data"]?["kind"] != "notImplemented")
        #expect(error?["data"]?["kind"] != "methodNotFound")
    }

    /// The generated list of unbuilt methods is the spec's: each answers `notImplemented`.
    @Test func theMethodsTheSpecMarksUnbuiltAreTheOnesAnsweredNotImplemented() async throws {
        #expect(try Self.specifiedRequests(built: false) == MethodTable.unbuilt)
        for method in MethodTable.unbuilt {
            let (process, _) = bridge()
            await process.initialize()
            process.client.request(1, method, [:])
            let error = await process.client.next()?["error"]
            #expect(error?["code"] == -32601)
            #expect(error?["data"]?["kind"] == "notImplemented")
            #expect(error?["data"]?["method"] == .string(method))
        }
    }

    @Test func anUnknownMethodIsNotFound() async {
        let (process, _) = bridge()
        await process.initialize()
        process.client.request(1, "registr", [:])
        let error = await process.client.next()?["error"]
        #expect(error?["code"] == -32601)
        #expect(error?["data"]?["kind"] == "methodNotFound")
    }

    @Test func pingAnswersAnEmptyObject() async {
        let (process, _) = bridge()
        await process.initialize()
        process.client.request("p", "$/ping")
        #expect(await process.client.next()?["result"] == [:])
    }

    @Test func echoReturnsItsParamsUnchanged() async {
        let (process, _) = bridge()
        await process.initialize()
        let params: JSONValue = ["nested": ["a": [1, 2.5, "é", nil, true]], "big": .uint(.max)]
        process.client.request(1, "debug/echo", params)
        #expect(await process.client.next()?["result"] == params)
        process.client.request(2, "debug/echo", [1, 2])
        #expect(await process.client.next()?["result"] == [1, 2])
    }
}
