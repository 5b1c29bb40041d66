import Foundation
import Rules
import Testing

@testable import SuperwallCore

@Suite struct AudienceContextTests {
    private func configured(clock: FakeClock) async throws -> Superwall {
        let superwall = Superwall(clock: clock, random: CountingRandomSource())
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("audience-\(UUID().uuidString)")
            .path
        let outcome = try await superwall.configure(
            apiKey: "pk_test",
            options: Superwall.ConfigureOptions(
                configSource: EmbeddedConfigSource(),
                dataDirectory: directory,
                device: ["platform": "iOS"]
            )
        )
        #expect(outcome.status == .configured)
        return superwall
    }

    private func evaluate(_ source: String, _ context: AudienceContext) throws -> Value {
        try Program(source).evaluate(context).get()
    }

    @Test("rules read user attributes with isLoggedIn, the device template, and params or an empty string")
    func variables() async throws {
        let superwall = try await configured(clock: FakeClock())
        _ = try await superwall.setUserAttributes(["plan": .string("pro"), "beta": .string("true"), "credits": .int(3)])
        let withoutPlacement = try await superwall.audienceContext(params: nil)
        #expect(
            try evaluate(
                "user.plan == 'pro' && user.beta == true && user.credits < 5 && user.isLoggedIn == false",
                withoutPlacement
            ) == .bool(true)
        )
        #expect(try evaluate("device.platform == 'iOS' && params == ''", withoutPlacement) == .bool(true))
        let withPlacement = try await superwall.audienceContext(params: [
            "source": .string("settings"), "count": .int(2),
        ])
        #expect(try evaluate("params.source == 'settings' && params.count == '2'", withPlacement) == .bool(true))
        _ = try await superwall.identify(userId: "user-1")
        #expect(try evaluate("user.isLoggedIn", try await superwall.audienceContext(params: nil)) == .bool(true))
    }

    @Test("placement functions count the placement log within their windows and measure time since the last one")
    func placementFunctions() async throws {
        let clock = FakeClock()
        let superwall = try await configured(clock: clock)
        clock.advance(by: 3 * 86_400 + 120)
        let context = try await superwall.audienceContext(params: nil)
        #expect(try evaluate("device.placementsSinceInstall('app_launch')", context) == .int(1))
        #expect(try evaluate("computed.placementsInHour('app_launch')", context) == .int(0))
        #expect(try evaluate("placementsInWeek('app_launch')", context) == .int(1))
        #expect(try evaluate("device.daysSince('app_launch')", context) == .int(3))
        #expect(try evaluate("device.hoursSince('app_launch')", context) == .int(72))
        #expect(try evaluate("device.minutesSince('app_launch')", context) == .int(3 * 1440 + 2))
        #expect(try evaluate("device.daysSince('never_happened') == null", context) == .bool(true))
        #expect(try evaluate("device.daysSince('never_happened') > 1", context) == .null)
        #expect(try evaluate("device.daysSince(42)", context) == .null)
    }

    @Test("the placement functions read as members of device and computed, as Superscript declares them")
    func functionMembers() async throws {
        let context = try await configured(clock: FakeClock()).audienceContext(params: nil)
        #expect(
            try evaluate("has(device.daysSince) && has(computed.placementsInDay) && !has(computed.platform)", context)
                == .bool(true)
        )
        #expect(try evaluate("device.nothing.deep == null && computed.nothing('x') == ''", context) == .bool(true))
    }
}
