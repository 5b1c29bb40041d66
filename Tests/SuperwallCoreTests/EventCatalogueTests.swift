import Foundation
import Testing

@testable import SuperwallCore

/// The params of every event in `events.jsonl`, checked against the table that
/// protocol/README.md's "Params in events.jsonl" gives, after a run that tracks most of the
/// catalogue: a launch, the app's lifecycle, identity and attributes, a paywall's page loaded
/// and used (a custom placement, a page view, a permission, a review, a Stripe checkout), a
/// purchase through the controller, an abandoned one, a restore, a decline, a deep link, a
/// redemption link, confirmed assignments and a reset.
@Suite struct EventCatalogueTests {
    @Test func everyRowOfTheEventsFileCarriesExactlyTheParamsTheProtocolTableGives() async throws {
        let rows =
            try await eventsOfACatalogueRun() + eventsOfFailures() + eventsOfPurchasesOutsideAPaywall()
            + eventsOfSurveys()
        let table = try EventParamsTable.load()
        #expect(rows.count > 40)
        var seen = Set<String>()
        for row in rows {
            seen.insert(row.name)
            let key =
                appPlacements.contains(row.name)
                ? "(a placement the app registers)"
                : customPlacements.contains(row.name) ? "(a paywall's custom placement)" : row.name
            guard let expected = table.params(of: key) else {
                Issue.record("`\(row.name)` is in events.jsonl but not in the table")
                continue
            }
            let missing = expected.required.subtracting(row.params)
            let unlisted = expected.unlisted(in: row.params)
            #expect(missing.isEmpty, "`\(row.name)` lacks \(missing.sorted())")
            #expect(unlisted.isEmpty, "`\(row.name)` carries params the table does not list: \(unlisted.sorted())")
        }
        // The run must reach most of the table, or the check above says little.
        let unseen = table.eventNames.subtracting(seen)
        #expect(unseen.count <= 9, "the run tracked none of \(unseen.sorted())")
    }

    @Test func theTableIsReadAsTheTestExpects() throws {
        let table = try EventParamsTable.load()
        let paywallOpen = try #require(table.params(of: "paywall_open"))
        #expect(paywallOpen.required.isSuperset(of: ["$paywall_identifier", "$app_session_id"]))
        let start = try #require(table.params(of: "transaction_start"))
        #expect(
            start.required.isSuperset(of: ["$product_raw_price", "$store"])
                && start.optional.contains("$paywall_identifier")
        )
        let fire = try #require(table.params(of: "trigger_fire"))
        #expect(fire.unlisted(in: ["$unmatched_audience_e1", "$result", "$surprise"]) == ["$surprise"])
        #expect(table.params(of: "(a placement the app registers)")?.required.contains("$is_feature_gatable") == true)
        #expect(table.params(of: "no_such_event") == nil)
    }
}

/// The placements the scenario registers, and the custom placement its paywall fires.
private let appPlacements: Set<String> = ["gated", "missed"]
private let customPlacements: Set<String> = ["faq_opened"]

/// One row of `events.jsonl`: its name and the keys of its parameters the SDK owns (`$`-prefixed).
private struct EventRow {
    var name: String
    var params: Set<String>
}

private var catalogueTriggers: [[String: Any]] {
    [
        placement("gated", [audience("e2", rule: nil, variants: [treatment("v2", "pro-workouts-gated")])]),
        placement(
            "missed",
            [audience("e3", rule: "user.plan == \"never\"", variants: [treatment("v3", "pro-workouts-gated")])]
        ),
    ]
}

