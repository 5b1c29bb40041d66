import Foundation
import Synchronization
import Testing

@testable import SuperwallCore

let coach = "com.pockettrainer.coach.monthly"

var upsellTriggers: [[String: Any]] {
    [
        placement(
            "upsell",
            [
                audience(
                    "e1",
                    rule: #"device.subscriptionStatus == "INACTIVE""#,
                    variants: [treatment("v1", "onboarding-annual")]
                )
            ]
        ),
        placement(
            "coach_upsell",
            [
                audience(
                    "e2",
                    rule:
                        #"!("coach" in device.activeEntitlements) && !("com.pockettrainer.coach.monthly" in device.activeProducts) && size(device.customerInfo.subscriptions) == 0"#,
                    variants: [treatment("v2", "onboarding-annual")]
                )
            ]
        ),
    ]
}
