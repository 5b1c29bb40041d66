import BridgeServer
import Foundation
import JSONRPC
import Logging
import SuperwallCore
import TestSupport
import Testing

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

    /// SuperwallKit's five page capabilities, as its device template spells them; an Android
    /// session's are Superwall-Android's three, spelt its way.
    @Test func theDeviceTemplateListsThePageCapabilitiesAsEachSDKSpellsThem() async throws {
        let process = await bridgeProcess()
        _ = await call(process, "configure", configureParams(temporaryDirectory()))
        let device = await call(process, "getDeviceAttributes")?["result"]?["attributes"]
        #expect(
            device?["capabilities"]
                == "paywall_event_receiver,multiple_paywall_urls,config_refresh,webview_text_interaction,config_caching"
        )
        let config = try #require(device?["capabilitiesConfig"]?.arrayValue)
        #expect(
            config.map { $0["name"]?.stringValue }
                == device?["capabilities"]?.stringValue?.split(separator: ",").map(String.init)
        )
        #expect(config.first?["eventNames"]?.arrayValue?.count == 11)
        #expect(device?["localResourceIds"] == "")

        let android = await bridgeProcess()
        _ = await call(
            android,
            "configure",
            [
                "apiKey": "pk_test",
                "options": ["configSource": ["type": "embedded"], "dataDirectory": .string(temporaryDirectory())],
                "device": ["platform": "Android"],
            ]
        )
        let androidDevice = await call(android, "getDeviceAttributes")?["result"]?["attributes"]
        #expect(
            androidDevice?["capabilities"] == ["paywall_event_receiver", "multiple_paywall_urls", "config_caching"]
        )
        #expect(androidDevice?["capabilities_config"]?.arrayValue?.first?["type"] == "paywall_event_receiver")
        #expect(androidDevice?["capabilitiesConfig"] == nil)
    }

    /// The README's lifecycle: a call pipelined behind `configure` finds the session open, as
    /// `getUserId` does, though the config is still loading.
    @Test func deviceAttributesPipelinedBehindConfigureAnswerWhileTheConfigLoads() async {
        let transport = HeldTransport()
        let process = InProcessServer(
            handler: BridgeServer(logger: quietLogger(), logLevel: RecordingLogLevel(), httpTransport: transport)
        )
        process.client.request(0, "initialize", ["protocolVersion": "1.0", "capabilities": [:]])
        _ = await process.client.nextReply()
        let params: JSONValue = [
            "apiKey": "pk_test",
            "options": [
                "configSource": ["type": "http", "baseUrl": "http://127.0.0.1:9"], "maxConfigRetryCount": 0,
                "dataDirectory": .string(temporaryDirectory()),
            ],
            "device": ["platform": "iOS"],
        ]
        process.client.request(1, "configure", params)
        process.client.request(2, "getDeviceAttributes")
        let device = await process.client.nextReply()
        #expect(device?["id"] == 2)
        #expect(device?["result"]?["attributes"]?["platform"] == "iOS", "\(String(describing: device))")
        await transport.release()
        #expect(await process.client.nextReply()?["id"] == 1)
    }
}

/// A network that holds every request until `release()`, then fails them.
private actor HeldTransport: HTTPTransport {
    private var held: [CheckedContinuation<Void, Never>] = []
    private var released = false

    func send(_ attempt: HTTPAttempt) async throws -> HTTPOutcome {
        if !released { await withCheckedContinuation { held.append($0) } }
        throw URLError(.cannotConnectToHost)
    }

    func release() {
        released = true
        for waiting in held { waiting.resume() }
        held = []
    }
}
