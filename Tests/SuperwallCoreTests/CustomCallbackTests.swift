import Foundation
import TestSupport
import Testing

@testable import SuperwallCore

@Suite struct CustomCallbackTests {
    @Test func theHandlersAnswerIsReturnedToThePaywall() async throws {
        let handler = RecordingHandler(handlesCustomCallbacks: true) { callback in
            CustomCallbackResult(
                status: .success,
                data: ["echo": callback.variables["code"] ?? .null, "name": .string(callback.name)]
            )
        }
        let (harness, shown, register) = try await showing("nongated", handler: handler)
        let result = try await harness.superwall.perform(
            .requestCallback(CustomCallback(name: "validate", variables: ["code": "SUMMER"], isBlocking: true)),
            inSession: shown.sessionId
        )
        #expect(
            result == .callback(CustomCallbackResult(status: .success, data: ["echo": "SUMMER", "name": "validate"]))
        )
        try await harness.superwall.dismiss()
        _ = try await register.value
    }

    @Test func aHandlerFailureIsPassedOn() async throws {
        let handler = RecordingHandler(handlesCustomCallbacks: true) { _ in
            CustomCallbackResult(status: .failure, data: ["reason": "nope"])
        }
        let (harness, shown, _) = try await showing("nongated", handler: handler)
        let result = try await harness.superwall.perform(
            .requestCallback(CustomCallback(name: "x", variables: [:], isBlocking: false)),
            inSession: shown.sessionId
        )
        #expect(result == .callback(CustomCallbackResult(status: .failure, data: ["reason": "nope"])))
        try await harness.superwall.dismiss()
    }

    @Test func withoutACustomCallbackHandlerTheAnswerIsFailureAtOnce() async throws {
        let (harness, shown, _) = try await showing(
            "nongated",
            handler: RecordingHandler(handlesCustomCallbacks: false)
        )
        let result = try await harness.superwall.perform(
            .requestCallback(CustomCallback(name: "x", variables: [:], isBlocking: true)),
            inSession: shown.sessionId
        )
        #expect(result?.callbackResult?.status == .failure)
        try await harness.superwall.dismiss()
    }

    @Test func anUnansweredCallbackFailsAtItsDeadline() async throws {
        var timeouts = Superwall.Timeouts()
        timeouts.customCallback = .milliseconds(100)
        let handler = RecordingHandler(handlesCustomCallbacks: true) { _ in
            try? await Task.sleep(for: .seconds(3600))
            return CustomCallbackResult(status: .success)
        }
        let (harness, shown, _) = try await showing("nongated", handler: handler, timeouts: timeouts)
        let (result, elapsed) = try await measuredOffThePool {
            try await harness.superwall.perform(
                .requestCallback(CustomCallback(name: "slow", variables: [:], isBlocking: true)),
                inSession: shown.sessionId
            )
        }
        #expect(result?.callbackResult?.status == .failure)
        #expect(result?.callbackResult?.data?["error"]?.stringValue?.contains("not answered") == true)
        #expect(elapsed < .seconds(20), "the handler would answer after an hour")
        // The session goes on.
        #expect(await harness.superwall.openSessionId == shown.sessionId)
        try await harness.superwall.dismiss()
    }
}
