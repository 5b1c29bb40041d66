import Foundation

/// One event a paywall page posts, decoded as SuperwallKit's
/// `PaywallMessage` decodes it.
public enum PageMessage: Sendable, Equatable {
    case ping(version: String)
    case close
    case restore
    case purchase(productIdentifier: String, shouldDismiss: Bool)
    case custom(data: String)
    case customPlacement(name: String, params: [String: JSON])
    case userAttributesUpdated([String: JSON])
    case openURL(String, browserType: String?)
    case openURLExternal(String)
    case openDeepLink(String)
    case requestStoreReview(external: Bool)
    case requestPermission(type: String, requestId: String)
    case requestCallback(requestId: String, name: String, isBlocking: Bool, variables: [String: JSON]?)
    case scheduleNotification(title: String, subtitle: String?, body: String, delayMs: Double)
    case hapticFeedback(String)
    case pageView([String: JSON])
    case stripeCheckout(StripeCheckoutStage, contextId: String, productIdentifier: String)
    case initiateWebCheckout(contextId: String)

    public enum StripeCheckoutStage: String, Sendable, CaseIterable {
        case start, submit, complete, fail, abandon
    }

    /// The permissions a page may ask for.
    static let permissionTypes: Set<String> = [
        "notification", "location", "background_location", "read_images", "contacts", "camera", "tracking",
        "microphone",
    ]
}

/// Why a posted message was refused: which event, and what was wrong with it.
public struct PageMessageError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The event's index in `payload.events`, or nil for the envelope itself.
    public var eventIndex: Int?
    public var reason: String

    public var description: String {
        eventIndex.map { "payload.events[\($0)]: \(reason)" } ?? reason
    }

    /// Says at warning level (so `delegate/handleLog` hears it) that paywall `identifier`'s page
    /// posted a message refused, for a host that does not read the call's error.
    func logRefusal(by identifier: String) {
        Superwall.pageLogger.warning(
            "paywall \(identifier)'s page posted a message that is refused, and nothing of it ran: \(self)",
            metadata: ["paywallIdentifier": .string(identifier), "error": .string(description)]
        )
    }
}

extension PageMessage {
    /// Decodes what the page posted: the envelope `{"version": 1, "payload": {"events": [...]}}`,
    /// or a string holding it. Every event must decode, or none is taken (SuperwallKit drops
    /// the whole envelope too, but silently).
    public static func decodeEnvelope(_ posted: JSON) throws(PageMessageError) -> [PageMessage] {
        var envelope = posted
        if case .string(let text) = posted {
            guard let parsed = try? JSONDecoder().decode(JSON.self, from: Data(text.utf8)) else {
                throw PageMessageError(reason: "the message is a string that is not JSON")
            }
            envelope = parsed
        }
        guard case .object(let fields) = envelope else {
            throw PageMessageError(reason: "the message is not an object")
        }
        guard case .int? = fields["version"] else {
            throw PageMessageError(reason: "version is required and must be an integer")
        }
        guard case .object(let payload)? = fields["payload"], case .array(let events)? = payload["events"] else {
            throw PageMessageError(reason: "payload.events is required and must be an array")
        }
        var messages: [PageMessage] = []
        for (index, event) in events.enumerated() {
            do throws(PageFieldError) {
                messages.append(try decode(PageFields(event)))
            } catch {
                throw PageMessageError(eventIndex: index, reason: error.reason)
            }
        }
        return messages
    }

    private static func decode(_ fields: PageFields) throws(PageFieldError) -> PageMessage {
        let name = try fields.string("event_name")
        switch name {
        // paywall.js sends the version as a string; a host that writes the envelope by hand (as
        // the docs' example once did) may send a number, which is taken as its text.
        case "ping": return .ping(version: try fields.stringOrNumber("version"))
        case "close": return .close
        case "restore": return .restore
        case "purchase":
            return .purchase(
                productIdentifier: try fields.string("product_identifier"),
                shouldDismiss: try fields.optionalBool("should_dismiss") ?? true
            )
        case "custom": return .custom(data: try fields.string("data"))
        case "custom_placement":
            return .customPlacement(name: try fields.string("name"), params: try fields.object("params"))
        case "user_attribute_updated": return .userAttributesUpdated(try fields.attributes("attributes"))
        case "open_url":
            return .openURL(try fields.string("url"), browserType: try fields.optionalString("browser_type"))
        case "open_url_external": return .openURLExternal(try fields.string("url"))
        case "open_deep_link": return .openDeepLink(try fields.string("link"))
        case "request_store_review":
            switch try fields.string("review_type") {
            case "in-app": return .requestStoreReview(external: false)
            case "external": return .requestStoreReview(external: true)
            default: throw PageFieldError(reason: "review_type must be \"in-app\" or \"external\"")
            }
        case "request_permission":
            let type = try fields.string("permission_type")
            guard permissionTypes.contains(type) else {
                throw PageFieldError(
                    reason: "permission_type must be one of \(permissionTypes.sorted().joined(separator: ", "))"
                )
            }
            return .requestPermission(type: type, requestId: try fields.string("request_id"))
        case "request_callback":
            let behavior = try fields.string("behavior")
            guard behavior == "blocking" || behavior == "non-blocking" else {
                throw PageFieldError(reason: "behavior must be \"blocking\" or \"non-blocking\"")
            }
            return .requestCallback(
                requestId: try fields.string("request_id"),
                name: try fields.string("name"),
                isBlocking: behavior == "blocking",
                variables: try fields.optionalObject("variables")
            )
        case "schedule_notification":
            guard try fields.string("type") == "TRIAL_STARTED" else {
                throw PageFieldError(reason: "type must be \"TRIAL_STARTED\"")
            }
            return .scheduleNotification(
                title: try fields.string("title"),
                subtitle: try fields.optionalString("subtitle"),
                body: try fields.string("body"),
                delayMs: try fields.number("delay")
            )
        case "haptic_feedback": return .hapticFeedback(try fields.string("haptic_type"))
        case "page_view": return .pageView(try pageView(fields))
        case "initiate_web_checkout": return .initiateWebCheckout(contextId: try fields.string("checkout_context_id"))
        default:
            if name.hasPrefix("stripe_checkout_"),
                let stage = StripeCheckoutStage(rawValue: String(name.dropFirst("stripe_checkout_".count)))
            {
                return .stripeCheckout(
                    stage,
                    contextId: try fields.string("checkout_context_id"),
                    productIdentifier: try fields.string("product_identifier")
                )
            }
            throw PageFieldError(reason: "unknown event_name \"\(name)\"")
        }
    }

