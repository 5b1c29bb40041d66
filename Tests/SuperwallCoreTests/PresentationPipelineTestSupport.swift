import Foundation
import TestSupport
import Testing

@testable import SuperwallCore

var demoTriggers: [[String: Any]] {
    [
        placement("nongated", [audience("e1", rule: nil, variants: [treatment("v1", "onboarding-annual")])]),
        placement("gated", [audience("e2", rule: nil, variants: [treatment("v2", "pro-workouts-gated")])]),
        placement("held", [audience("e3", rule: nil, variants: [holdout("v3")])]),
        placement("nomatch", [audience("e4", rule: "false", variants: [holdout("v4")])]),
        placement("missing", [audience("e5", rule: nil, variants: [treatment("v5", "no-such-paywall")])]),
    ]
}
