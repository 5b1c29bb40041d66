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

/// The products a session sells: the config's, with what the host's store says of them
/// (`setStoreProducts`), and the replacements by name that `configure`'s
/// `overrideProductsByName` and a `getPaywall`'s overrides ask for.
extension Superwall.Session {
    /// The config's products (`products_v3`), then those only its paywalls list
    /// (`products_v2`), each once and with its store details; only the ones named by
    /// `identifiers` (product id or store identifier) when given. Unknown names are left out,
    /// as a store leaves out products it does not sell.
    func products(named identifiers: [String]?) -> [Product] {
        guard let config = self.config else { return [] }
        var seen: Set<String> = []
        var products: [Product] = []
        for product in config.products + config.paywalls.flatMap(\.products) where seen.insert(product.id).inserted {
            guard identifiers.map({ $0.contains(where: product.isNamed) }) ?? true else { continue }
            var listed = withStoreDetails(product)
            if config.products.contains(where: { $0.id == product.id }) { listed.referenceName = nil }
            products.append(listed)
        }
        return products
    }

    /// The product `id` names to buy: the paywall's first (it carries the reference name),
    /// else the config's, with what the host's store said of it.
    func product(withId id: String, on paywall: Paywall?) -> Product? {
        (paywall?.products.first { $0.isNamed(id) } ?? self.config?.products.first { $0.isNamed(id) }).map(
            withStoreDetails
        )
    }

    /// The product of a purchase the app made itself (observer mode): the config's, else the
    /// store's alone (App Store's, Google Play's on Android) with no entitlements, as
    /// SuperwallKit observes any StoreKit product.
    func observedProduct(named id: String) -> Product {
        withStoreDetails(
            self.config?.products.first { $0.isNamed(id) }
                ?? Product(
                    referenceName: nil,
                    storeProduct: self.referenceSDK == .superwallAndroid
                        ? .playStore(productIdentifier: id, basePlanIdentifier: "", offer: .noOffer)
                        : .appStore(productIdentifier: id, billingPlanType: nil),
                    compositeId: nil,
                    entitlements: []
                )
        )
    }

    /// The events of a purchase of `product` the app made itself, on a device whose template is
    /// `device`: its source is the observer Superwall-Android names on Android, the app elsewhere.
    func observedEvents(of product: Product, device: [String: JSON]) -> TransactionEvents {
        TransactionEvents(product: product, paywall: nil, device: device, observedFor: self.referenceSDK)
    }

    /// The product with what the host's store said of it, when it has: of a Play product, the
    /// details of its full identifier, else those of the offer Superwall-Android would buy it
    /// with, chosen from the product's base plans and offers.
    func withStoreDetails(_ product: Product) -> Product {
        var detailed = product
        let described = self.storeDetails[product.storeProduct.productIdentifier]
        // A Play product without a base plan is described by its own Play offers, when listed.
        let direct = described?.playOffers.isEmpty == false ? nil : described
        detailed.storeDetails = direct ?? playDetails(of: product) ?? described ?? product.storeDetails
        return detailed
    }

    private func playDetails(of product: Product) -> StoreProductDetails? {
        guard case .playStore(let id, let basePlan, let offer) = product.storeProduct,
            let described = self.storeDetails[id], let chosen = described.playOffers.chosen(for: basePlan, offer)
        else { return nil }
        return described.buying(chosen, of: product.storeProduct.productIdentifier)
    }

    /// The paywall with what the host's store said of each product: the host renders prices
    /// from them, and the purchase and the events read them.
    func withStoreDetails(_ loaded: LoadedPaywall) -> LoadedPaywall {
        guard !self.storeDetails.isEmpty else { return loaded }
        var changed = loaded
        changed.paywall.products = loaded.paywall.products.map(withStoreDetails)
        return changed
    }

    /// SuperwallKit's `overrideProductsByName`, then a call's `PaywallOverrides`: each paywall
    /// product whose name they list is replaced by the product with the given identifier,
    /// which the page, the paywall's info and the purchase then all see; the call's
    /// presentation style replaces the paywall's. The option's replacement must be known, from
    /// the config's catalogue or the host's store; an unknown one leaves the paywall's own
    /// product, as SuperwallKit keeps it when StoreKit does not find the override (a call's
    /// unknown one is refused before anything runs).
    func overridingProducts(_ loaded: LoadedPaywall, with call: PaywallOverrides? = nil) -> LoadedPaywall {
        var overrides = self.overrideProductsByName
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

    /// The paywall as the session sells it: its products replaced as the overrides ask, with
    /// what the host's store says of them.
    func selling(_ loaded: LoadedPaywall, with call: PaywallOverrides? = nil) -> LoadedPaywall {
        withStoreDetails(overridingProducts(loaded, with: call))
    }

    /// The product with this store identifier in the config's catalogue, else an App Store
    /// product the host's store described (with no entitlements: the config maps none to it).
    func knownProduct(_ identifier: String) -> Product? {
        if let listed = self.config?.products.first(where: { $0.storeProduct.productIdentifier == identifier }) {
            return listed
        }
        guard self.storeDetails[identifier] != nil else { return nil }
        return Product(
            referenceName: nil,
            storeProduct: .appStore(productIdentifier: identifier, billingPlanType: nil),
            compositeId: nil,
            entitlements: []
        )
    }
}
