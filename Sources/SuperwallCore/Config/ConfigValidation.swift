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
                    found.append(ConfigProblem(path: audiencePath + ".expression_cel", message: "the rule does not compile: \(error)"))
                }
                for (variantIndex, variant) in audience.variants.enumerated() {
                    if let identifier = variant.paywallIdentifier, !paywallIdentifiers.contains(identifier) {
                        found.append(ConfigProblem(
                            path: audiencePath + ".variants[\(variantIndex)].paywall_identifier",
                            message: "no paywall \"\(identifier)\" in paywall_responses (presenting it would fail with 404)"))
                    }
                }
            }
        }
        return found
    }
}
