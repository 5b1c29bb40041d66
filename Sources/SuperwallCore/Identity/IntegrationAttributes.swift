/// The keys `setIntegrationAttributes` takes: SuperwallKit's `IntegrationAttribute` cases,
/// the attribution and analytics ids of the services it knows.
public enum IntegrationAttributes {
    public static let names: [String] = [
        "adjustId", "amplitudeDeviceId", "amplitudeUserId", "appsflyerId", "brazeAliasName", "brazeAliasLabel",
        "onesignalId",
        "fbAnonId", "firebaseAppInstanceId", "firebaseInstallationId", "iterableUserId", "iterableCampaignId",
        "iterableTemplateId",
        "mixpanelDistinctId", "mparticleId", "clevertapId", "airshipChannelId", "kochavaDeviceId", "tenjinId",
        "posthogUserId",
        "customerioId", "appstackId", "singularDeviceId",
    ]

    public static func isKnown(_ name: String) -> Bool { known.contains(name) }

    private static let known = Set(names)
}
