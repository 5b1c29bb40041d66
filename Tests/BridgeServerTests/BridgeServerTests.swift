import Foundation
import JSONRPC
import Logging
import TestSupport
import Testing

@testable import BridgeServer

/// Remembers the levels `setLogLevel` asked for.
final class RecordingLogLevel: LogLevelControl, @unchecked Sendable {
    private let lock = NSLock()
    private var recorded: [Logger.Level] = []
    func setLevel(_ level: Logger.Level) { lock.withLock { recorded.append(level) } }
    var levels: [Logger.Level] { lock.withLock { recorded } }
}

func quietLogger() -> Logger {
    var logger = Logger(label: "bridge-tests")
    logger.logLevel = .critical
    return logger
}

private func bridge() -> (InProcessServer, BridgeServer) {
    let server = BridgeServer(logger: quietLogger(), logLevel: RecordingLogLevel())
    return (InProcessServer(handler: server), server)
}

@Suite struct InitializeTests {
    @Test func initializeAnswersTheServerAndTheMethodsItProvides() async {
        let (process, _) = bridge()
        let reply = await process.initialize()
        let result = reply?["result"]
        #expect(result?["protocolVersion"] == .string(BridgeServer.protocolVersion))
        #expect(result?["server"] == ["name": "superwall-bridge", "version": .string(BridgeServer.version)])
        #expect(result?["sdkVersion"] == "4.16.4")
        let methods = result?["methods"]?.arrayValue?.compactMap(\.stringValue) ?? []
        #expect(methods.contains("initialize"))
        #expect(methods.contains("$/ping"))
        #expect(methods.contains("debug/echo"))
        #expect(methods.contains("configure"))
        #expect(methods.contains("register"))
        #expect(methods.contains("purchase"))
        #expect(methods.contains("getCustomerInfo"))
        #expect(methods.contains("handleDeepLink"))
        #expect(methods.contains("refreshConfiguration"))
        // Every method of the contract is built and advertised.
        #expect(
            Set(MethodTable.contract).subtracting(methods).isEmpty,
            "\(Set(MethodTable.contract).subtracting(methods))"
        )
    }

    @Test func initializeRecordsTheClientsCapabilities() async {
        let (process, server) = bridge()
        process.client.request(
            1,
            "initialize",
            [
                "protocolVersion": "1.0",
                "client": ["name": "flutter-wrapper", "version": "2.0.0"],
                "capabilities": [
                    "purchaseController": true, "paywallPresenter": false, "customCallbacks": true, "delegate": true,
                ],
            ]
        )
        #expect(await process.client.next()?["result"] != nil)
        let session = server.clientSession
        #expect(session?.clientName == "flutter-wrapper")
        #expect(session?.clientVersion == "2.0.0")
        #expect(session?.capabilities.purchaseController == true)
        #expect(session?.capabilities.paywallPresenter == false)
        #expect(session?.capabilities.customCallbacks == true)
        #expect(session?.capabilities.delegate == true)
    }

    /// A misspelt capability was accepted without a word, leaving the capability off.
    @Test func anUnknownCapabilityIsAnsweredAsAWarningNamingTheNearestOne() async {
        let (process, server) = bridge()
        process.client.request(
            1,
            "initialize",
            [
                "protocolVersion": "1.0",
                "capabilities": ["purchaseControler": true, "delegate": true, "teleporter": true],
            ]
        )
        let warnings = await process.client.next()?["result"]?["warnings"]?.arrayValue ?? []
        #expect(
            warnings.map { $0["path"] } == ["params.capabilities.purchaseControler", "params.capabilities.teleporter"]
        )
        #expect(warnings.first?["message"]?.stringValue?.hasSuffix("Did you mean purchaseController?") == true)
        #expect(warnings.last?["message"]?.stringValue?.contains("Did you mean") == false)
        #expect(server.clientSession?.capabilities.purchaseController == false)
        #expect(server.clientSession?.capabilities.delegate == true)
    }

    @Test(
        arguments: [
            (JSONValue.object([:]), "params.protocolVersion"),
            (JSONValue(dictionaryLiteral: ("protocolVersion", 1)), "params.protocolVersion"),
            (
                ["protocolVersion": "1.0", "capabilities": ["delegate": "yes"]] as JSONValue,
                "params.capabilities.delegate"
            ),
            (["protocolVersion": "1.0", "client": "me"] as JSONValue, "params.client"),
        ] as [(JSONValue, String)]
    )
    func badInitializeParamsNameTheField(_ params: JSONValue, _ path: String) async {
        let (process, server) = bridge()
        process.client.request(1, "initialize", params)
        let reply = await process.client.next()
        #expect(reply?["error"]?["code"] == -32602)
        #expect(reply?["error"]?["data"]?["kind"] == "invalidParams")
        #expect(reply?["error"]?["data"]?["path"] == .string(path))
        #expect(server.clientSession == nil)
        // The failure leaves the gate closed, and a corrected initialize opens it.
        process.client.request(2, "$/ping")
        #expect(await process.client.next()?["error"]?["code"] == -32002)
        #expect(await process.initialize()?["result"] != nil)
    }

    @Test func anotherMajorProtocolVersionIsRefusedAndAnyMinorOfOursAccepted() async {
        let (process, server) = bridge()
        process.client.request(1, "initialize", ["protocolVersion": "2.0"])
        let reply = await process.client.next()
        #expect(reply?["error"]?["code"] == -32602)
        #expect(reply?["error"]?["data"]?["kind"] == "unsupportedProtocolVersion")
        #expect(reply?["error"]?["data"]?["supported"] == "1.0")
        #expect(server.clientSession == nil)
        process.client.request(2, "initialize", ["protocolVersion": "1.7"])
        #expect(await process.client.next()?["result"]?["protocolVersion"] == "1.0")
    }

    @Test func positionalInitializeParamsAreRefused() async {
        let (process, _) = bridge()
        process.client.request(1, "initialize", ["1.0"])
        #expect(await process.client.next()?["error"]?["code"] == -32602)
    }
}

