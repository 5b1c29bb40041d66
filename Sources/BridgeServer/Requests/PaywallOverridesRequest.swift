import JSONRPC
import SuperwallCore

extension Params {
    /// `{name: productIdentifier}`, each a non-empty string (`paywalls.overrideProductsByName`,
    /// `getPaywall`'s `overrides.productsByName`).
    func productsByName(_ key: String) throws(RPCError) -> [String: String] {
        guard let overrides = try optionalObject(key) else { return [:] }
        var byName: [String: String] = [:]
        for name in overrides.members.keys {
            guard let identifier = try overrides.optionalString(name), !identifier.isEmpty else {
                throw RPCError.invalidParams(
                    "\(overrides.path(of: name)) must be a product identifier.",
                    details: ["path": .string(overrides.path(of: name))]
                )
            }
            try ClientLimits.check(name, at: overrides.path(of: name), atMost: ClientLimits.nameBytes)
            try ClientLimits.check(identifier, at: overrides.path(of: name), atMost: ClientLimits.nameBytes)
            byName[name] = identifier
        }
        return byName
    }
}

extension PaywallOverrides {
    /// `getPaywall`'s `overrides: {productsByName?, presentationStyle?}`. An unknown member is
    /// refused rather than ignored: an override that silently does nothing would show the
    /// wrong paywall.
    init(_ params: Params) throws(RPCError) {
        let known: Set = ["productsByName", "presentationStyle"]
        if let unknown = params.members.keys.sorted().first(where: { !known.contains($0) }) {
            throw RPCError.invalidParams(
                "\(params.path(of: unknown)) is not an override (productsByName, presentationStyle).",
                details: ["path": .string(params.path(of: unknown))]
            )
        }
        self.init(
            productsByName: try params.productsByName("productsByName"),
            presentationStyle: try params.optionalObject("presentationStyle").map(PresentationStyle.init(wire:))
        )
    }
}

extension PresentationStyle {
    /// The wire's `{type, height?, width?, cornerRadius?}` (SuperwallKit's
    /// `PaywallPresentationStyle` cases: `modal`, `fullscreen`, `fullscreenNoAnimation`, `push`,
    /// `drawer`, `popup`, `none`).
    init(wire params: Params) throws(RPCError) {
        let type = try params.string("type")
        guard let kind = Kind.allCases.first(where: { $0.wireName == type }) else {
            throw RPCError.invalidParams(
                "\(params.path(of: "type")) must be one of \(Kind.allCases.map(\.wireName).joined(separator: ", ")).",
                details: ["path": .string(params.path(of: "type"))]
            )
        }
        self.init(
            kind: kind,
            height: try params.optionalDouble("height"),
            width: try params.optionalDouble("width"),
            cornerRadius: try params.optionalDouble("cornerRadius")
        )
    }
}

extension PresentationStyle.Kind {
    /// SuperwallKit's case name: `FULLSCREEN` → `fullscreen`, `NO_ANIMATION` → `fullscreenNoAnimation`.
    var wireName: String {
        self == .noAnimation ? "fullscreenNoAnimation" : camelCase(rawValue)
    }
}
