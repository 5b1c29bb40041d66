import Foundation

/// SuperwallKit's `PaywallOverrides` for one `getPaywall`: products by name (a paywall
/// product's name to the store identifier sold in its place, over the configure option's), and
/// a presentation style (`.none` keeps the paywall's).
public struct PaywallOverrides: Sendable, Equatable {
    public var productsByName: [String: String]
    public var presentationStyle: PresentationStyle?

    public init(productsByName: [String: String] = [:], presentationStyle: PresentationStyle? = nil) {
        self.productsByName = productsByName
        self.presentationStyle = presentationStyle
    }
}

extension Superwall {
    /// SuperwallKit's `overrideProductsByName`, then a call's `PaywallOverrides`: each paywall
    /// product whose name they list is replaced by the product with the given identifier,
    /// which the page, the paywall's info and the purchase then all see; the call's
    /// presentation style replaces the paywall's. The option's replacement must be known, from
    /// the config's catalogue or the host's store; an unknown one leaves the paywall's own
    /// product, as SuperwallKit keeps it when StoreKit does not find the override (a call's
    /// unknown one is refused before anything runs).
    func overridingProducts(_ loaded: LoadedPaywall, with call: PaywallOverrides? = nil) -> LoadedPaywall {
        var overrides = session?.overrideProductsByName ?? [:]
        overrides.merge(call?.productsByName ?? [:]) { _, call in call }
        var paywall = loaded.paywall
        if let style = call?.presentationStyle, style.kind != .none { paywall.presentationStyle = style }
        paywall.products = paywall.products.map { product in
            guard let name = product.referenceName, let identifier = overrides[name],
                let replacement = knownProduct(identifier)
            else { return product }
            return Product(
                referenceName: name,
                storeProduct: replacement.storeProduct,
                compositeId: nil,
                entitlements: replacement.entitlements,
                storeDetails: replacement.storeDetails
            )
        }
        var changed = loaded
        changed.paywall = paywall
        return changed
    }

    /// The product with this store identifier in the config's catalogue, else an App Store
    /// product the host's store described (with no entitlements: the config maps none to it).
    func knownProduct(_ identifier: String) -> Product? {
        if let listed = session?.config?.products.first(where: { $0.storeProduct.productIdentifier == identifier }) {
            return listed
        }
        guard session?.storeDetails[identifier] != nil else { return nil }
        return Product(
            referenceName: nil,
            storeProduct: .appStore(productIdentifier: identifier, billingPlanType: nil),
            compositeId: nil,
            entitlements: []
        )
    }
}
