/// The host's part in test mode, as SuperwallKit's test-mode drawers: the person testing
/// chooses how a simulated purchase ends and which entitlements a simulated restore finds.
/// A host that offers no choices gets test mode's default: every purchase goes through, and a
/// restore finds what test mode bought.
public protocol TestModeChooser: Sendable {
    /// Whether the host shows the choices now.
    var offersChoices: Bool { get }
    /// How the simulated purchase of `product` ends.
    func choosePurchaseOutcome(for product: Product) async -> TestModeChoice<TestModePurchaseOutcome>
    /// The entitlements the simulated restore finds, from `available` (every entitlement the
    /// config's products grant); nil when the person cancelled.
    func chooseRestoredEntitlements(from available: [String]) async -> TestModeChoice<[String]?>
}

/// What the host answered: a choice, or why there is none (the simulated transaction fails).
public enum TestModeChoice<Value: Sendable>: Sendable {
    case chosen(Value)
    case unavailable(reason: String)
}

/// SuperwallKit's `TestModePurchaseResult`.
public enum TestModePurchaseOutcome: String, Sendable {
    case purchased, abandoned, failed
}