    /// `paywall_page_view`'s parameters, in snake_case whichever way the page spelled them.
    private static func pageView(_ fields: PageFields) throws(PageFieldError) -> [String: JSON] {
        var page: [String: JSON] = [
            "page_node_id": .string(try fields.string("page_node_id")),
            "flow_position": .int(Int64(try fields.integer("flow_position"))),
            "page_name": .string(try fields.string("page_name")),
            "navigation_node_id": .string(try fields.string("navigation_node_id")),
        ]
        let type = try fields.string("type")
        guard ["entry", "forward", "back", "auto_transition"].contains(type) else {
            throw PageFieldError(reason: "type must be entry, forward, back or auto_transition")
        }
        page["navigation_type"] = .string(type)
        if let previous = try fields.optionalString("previous_page_node_id") {
            page["previous_page_node_id"] = .string(previous)
        }
        if let position = try fields.optionalInteger("previous_flow_position") {
            page["previous_flow_position"] = .int(Int64(position))
        }
        if let time = try fields.optionalInteger("time_on_previous_page_ms") {
            page["time_on_previous_page_ms"] = .int(Int64(time))
        }
        return page
    }
}

struct PageFieldError: Error {
    var reason: String
}

/// An event's fields, read as SuperwallKit reads them: `product_identifier` or
/// `productIdentifier` (its decoder converts snake_case keys); the contents of free-form
/// objects keep their spelling.
struct PageFields {
    let fields: [String: JSON]

    init(_ event: JSON) throws(PageFieldError) {
        guard case .object(let fields) = event else { throw PageFieldError(reason: "the event is not an object") }
        self.fields = fields
    }

    private func value(_ snakeName: String) -> JSON? {
        if let value = fields[snakeName], value != .null { return value }
        let words = snakeName.split(separator: "_")
        let camel = words.enumerated().map { $0.offset == 0 ? String($0.element) : $0.element.capitalized }.joined()
        if let value = fields[camel], value != .null { return value }
        return nil
    }

    func optionalString(_ name: String) throws(PageFieldError) -> String? {
        guard let value = value(name) else { return nil }
        guard case .string(let text) = value else { throw PageFieldError(reason: "\(name) must be a string") }
        return text
    }

    func string(_ name: String) throws(PageFieldError) -> String {
        guard let text = try optionalString(name) else { throw PageFieldError(reason: "\(name) is required") }
        return text
    }

    /// A string, or a number as its text (`2`, `2.5`).
    func stringOrNumber(_ name: String) throws(PageFieldError) -> String {
        switch value(name) {
        case .int(let number)?: return String(number)
        case .double(let number)?: return number.rounded() == number ? String(Int64(number)) : String(number)
        default: return try string(name)
        }
    }

    func optionalBool(_ name: String) throws(PageFieldError) -> Bool? {
        guard let value = value(name) else { return nil }
        guard case .bool(let flag) = value else { throw PageFieldError(reason: "\(name) must be a boolean") }
        return flag
    }

    func number(_ name: String) throws(PageFieldError) -> Double {
        switch value(name) {
        case .int(let number)?: return Double(number)
        case .double(let number)?: return number
        case nil: throw PageFieldError(reason: "\(name) is required")
        default: throw PageFieldError(reason: "\(name) must be a number")
        }
    }

    func optionalInteger(_ name: String) throws(PageFieldError) -> Int? {
        guard let value = value(name) else { return nil }
        guard case .int(let number) = value, let integer = Int(exactly: number) else {
            throw PageFieldError(reason: "\(name) must be an integer")
        }
        return integer
    }

    func integer(_ name: String) throws(PageFieldError) -> Int {
        guard let number = try optionalInteger(name) else { throw PageFieldError(reason: "\(name) is required") }
        return number
    }

    func optionalObject(_ name: String) throws(PageFieldError) -> [String: JSON]? {
        guard let value = value(name) else { return nil }
        guard case .object(let members) = value else { throw PageFieldError(reason: "\(name) must be an object") }
        return members
    }

    func object(_ name: String) throws(PageFieldError) -> [String: JSON] {
        guard let members = try optionalObject(name) else { throw PageFieldError(reason: "\(name) is required") }
        return members
    }

    /// `[{"key": String, "value": any}]` as a dictionary.
    func attributes(_ name: String) throws(PageFieldError) -> [String: JSON] {
        guard case .array(let entries)? = value(name) else {
            throw PageFieldError(reason: "\(name) must be an array of {key, value}")
        }
        var attributes: [String: JSON] = [:]
        for entry in entries {
            guard case .object(let pair) = entry, case .string(let key)? = pair["key"] else {
                throw PageFieldError(reason: "\(name) must be an array of {key, value}")
            }
            attributes[key] = pair["value"] ?? .null
        }
        return attributes
    }
}
