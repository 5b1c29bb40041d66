import Foundation
import Testing

@testable import SuperwallCore

let now = Date(timeIntervalSince1970: 1_800_000_000)
let later = now.addingTimeInterval(86_400)

/// An entitlement that says nothing beyond its id and activity, for rules to tell apart.
func bare(_ id: String = "pro", active: Bool = true) -> Entitlement { Entitlement(id: id, isActive: active) }