/// Runs the catalogue's scenario on a configured core and returns every row it wrote.
private func eventsOfACatalogueRun() async throws -> [EventRow] {
    let controller = ScriptedPurchaseController(.purchase(.purchased))
    controller.transaction = TransactionReport(
        transactionId: "t-1",
        purchaseDate: Date(timeIntervalSince1970: 1_700_000_000)
    )
    let harness = try await PresentationHarness.make(
        try await presentationConfig(catalogueTriggers),
        usingPurchaseController: true,
        purchaseController: controller,
        storeProducts: [annualDetails]
    )
    let superwall = harness.superwall
    controller.beforeAnswering = { _ = try? await superwall.setSubscriptionStatus(.active([Entitlement(id: "pro")])) }
    try await superwall.setSubscriptionStatus(.inactive)

    try await superwall.appWillResignActive()
    try await superwall.appDidBecomeActive()
    _ = try await superwall.identify(userId: "catalogue-user", restorePaywallAssignments: false)
    _ = try await superwall.setUserAttributes(["plan": "free"])
    _ = try await superwall.setIntegrationAttributes(["adjustId": "a-1"])
    _ = try await superwall.preloadAllPaywalls()

    // A skipped placement: no audience matches.
    _ = try await superwall.register(placement: "missed", params: [:], handler: nil)

    // The paywall, its page loaded and used, then a purchase from it.
    let register = harness.registerInBackground("gated", params: ["source": "settings"])
    let shown = try await harness.waitForPresentation()
    _ = try await superwall.pageLoadDidEnd(.processTerminated, inSession: shown.sessionId)
    _ = try await superwall.pageLoadDidEnd(.finished(httpStatus: 200), inSession: shown.sessionId)
    try await superwall.handlePageMessage(
        envelope(
            ["event_name": "ping", "version": "2023-01-12"],
            ["event_name": "custom_placement", "name": "faq_opened", "params": ["section": "billing"]],
            [
                "event_name": "page_view", "page_node_id": "n1", "flow_position": 0, "page_name": "Intro",
                "navigation_node_id": "nav", "type": "entry",
            ],
            ["event_name": "request_permission", "permission_type": "notification", "request_id": "p1"],
            ["event_name": "request_store_review", "review_type": "in-app"],
            ["event_name": "stripe_checkout_start", "checkout_context_id": "c1", "product_identifier": "price_1"],
            ["event_name": "stripe_checkout_submit", "checkout_context_id": "c1", "product_identifier": "price_1"],
            ["event_name": "stripe_checkout_fail", "checkout_context_id": "c1", "product_identifier": "price_1"],
            ["event_name": "stripe_checkout_start", "checkout_context_id": "c2", "product_identifier": "price_1"],
            ["event_name": "stripe_checkout_complete", "checkout_context_id": "c2", "product_identifier": "price_1"]
        ),
        inSession: shown.sessionId
    )
    try await superwall.handlePageMessage(
        envelope(["event_name": "purchase", "product_identifier": .string(annual)]),
        inSession: shown.sessionId
    )
    _ = try await register.value

    // A restore outside a paywall, and a purchase outside one that the controller completes.
    _ = try await superwall.restorePurchases()
    try await superwall.setSubscriptionStatus(.inactive)

    // A decline: the gated paywall closed.
    let declined = harness.registerInBackground("gated")
    let second = try await harness.waitForPresentation(2)
    try await superwall.handlePageMessage(envelope(["event_name": "close"]), inSession: second.sessionId)
    _ = try await declined.value

    _ = try await superwall.handleDeepLink("pockettrainer://workouts/today?ref=mail#top")
    _ = try await superwall.confirmAllAssignments()
    _ = try await superwall.reset()
    return try await rows(of: harness)
}

