/// Facts about the SDK this core reproduces.
public enum SuperwallSDK {
    /// The SuperwallKit release whose behaviour the core follows (`Constants.swift` there).
    public static let referenceVersion = "4.16.4"
}
