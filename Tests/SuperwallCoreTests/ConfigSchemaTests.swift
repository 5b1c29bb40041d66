import Foundation
import Testing

@testable import SuperwallCore

/// protocol/config.schema.json against the decoders: each object of the schema lists exactly
/// the keys its decoder reads (with those the Superwall API sends that nothing reads), so an
/// editor's completion and the bridge's "unknown key" warnings agree.
@Suite struct ConfigSchemaTests {
    /// The names of the properties of the schema object at `pointer` (`$defs/paywall`, or ""
    /// for the root).
    private func properties(at pointer: String) throws -> Set<String> {
        let url = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().appendingPathComponent("protocol/config.schema.json")
        var node: Any? = try JSONSerialization.jsonObject(with: Data(contentsOf: url))
        for part in pointer.split(separator: "/") { node = (node as? [String: Any])?[String(part)] }
        return Set(((node as? [String: Any])?["properties"] as? [String: Any])?.keys.map { $0 } ?? [])
    }

    private static let decoders: [(pointer: String, names: [String])] = [
        ("", ConfigHeader.Keys.names),
        ("$defs/trigger", Trigger.Keys.names),
        ("$defs/audience", Audience.Keys.names),
        ("$defs/occurrence", Occurrence.Keys.names),
        ("$defs/occurrence/properties/interval", Occurrence.IntervalKeys.names),
        ("$defs/computedProperty", ComputedPropertyRequest.Keys.names),
        ("$defs/preload", Preload.Keys.names),
        ("$defs/variant", Variant.Keys.names),
        ("$defs/preloadingDisabled", PreloadingDisabled.Keys.names),
        ("$defs/attributionOptions", AttributionOptions.Keys.names),
        ("$defs/web2appConfig", Web2AppConfig.Keys.names),
        ("$defs/testModeUserId", TestModeUserId.Keys.names),
        ("$defs/paywall", Paywall.Keys.names),
        ("$defs/urlConfig", Paywall.URLConfig.Keys.names),
        ("$defs/endpoint", Paywall.URLConfig.Endpoint.Keys.names),
        ("$defs/presentationStyle", PresentationStyle.Keys.names),
        ("$defs/localNotification", LocalNotification.Keys.names),
        ("$defs/product", Product.Keys.names),
        ("$defs/storeProduct", StoreProduct.Keys.names),
        ("$defs/survey", Survey.Keys.names),
        ("$defs/surveyOption", Survey.Option.Keys.names),
    ]

    @Test(arguments: decoders.map(\.pointer))
    func eachObjectOfTheSchemaListsTheKeysItsDecoderReads(pointer: String) throws {
        let names = try #require(Self.decoders.first { $0.pointer == pointer }).names
        #expect(try properties(at: pointer) == Set(names), "\(pointer.isEmpty ? "the root" : pointer)")
    }
}