/// A page that fails to load, then on a second showing a failed purchase, a failed restore and
/// a denied permission; then, with a controller whose user cancels, an abandoned purchase.
private func eventsOfFailures() async throws -> [EventRow] {
    let failing = ScriptedPurchaseController(.purchase(.failed("card declined")), restoration: .failed("no receipts"))
    let harness = try await PresentationHarness.make(
        try await presentationConfig(catalogueTriggers),
        usingPurchaseController: true,
        purchaseController: failing,
        storeProducts: [annualDetails]
    )
    try await harness.superwall.setSubscriptionStatus(.inactive)
    let unloaded = harness.registerInBackground("gated")
    let first = try await harness.waitForPresentation()
    _ = try await harness.superwall.pageLoadDidEnd(.failed("offline"), inSession: first.sessionId)
    _ = try await unloaded.value
    harness.presenter.permissionAnswer = .denied
    let declined = harness.registerInBackground("gated")
    let second = try await harness.waitForPresentation(2)
    try await harness.superwall.handlePageMessage(
        envelope(
            ["event_name": "request_permission", "permission_type": "camera", "request_id": "p2"],
            ["event_name": "purchase", "product_identifier": .string(annual)],
            ["event_name": "restore"],
            ["event_name": "close"]
        ),
        inSession: second.sessionId
    )
    _ = try await declined.value
    var failures = try await rows(of: harness)

    let cancelling = ScriptedPurchaseController(.purchase(.cancelled))
    let abandoned = try await PresentationHarness.make(
        try await presentationConfig(catalogueTriggers),
        usingPurchaseController: true,
        purchaseController: cancelling,
        storeProducts: [annualDetails]
    )
    try await abandoned.superwall.setSubscriptionStatus(.inactive)
    // From a paywall: a controller's purchase the app starts itself tracks nothing, as in SuperwallKit.
    let abandoning = abandoned.registerInBackground("gated")
    let third = try await abandoned.waitForPresentation()
    try await abandoned.superwall.handlePageMessage(
        envelope(["event_name": "purchase", "product_identifier": .string(annual)], ["event_name": "close"]),
        inSession: third.sessionId
    )
    _ = try await abandoning.value
    failures += try await rows(of: abandoned)
    return failures
}

/// Test mode: a subscription without a trial and a product bought once, neither from a paywall.
private func eventsOfPurchasesOutsideAPaywall() async throws -> [EventRow] {
    let monthly = StoreProductDetails(
        productIdentifier: annual,
        price: 9.99,
        currencyCode: "USD",
        period: .init(unit: .month),
        priceLocale: "en_US"
    )
    let harness = try await PresentationHarness.make(
        try await presentationConfig(catalogueTriggers),
        testModeBehavior: .always,
        storeProducts: [monthly]
    )
    _ = try await harness.superwall.purchase(productId: annual)
    try await harness.superwall.setStoreProducts([
        StoreProductDetails(productIdentifier: annual, price: 99, currencyCode: "USD", priceLocale: "en_US")
    ])
    _ = try await harness.superwall.purchase(productId: annual)
    _ = try await harness.superwall.restorePurchases()
    return try await rows(of: harness)
}

/// A survey answered on one close, and closed unanswered on another (after a reset, which
/// forgets that the user was asked).
private func eventsOfSurveys() async throws -> [EventRow] {
    let survey: [String: Any] = [
        "id": "s1", "assignment_key": "k1", "title": "Why not?", "message": "Tell us",
        "options": [["id": "o1", "title": "Price"]],
        "presentation_condition": "ON_MANUAL_CLOSE", "presentation_probability": 1, "include_other_option": true,
        "include_close_option": true,
    ]
    let config = try edited(try await presentationConfig(catalogueTriggers)) { config in
        editPaywalls(&config) { paywall in
            var paywall = paywall
            paywall["surveys"] = [survey]
            return paywall
        }
    }
    let harness = try await PresentationHarness.make(config)
    for answer in [SurveyAnswer.response(optionId: "000", customResponse: "Later"), .close] {
        harness.presenter.surveyAnswer = { _ in answer }
        // Counted before the register starts: it may have presented by the time the count is read.
        let presented = harness.presenter.presentations.count
        let register = harness.registerInBackground("gated")
        let shown = try await harness.waitForPresentation(presented + 1)
        _ = try await harness.superwall.perform(.close, inSession: shown.sessionId)
        _ = try await register.value
        _ = try await harness.superwall.reset()
    }
    return try await rows(of: harness)
}

/// Every row the harness's core has written, once its queue is flushed.
private func rows(of harness: PresentationHarness) async throws -> [EventRow] {
    await harness.superwall.awaitPresentationQueue()
    await harness.superwall.flushEvents()
    let text = try String(contentsOfFile: harness.directory + "/events.jsonl", encoding: .utf8)
    return try text.split(separator: "\n").map { line in
        let row = try JSONDecoder().decode(JSON.self, from: Data(line.utf8))
        let name = try #require(row["event_name"]?.stringValue)
        guard case .object(let parameters)? = row["parameters"] else { throw CocoaError(.coderReadCorrupt) }
        return EventRow(name: name, params: Set(parameters.keys.filter { $0.hasPrefix("$") }))
    }
}

