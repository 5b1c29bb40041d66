import Foundation

extension Superwall {
    /// SuperwallKit's `overrideProductsByName`: each paywall product whose name the option
    /// lists is replaced by the product with the given identifier, which the page, the
    /// paywall's info and the purchase then all see. The replacement must be known, from the
    /// config's catalogue or the host's store; an unknown one leaves the paywall's own
    /// product, as SuperwallKit keeps it when StoreKit does not find the override.
    func overridingProducts(_ loaded: LoadedPaywall) -> LoadedPaywall {
        guard let overrides = session?.overrideProductsByName, !overrides.isEmpty else { return loaded }
        var paywall = loaded.paywall
        paywall.products = paywall.products.map { product in
            guard let name = product.referenceName, let identifier = overrides[name],
                  let replacement = knownProduct(identifier) else { return product }
            return Product(referenceName: name, storeProduct: replacement.storeProduct, compositeId: nil,
                           entitlements: replacement.entitlements, storeDetails: replacement.storeDetails)
        }
        return LoadedPaywall(paywall: paywall, presentationId: loaded.presentationId, locale: loaded.locale)
    }

    /// The product with this store identifier in the config's catalogue, else an App Store
    /// product the host's store described (with no entitlements: the config maps none to it).
    private func knownProduct(_ identifier: String) -> Product? {
        if let listed = session?.config?.products.first(where: { $0.storeProduct.productIdentifier == identifier }) {
            return listed
        }
        guard session?.storeDetails[identifier] != nil else { return nil }
        return Product(referenceName: nil, storeProduct: .appStore(productIdentifier: identifier, billingPlanType: nil),
                       compositeId: nil, entitlements: [])
    }
}
