/// Facts about the SDK this core reproduces.
public enum SuperwallSDK {
    /// The SuperwallKit release whose behaviour the core follows (`Constants.swift` there).
    public static let referenceVersion = "4.16.4"
}

/// The bridge release this core ships in, reported as `platformWrapperVersion`.
public enum BridgeVersion {
    public static let current = "0.1.0"
}