/// protocol/README.md's "Params in events.jsonl" tables: for each event (or group of events
/// that share their params), the `$` params every row carries and those some rows carry
/// (marked `?`). `[name]` is a set from the first table (`[name]?` makes all of it optional),
/// `$name*` a family of params, and `[every row]` belongs to every event.
struct EventParamsTable {
    struct Params: Equatable {
        var required: Set<String> = []
        var optional: Set<String> = []
        var optionalPrefixes: [String] = []

        /// Params of `row` that are neither required nor allowed.
        func unlisted(in row: Set<String>) -> Set<String> {
            row.subtracting(required).subtracting(optional).filter { name in
                !optionalPrefixes.contains { name.hasPrefix($0) }
            }
        }

        mutating func add(_ other: Params, optionally: Bool) {
            if optionally {
                optional.formUnion(other.required.union(other.optional))
            } else {
                required.formUnion(other.required)
                optional.formUnion(other.optional)
            }
            optionalPrefixes += other.optionalPrefixes
        }
    }

    private var byEvent: [String: Params]
    /// Events named in the table; the parenthesised rows (`(a placement the app registers)`) are not.
    var eventNames: Set<String> { Set(byEvent.keys.filter { !$0.hasPrefix("(") }) }
    func params(of event: String) -> Params? { byEvent[event] }

    static func load() throws -> EventParamsTable {
        let readme = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().appendingPathComponent("protocol/README.md")
        return try parse(String(contentsOf: readme, encoding: .utf8))
    }

    static func parse(_ readme: String) throws -> EventParamsTable {
        guard let start = readme.range(of: "### Params in events.jsonl") else { throw CocoaError(.coderValueNotFound) }
        let section = readme[start.upperBound...]
        let body = section[..<(section.range(of: "\n## ")?.lowerBound ?? section.endIndex)]
        var sets: [String: Params] = [:]
        var byEvent: [String: Params] = [:]
        for row in body.split(separator: "\n")
        where row.hasPrefix("| ") && !row.hasPrefix("| event |") && !row.hasPrefix("| set |") {
            let cells = row.split(separator: "|", omittingEmptySubsequences: false).map {
                $0.trimmingCharacters(in: .whitespaces)
            }
            guard cells.count >= 3 else { continue }
            let params = paramsOf(cells[2], sets: sets)
            if cells[1].hasPrefix("[") {
                sets[cells[1]] = params
            } else if cells[1].hasPrefix("(") {
                byEvent[cells[1]] = params
            } else {
                for name in backticked(cells[1]) { byEvent[name] = params }
            }
        }
        if let everyRow = sets["[every row]"] {
            for name in byEvent.keys { byEvent[name]?.add(everyRow, optionally: false) }
        }
        return EventParamsTable(byEvent: byEvent)
    }

    private static func paramsOf(_ cell: String, sets: [String: Params]) -> Params {
        var params = Params()
        for token in cell.split(separator: ",").map({ $0.trimmingCharacters(in: .whitespaces) }) where !token.isEmpty {
            let optional = token.hasSuffix("?")
            let bare = optional ? String(token.dropLast()) : token
            if let set = sets[bare] {
                params.add(set, optionally: optional)
            } else if let name = backticked(token).first {
                let name = name.hasSuffix("?") ? String(name.dropLast()) : name
                if name.hasSuffix("*") {
                    params.optionalPrefixes.append(String(name.dropLast()))
                } else if optional || token.hasSuffix("?`") {
                    params.optional.insert(name)
                } else {
                    params.required.insert(name)
                }
            }
        }
        return params
    }

    private static func backticked(_ text: String) -> [String] {
        text.split(separator: "`", omittingEmptySubsequences: false).enumerated().filter { $0.offset % 2 == 1 }.map {
            String($0.element)
        }
    }
}
