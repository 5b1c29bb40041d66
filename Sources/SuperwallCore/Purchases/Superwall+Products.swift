/// The products the config sells, with what the host's store says of them.
extension Superwall {
    /// The config's products (`products_v3`), then those only its paywalls list
    /// (`products_v2`), each once and with its store details; only the ones named by
    /// `identifiers` (product id or store identifier) when given. Unknown names are left out,
    /// as a store leaves out products it does not sell.
    public func products(named identifiers: [String]? = nil) throws(SuperwallError) -> [Product] {
        guard let session else { throw .notConfigured }
        guard let config = session.config else { return [] }
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

    /// The host tells what its store says of products (price, period, trial); later details
    /// for the same store identifier replace earlier ones.
    public func setStoreProducts(_ details: [StoreProductDetails]) throws(SuperwallError) {
        try answeringWithoutSuspending { () throws(SuperwallError) -> Void in
            guard session != nil else { throw .notConfigured }
            for product in details { session?.storeDetails[product.productIdentifier] = product }
        }
    }
}
