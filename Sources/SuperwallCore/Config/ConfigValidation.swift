import Foundation
import Rules

/// A problem in a config file, at a JSON path: what `superwall-bridge validate` prints and an
/// editor shows inline. The decoder records the elements it drops as these too.
public struct ConfigProblem: Sendable, Equatable, CustomStringConvertible {
    public var path: String
    public var message: String
    public var description: String { "\(path): \(message)" }

    public init(path: String, message: String) {
        self.path = path
        self.message = message
    }
}

extension Config {
    /// The problems of a config that decodes (one that does not has its `ConfigDecodingError`):
    /// each element SuperwallKit would drop, each audience rule that does not compile, and
    /// each variant naming a paywall the config does not have.
    public var problems: [ConfigProblem] {
        var found = droppedElements
        let paywallIdentifiers = Set(paywalls.map(\.identifier))
        for (triggerIndex, trigger) in triggers.enumerated() {
            for (audienceIndex, audience) in trigger.audiences.enumerated() {
                let audiencePath = "$.trigger_options[\(triggerIndex)].rules[\(audienceIndex)]"
                if let rule = audience.rule, case .failure(let error) = rule.program {
                    found.append(
                        ConfigProblem(
                            path: audiencePath + ".expression_cel",
                            message: "the rule does not compile: \(error)"
                        )
                    )
                }
                for (variantIndex, variant) in audience.variants.enumerated() {
                    if let identifier = variant.paywallIdentifier, !paywallIdentifiers.contains(identifier) {
                        found.append(
                            ConfigProblem(
                                path: audiencePath + ".variants[\(variantIndex)].paywall_identifier",
                                message:
                                    "no paywall \"\(identifier)\" in paywall_responses (presenting it would fail with 404)"
                            )
                        )
                    }
                }
            }
        }
        return found
    }
}

extension Config {
    /// What is valid but cannot be meant (`superwall-bridge validate` prints these without
    /// failing the file): a key no decoder reads (a typo, most likely), an audience after one
    /// that always matches, a placement with no campaign, a paywall no variant shows, a
    /// product no paywall offers.
    public var warnings: [ConfigProblem] {
        var found = ignoredMembers
        for (triggerIndex, trigger) in triggers.enumerated() {
            let triggerPath = "$.trigger_options[\(triggerIndex)]"
            guard !trigger.audiences.isEmpty else {
                found.append(
                    ConfigProblem(
                        path: triggerPath + ".rules",
                        message: "placement \"\(trigger.placementName)\" has no campaign: register always skips it"
                    )
                )
                continue
            }
            guard let catchAll = trigger.audiences.firstIndex(where: \.alwaysMatches),
                catchAll < trigger.audiences.count - 1
            else { continue }
            for index in (catchAll + 1)..<trigger.audiences.count {
                found.append(
                    ConfigProblem(
                        path: triggerPath + ".rules[\(index)]",
                        message:
                            "this audience can never match: audience \(catchAll) (experiment \(trigger.audiences[catchAll].experimentId)) before it always does"
                    )
                )
            }
        }
        let shown = Set(triggers.flatMap { $0.audiences.flatMap { $0.variants.compactMap(\.paywallIdentifier) } })
        for (index, paywall) in paywalls.enumerated() where !shown.contains(paywall.identifier) {
            found.append(
                ConfigProblem(
                    path: "$.paywall_responses[\(index)]",
                    message: "no campaign reaches paywall \"\(paywall.identifier)\""
                )
            )
        }
        let offered = Set(paywalls.flatMap { $0.products.map(\.storeProduct.productIdentifier) })
        for (index, product) in zip(productSourceIndexes, products)
        where !offered.contains(product.storeProduct.productIdentifier) {
            found.append(
                ConfigProblem(
                    path: "$.products_v3[\(index)]",
                    message: "no paywall uses product \"\(product.storeProduct.productIdentifier)\""
                )
            )
        }
        return found
    }

    /// Each kept product's index in `products_v3`: the dropped ones are skipped.
    private var productSourceIndexes: [Int] {
        let dropped = Set(
            droppedElements.compactMap { problem -> Int? in
                guard problem.path.hasPrefix("$.products_v3["), let close = problem.path.firstIndex(of: "]") else {
                    return nil
                }
                return Int(problem.path[problem.path.index(problem.path.startIndex, offsetBy: 14)..<close])
            }
        )
        var indexes: [Int] = []
        var index = 0
        while indexes.count < products.count {
            if !dropped.contains(index) { indexes.append(index) }
            index += 1
        }
        return indexes
    }
}

extension Audience {
    /// No occurrence limit, and no rule or one that is always true.
    var alwaysMatches: Bool {
        guard occurrence == nil else { return false }
        guard let rule else { return true }
        if case .success(let program) = rule.program { return program.isAlwaysTrue }
        return false
    }
}
