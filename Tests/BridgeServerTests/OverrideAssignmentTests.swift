import JSONRPC
import TestSupport
import Testing

/// `debug/overrideAssignment`: a chosen variant, held as a server assignment holds it.
@Suite struct OverrideAssignmentTests {
    private static func configured() async -> InProcessServer {
        let process = await bridgeProcess()
        _ = await call(process, "configure", configureParams(temporaryDirectory()))
        return process
    }

    private static func variant(of experiment: String, in process: InProcessServer) async -> JSONValue? {
        let assignments = await call(process, "getAssignments")?["result"]?["assignments"]?.arrayValue ?? []
        return assignments.first { $0["experimentId"] == .string(experiment) }
    }

    @Test func theForcedVariantIsConfirmedAndDecidesThePlacement() async {
        let process = await Self.configured()
        for variant in ["3002", "3001", "3002"] {
            let answer = await call(
                process,
                "debug/overrideAssignment",
                ["experimentId": "2001", "variantId": .string(variant)]
            )?["result"]
            #expect(answer?["assignment"]?["variant"]?["id"] == .string(variant))
            let stored = await Self.variant(of: "2001", in: process)
            #expect(stored?["variant"]?["id"] == .string(variant))
            #expect(stored?["isSentToServer"] == true)
            let result = await call(process, "getPresentationResult", ["placement": "onboarding_complete"])?["result"]
            #expect(result?["experiment"]?["variant"]?["id"] == .string(variant))
        }
    }

    @Test func anExperimentOrVariantTheConfigLacksIsInvalidParamsNamingIt() async {
        let process = await Self.configured()
        let before = await Self.variant(of: "2001", in: process)
        let experiment = await call(
            process,
            "debug/overrideAssignment",
            ["experimentId": "9999", "variantId": "3001"]
        )?["error"]
        #expect(experiment?["code"] == -32602)
        #expect(experiment?["data"]?["kind"] == "invalidParams")
        #expect(experiment?["data"]?["path"] == "params.experimentId")
        let variant = await call(
            process,
            "debug/overrideAssignment",
            ["experimentId": "2001", "variantId": "3003"]
        )?["error"]
        #expect(variant?["code"] == -32602)
        #expect(variant?["data"]?["path"] == "params.variantId")
        #expect(variant?["message"]?.stringValue?.contains("3001, 3002") == true)
        #expect(await Self.variant(of: "2001", in: process) == before)
    }

    @Test func beforeConfigureItIsNotConfigured() async {
        let process = await bridgeProcess()
        let error = await call(
            process,
            "debug/overrideAssignment",
            ["experimentId": "2001", "variantId": "3001"]
        )?["error"]
        #expect(error?["code"] == -32001)
    }
}
