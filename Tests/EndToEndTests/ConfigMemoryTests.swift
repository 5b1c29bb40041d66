import Foundation
import JSONRPC
import TestSupport
import Testing

/// A config of `paywalls` paywalls (each with its own 1 KB of page substitutions and three
/// products) and one placement per two paywalls: the shape of a large real app's config.
private func largeConfig(paywalls: Int) -> String {
    var text =
        #"{"build_id":"mem","log_level":10,"app_session_timeout_ms":3600000,"toggles":[],"#
        + #""disable_preload":{"all":false,"triggers":[]},"localization":{"locales":[]},"trigger_options":["#
    for placement in 0..<(paywalls / 2) {
        if placement > 0 { text += "," }
        text +=
            #"{"event_name":"placement_\#(placement)","rules":[{"experiment_id":"\#(placement)","experiment_group_id":"g\#(placement)","#
            + #""expression_cel":"user.level > \#(placement % 10)","preload":{"behavior":"IF_TRUE"},"variants":["#
            + #"{"variant_id":"\#(placement)-a","variant_type":"TREATMENT","percentage":50,"paywall_identifier":"paywall-\#(2 * placement)"},"#
            + #"{"variant_id":"\#(placement)-b","variant_type":"TREATMENT","percentage":50,"paywall_identifier":"paywall-\#(2 * placement + 1)"}]}]}"#
    }
    text += #"],"paywall_responses":["#
    for paywall in 0..<paywalls {
        if paywall > 0 { text += "," }
        let substitutions = String(repeating: "Benefit \(paywall) of this plan. ", count: 32)
        let products = (0..<3).map {
            #"{"reference_name":"p\#($0)","store_product":{"store":"APP_STORE","product_identifier":"com.example.memory.product\#(paywall % 50)"},"entitlements":[{"identifier":"pro","type":"SERVICE_LEVEL"}]}"#
        }
        text +=
            #"{"id":"\#(paywall)","identifier":"paywall-\#(paywall)","name":"Paywall \#(paywall)","cache_key":"k\#(paywall)","build_id":"mem","#
            + #""url":"https://paywalls.example.com/\#(paywall)","url_config":{"endpoints":[{"url":"https://paywalls.example.com/\#(paywall)","timeout_ms":15000,"percentage":100}],"max_attempts":3},"#
            + #""paywalljs_event":"\#(substitutions)","presentation_style_v3":{"type":"MODAL"},"presentation_delay":0,"#
            + ##""background_color_hex":"#FFFFFF","products_v2":[\##(products.joined(separator: ","))]}"##
    }
    return text + #"],"products_v3":[]}"#
}

/// The process's peak resident memory, in bytes.
private func peakMemory(of pid: pid_t) throws -> Int {
    let status = try String(contentsOfFile: "/proc/\(pid)/status", encoding: .utf8)
    let line = try #require(status.split(separator: "\n").first { $0.hasPrefix("VmHWM:") })
    return try #require(Int(line.split(separator: " ", omittingEmptySubsequences: true)[1])) * 1024
}

/// The peak memory of a bridge configured with `source`.
private func peakAfterConfiguring(_ source: JSONValue) async throws -> Int {
    let bridge = try BridgeProcess()
    await bridge.initialize()
    let directory = FileManager.default.temporaryDirectory.appendingPathComponent("memory-\(UUID().uuidString)").path
    bridge.client.request(
        1,
        "configure",
        ["apiKey": "pk_memory", "options": ["configSource": source, "dataDirectory": .string(directory)]]
    )
    #expect(await bridge.client.nextReply()?["result"]?["configurationStatus"] == "configured")
    return try peakMemory(of: bridge.pid)
}

@Suite struct ConfigMemoryTests {
    /// Measured against a bridge configured with the small embedded config, so that what
    /// every `configure` costs (SQLite, threads) does not count against the file.
    @Test func aConfigFilePeaksAtUnderThreeTimesItsSizeAboveASmallConfigure() async throws {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("large-\(UUID().uuidString).json").path
        let text = largeConfig(paywalls: 8000)
        try text.write(toFile: path, atomically: true, encoding: .utf8)
        defer { try? FileManager.default.removeItem(atPath: path) }
        let size = text.utf8.count
        let small = try await peakAfterConfiguring(["type": "embedded"])
        let large = try await peakAfterConfiguring(["type": "file", "path": .string(path)])
        let ratio = Double(large - small) / Double(size)
        #expect(ratio < 3, "peak \(large >> 20) MiB against \(small >> 20) MiB for a \(size >> 20) MiB file: \(ratio)x")
    }
}
