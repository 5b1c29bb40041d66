import Foundation

/// SuperwallKit's rules for merging user attributes (`IdentityLogic.mergeAttributes`).
public enum UserAttributes {
    /// What the app sets: `$`-keys are reserved and dropped, `nil` removes a key, an `email`
    /// that is not an address is treated as nil, arrays and objects are kept as they are.
    /// The merge is shallow, and `applicationInstalledAt` is always present.
    public static func merge(
        _ changes: [String: JSON?],
        into current: [String: JSON],
        applicationInstalledAt: String
    ) -> [String: JSON] {
        var merged = current
        for (key, value) in changes where !key.hasPrefix("$") {
            var value = value
            if key == "email", case .string(let address)? = value, !isEmailAddress(address) { value = nil }
            if case .null? = value { value = nil }
            merged[key] = value
        }
        merged["applicationInstalledAt"] = .string(applicationInstalledAt)
        return merged
    }

    /// SuperwallKit's pattern (`Email.swift`), matched against the whole text.
    public static func isEmailAddress(_ text: String) -> Bool {
        (try? /[a-zA-Z0-9._%+-]+@[a-zA-Z0-9.-]+\.[a-zA-Z]{2,}/.wholeMatch(in: text)) != nil
    }

    /// The members and elements the user's attributes may hold in all, counted at every
    /// depth. Every `setUserAttributes` answers them whole and tracks them whole in
    /// `user_attributes`, so without a bound each call would cost more than the last.
    public static let totalMemberLimit = 10_000

    /// The members and elements of `attributes` at every depth, counting stopped once past `limit`.
    public static func memberCount(_ attributes: [String: JSON], stoppingPast limit: Int = totalMemberLimit) -> Int {
        var count = 0
        func visit(_ value: JSON) {
            guard count <= limit else { return }
            switch value {
            case .object(let members):
                count += members.count
                for member in members.values { visit(member) }
            case .array(let elements):
                count += elements.count
                for element in elements { visit(element) }
            default:
                break
            }
        }
        visit(.object(attributes))
        return count
    }
}

extension UserAttributes {
    /// A page's `user_attribute_updated` as changes, with SuperwallKit's rules:
    /// `$is_standard_event` and `$application_installed_at` are not the page's to set.
    static func pageChanges(_ attributes: [String: JSON]) -> [String: JSON?] {
        var changes: [String: JSON?] = [:]
        for (key, value) in attributes where key != "$is_standard_event" && key != "$application_installed_at" {
            changes[key] = value == .null ? .some(nil) : .some(value)
        }
        return changes
    }
}
