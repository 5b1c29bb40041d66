import Foundation
import GRDB
import TestSupport
import Testing

@testable import SuperwallCore

@Suite struct UserAttributeRulesTests {
    private let installedAt = "2026-01-01T00:00:00.000Z"

    @Test func reservedDollarKeysAreDropped() {
        let merged = UserAttributes.merge(
            ["$secret": "x", "plan": "pro"],
            into: [:],
            applicationInstalledAt: installedAt
        )
        #expect(merged == ["plan": "pro", "applicationInstalledAt": .string(installedAt)])
    }

    @Test func nullRemovesAKeyAndTheMergeIsShallow() {
        let current: [String: JSON] = ["plan": "free", "prefs": ["a": 1, "b": 2], "age": 30]
        let merged = UserAttributes.merge(
            ["plan": .null, "prefs": ["a": 3]],
            into: current,
            applicationInstalledAt: installedAt
        )
        #expect(merged["plan"] == nil)
        #expect(merged["prefs"] == ["a": 3])
        #expect(merged["age"] == 30)
    }

    @Test func arraysAndObjectsAreKept() {
        let merged = UserAttributes.merge(
            ["tags": ["a", 1, true], "address": ["city": "Oslo"]],
            into: [:],
            applicationInstalledAt: installedAt
        )
        #expect(merged["tags"] == ["a", 1, true])
        #expect(merged["address"] == ["city": "Oslo"])
    }

    @Test func applicationInstalledAtIsAlwaysPresentAndCannotBeOverwritten() {
        let merged = UserAttributes.merge(
            ["applicationInstalledAt": "never"],
            into: [:],
            applicationInstalledAt: installedAt
        )
        #expect(merged["applicationInstalledAt"] == .string(installedAt))
    }

    @Test(arguments: [
        ("ada@example.com", true), ("a.b+c%d-e@sub.example.co", true), ("no-at-sign", false),
        ("x@y", false), ("x@y.c", false), ("x@y.c0m", false), ("spa ce@example.com", false), ("x@example.com ", false),
    ])
    func emailsAreValidatedWithSuperwallKitsPattern(_ address: String, _ valid: Bool) {
        #expect(UserAttributes.isEmailAddress(address) == valid)
        let merged = UserAttributes.merge(
            ["email": .string(address)],
            into: ["email": "old@example.com"],
            applicationInstalledAt: installedAt
        )
        #expect(merged["email"] == (valid ? .string(address) : nil))
    }
}