@Suite struct MethodTableTests {
    /// The requests a client may send, as `protocol/openrpc.json` lists them: its methods that
    /// are not the bridge's and not notifications.
    private static func specifiedRequests() throws -> Set<String> {
        let spec = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().appendingPathComponent("protocol/openrpc.json")
        let document = try #require(try JSONSerialization.jsonObject(with: Data(contentsOf: spec)) as? [String: Any])
        let methods = try #require(document["methods"] as? [[String: Any]])
        return Set(
            methods.compactMap { method -> String? in
                let tags = (method["tags"] as? [[String: Any]] ?? []).compactMap { $0["name"] as? String }
                guard !tags.contains("bridge-to-client"), method["x-notification"] as? Bool != true else { return nil }
                return method["name"] as? String
            }
        )
    }

    /// The three lists of methods agree: the spec's, the contract's and what `initialize`
    /// advertises, in both directions.
    @Test func initializeAdvertisesExactlyTheSpecsRequestsAndTheContractNamesThemAll() async throws {
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
        let lifecycle: Set = ["initialize", "shutdown", "$/ping", "debug/echo"]
        #expect(
            Set(MethodTable.contract) == specified.subtracting(lifecycle),
            "contract and openrpc.json differ: \(Set(MethodTable.contract).symmetricDifference(specified.subtracting(lifecycle)).sorted())"
        )
    }

    /// A contract method `initialize` does not advertise answers `notImplemented`; one it
    /// advertises never does.
    @Test(arguments: MethodTable.contract)
    func everyContractMethodIsEitherAdvertisedOrSaysItIsNotBuilt(_ method: String) async {
        let (process, _) = bridge()
        let advertised = await process.initialize()?["result"]?["methods"]?.arrayValue?.compactMap(\.stringValue) ?? []
        process.client.request(1, method, [:])
        let error = await process.client.next()?["error"]
        if advertised.contains(method) {
            #expect(error?["data"]?["kind"] != "notImplemented")
        } else {
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

@Suite struct BridgeSpecConformanceTests {
    /// The bridge has none of the spec's example methods, so each example must be answered as
    /// `expect_if_methods_absent` says (or `expect`, for method-independent ones).
    @Test(arguments: try SpecExample.all())
    func specExampleIsAnsweredWithTheBridgesMethodSet(_ example: SpecExample) async {
        let (process, _) = bridge()
        await process.initialize()
        #expect(await example.check(against: process.client, methodsPresent: false) == nil, "\(example.name)")
    }
}

/// A `shutdown` and the end of input after it each waited 2 s for a failing collector: 4 s
/// where the documentation says 2.
@Suite struct SessionEndTests {
    @Test func theFlushesOfASessionsEndShareOneBudget() {
        let end = SessionEnd()
        let start = ContinuousClock.now
        #expect(end.remainingFlushTime(at: start) == SessionEnd.flushLimit)
        #expect(end.remainingFlushTime(at: start + .milliseconds(1_500)) == .milliseconds(500))
        #expect(end.remainingFlushTime(at: start + SessionEnd.flushLimit) == nil)
        #expect(end.remainingFlushTime(at: start + .seconds(10)) == nil)
    }
}
