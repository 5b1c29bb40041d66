import Foundation
import JSONRPC
import Logging
import TestSupport
import Testing

@testable import BridgeServer

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
        let session = server.clientInfo
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
        #expect(server.clientInfo?.capabilities.purchaseController == false)
        #expect(server.clientInfo?.capabilities.delegate == true)
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
        #expect(server.clientInfo == nil)
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
        #expect(server.clientInfo == nil)
        process.client.request(2, "initialize", ["protocolVersion": "1.7"])
        #expect(await process.client.next()?["result"]?["protocolVersion"] == "1.0")
    }

    @Test func positionalInitializeParamsAreRefused() async {
        let (process, _) = bridge()
        process.client.request(1, "initialize", ["1.0"])
        #expect(await process.client.next()?["error"]?["code"] == -32602)
    }
}
