import Foundation

/// What Google Play Billing says of one of a subscription's base plans or offers
/// (`ProductDetails.SubscriptionOfferDetails`): its base plan, its offer id (nil for the base
/// plan itself), its tags and its pricing phases, the recurring one last.
public struct PlayOfferDetails: Sendable, Equatable {
    public struct PricingPhase: Sendable, Equatable {
        /// The price of one period (0 for a free trial).
        public var price: Decimal
        public var period: StoreProductDetails.Period
        /// How many periods the phase lasts; the recurring phase's is ignored.
        public var cycles: Int

        public init(price: Decimal, period: StoreProductDetails.Period, cycles: Int = 1) {
            self.price = price
            self.period = period
            self.cycles = cycles
        }

        /// Superwall-Android's length of a phase's period: months (and years as 12) at 30 days.
        var androidDays: Int {
            switch period.unit {
            case .day: period.count
            case .week: 7 * period.count
            case .month: 30 * period.count
            case .year: 360 * period.count
            }
        }
    }

    public var basePlanId: String
    public var offerId: String?
    public var tags: [String]
    public var pricingPhases: [PricingPhase]

    public init(basePlanId: String, offerId: String? = nil, tags: [String] = [], pricingPhases: [PricingPhase]) {
        self.basePlanId = basePlanId
        self.offerId = offerId
        self.tags = tags
        self.pricingPhases = pricingPhases
    }

    /// A base plan has its recurring phase alone.
    var isBasePlan: Bool { pricingPhases.count == 1 }

    /// The phases before the recurring one: the offer's trial or discount.
    var introductoryPhases: ArraySlice<PricingPhase> { pricingPhases.dropLast() }
}

extension [PlayOfferDetails] {
    /// Superwall-Android's choice of what to buy `basePlan` with (`RawStoreProduct`'s
    /// `getSelectedOfferDetails`): without a base plan, the first base plan; `noOffer`, the
    /// base plan; `specified`, that offer, else the base plan; `automatic`, of the base plan's
    /// offers not tagged `-ignore-offer`, the longest free trial, else the cheapest first paid
    /// phase, else the base plan. Nil when Play lists no such base plan.
    func chosen(for basePlan: String, _ offer: PlayOffer) -> PlayOfferDetails? {
        guard !basePlan.isEmpty else { return first(where: \.isBasePlan) }
        let ofThePlan = filter { $0.basePlanId == basePlan }
        guard let plan = ofThePlan.first(where: \.isBasePlan) else { return nil }
        switch offer {
        case .noOffer: return plan
        case .specified(let id): return ofThePlan.first { $0.offerId == id } ?? plan
        case .automatic:
            let offers = ofThePlan.filter { !$0.isBasePlan && !$0.tags.contains { $0.contains("-ignore-offer") } }
            let trials = offers.compactMap { offer in
                offer.introductoryPhases.first { $0.price == 0 }.map { (offer, $0.androidDays) }
            }
            // The first of the longest, and the first of the cheapest, as Kotlin's maxBy and minBy.
            let longestTrial = trials.reduce(nil) { best, next in best.map { next.1 > $0.1 ? next : $0 } ?? next }
            let paid = offers.compactMap { offer in
                offer.introductoryPhases.first { $0.price > 0 }.map { (offer, $0.price) }
            }
            let cheapest = paid.reduce(nil) { best, next in best.map { next.1 < $0.1 ? next : $0 } ?? next }
            return longestTrial?.0 ?? cheapest?.0 ?? plan
        }
    }
}

extension StoreProductDetails {
    /// What the store says of a Play product bought with `chosen`: its recurring price and
    /// period, its first introductory phase as the intro offer (free: a trial), and the offer
    /// it is bought with. Play lists only the offers the user may take, so an offer's intro
    /// phase is one the user is eligible for.
    func buying(_ chosen: PlayOfferDetails, of productIdentifier: String) -> StoreProductDetails {
        var details = self
        details.productIdentifier = productIdentifier
        details.playOffers = []
        details.chosenPlayOffer = ChosenPlayOffer(offerId: chosen.offerId)
        if let recurring = chosen.pricingPhases.last {
            // The decimal's text, so that 59.99 reads back as 59.99 and not its binary neighbour.
            details.price = Double(recurring.price.description)
            details.period = recurring.period
        }
        details.trialPeriodDays = nil
        details.introductoryOffer = chosen.introductoryPhases.first.map { phase in
            IntroductoryOffer(
                price: phase.price,
                period: phase.period,
                periodCount: phase.cycles,
                paymentMode: phase.price == 0 ? .freeTrial : phase.cycles == 1 ? .payUpFront : .payAsYouGo
            )
        }
        details.isEligibleForIntroOffer = details.introductoryOffer != nil ? true : isEligibleForIntroOffer
        return details
    }
}

/// The offer a Play product is bought with, as the bridge chose it from the store's offers:
/// `offerId` nil for the base plan alone.
public struct ChosenPlayOffer: Sendable, Equatable {
    public var offerId: String?
}
