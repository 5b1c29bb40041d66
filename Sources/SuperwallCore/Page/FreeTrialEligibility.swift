/// Whether a paywall offers this user a free trial (SuperwallKit's
/// `refreshFreeTrialAvailability`): what turns on the page's `freeTrial` text
/// and `PaywallInfo.isFreeTrialAvailable`. Recomputed at every presentation.
///
/// The store's answer about intro-offer eligibility is the host's to give
/// (`StoreProductDetails.isEligibleForIntroOffer`); without it the core decides as StoreKit 1
/// does, from the purchases it knows: a product whose group (or, without a group, the product
/// itself) was never bought is eligible.
struct FreeTrialEligibility {
    var customerInfo: CustomerInfo

    func isAvailable(on paywall: Paywall) -> Bool {
        paywall.products.contains { storeTrial($0, rule: paywall.introductoryOfferEligibility) }
            || paywall.products.contains { webTrial($0, rule: paywall.introductoryOfferEligibility) }
    }

    /// An App Store, custom or Google Play product the host described: its intro offer and
    /// eligibility.
    private func storeTrial(_ product: Product, rule: Paywall.IntroductoryOfferEligibility) -> Bool {
        guard let details = product.storeDetails, details.offer != nil else { return false }
        switch product.storeProduct {
        case .appStore:
            switch rule {
            case .alwaysIneligible: return false
            case .alwaysEligible: return !hasActiveTrial(inGroup: details.subscriptionGroupId)
            case .automatic:
                let eligible = details.isEligibleForIntroOffer ?? !hasBought(details)
                return eligible && !hasActiveSubscription(inGroup: details.subscriptionGroupId)
            }
        case .custom:
            // No subscription group: StoreKit 2's automatic check never passes it.
            return rule == .alwaysEligible
        case .playStore:
            // Superwall-Android: the store's word alone (Play offers a trial only to the eligible).
            return details.offer?.paymentMode == .freeTrial
        case .stripe, .paddle:
            return false
        }
    }

    /// A Stripe product with trial days, or a custom one whose store gave trial days, none of
    /// whose entitlements the user ever held.
    private func webTrial(_ product: Product, rule: Paywall.IntroductoryOfferEligibility) -> Bool {
        guard rule != .alwaysIneligible, !product.entitlements.isEmpty else { return false }
        switch product.storeProduct {
        case .stripe(_, let days?) where days > 0: break
        case .custom where (product.storeDetails?.offer?.paymentMode == .freeTrial): break
        default: return false
        }
        // Until customer info is known, every entitlement counts as held.
        guard !customerInfo.isPlaceholder else { return false }
        return !product.entitlements.contains { wanted in
            customerInfo.entitlements.contains { held in
                held.id == wanted.id && (held.latestProductId != nil || held.store == .superwall || held.isActive)
            }
        }
    }

    private func hasBought(_ details: StoreProductDetails) -> Bool {
        customerInfo.subscriptions.contains { subscription in
            if let group = details.subscriptionGroupId { return subscription.subscriptionGroupId == group }
            return subscription.productId == details.productIdentifier
        }
    }

    /// Apple gives no intro offer on an upgrade or crossgrade; a product without a group passes.
    private func hasActiveSubscription(inGroup group: String?) -> Bool {
        guard let group else { return false }
        return customerInfo.subscriptions.contains {
            $0.isActive && $0.store == .appStore && $0.subscriptionGroupId == group
        }
    }

    private func hasActiveTrial(inGroup group: String?) -> Bool {
        guard let group else { return false }
        return customerInfo.subscriptions.contains {
            $0.isActive && $0.store == .appStore && $0.offerType == .trial && $0.subscriptionGroupId == group
        }
    }
}
