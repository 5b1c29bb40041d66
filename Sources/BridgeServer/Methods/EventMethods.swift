import JSONRPC
import SuperwallCore

/// The event queue and deep links.
enum EventMethods {
    struct GetEventQueueStatus: BridgeMethod {
        static let name = "getEventQueueStatus"

        struct Answer: WireAnswer {
            let waiting: Int
            let dropped: Int

            var wireValue: JSONValue { ["waiting": .int(Int64(waiting)), "dropped": .int(Int64(dropped))] }
        }

        let superwall: Superwall

        init(_ context: MethodContext) { superwall = context.superwall }

        func answer(_ parameters: NoParameters) async throws -> Answer {
            let status = try await core { try await superwall.eventQueueStatus() }
            return Answer(waiting: status.waiting, dropped: status.dropped)
        }
    }

    /// Sends the queued events now rather than at the next flush interval.
    struct FlushEvents: BridgeMethod {
        static let name = "flushEvents"
        /// A collector that does not answer holds the call no longer than this; what is not
        /// sent stays queued on disk.
        static let timeLimit = Duration.seconds(10)

        struct Answer: WireAnswer {
            let flushed: Int

            var wireValue: JSONValue { ["flushed": .int(Int64(flushed))] }
        }

        let superwall: Superwall

        init(_ context: MethodContext) { superwall = context.superwall }

        func answer(_ parameters: NoParameters) async throws -> Answer {
            Answer(flushed: try await core { try await superwall.flushQueuedEvents(within: Self.timeLimit) })
        }
    }

    /// Allowed before `configure`: the link is kept and routed once the config is ready.
    struct HandleDeepLink: BridgeMethod {
        static let name = "handleDeepLink"

        /// Whether the link was handled and, when not, why; and the `deepLink_open` placement
        /// that may present a paywall (`awaitPresentations` waits for it).
        struct Answer: WireAnswer {
            let handled: Bool
            let reason: String?
            let placementId: String?

            var wireValue: JSONValue {
                var object: JSONObject = ["handled": .bool(handled)]
                if let reason { object["reason"] = .string(reason) }
                if let placementId { object["placementId"] = .string(placementId) }
                return .object(object)
            }
        }

        let superwall: Superwall

        init(_ context: MethodContext) { superwall = context.superwall }

        static func parameters(of request: IncomingRequest) throws(RPCError) -> String {
            try Params(request).string("url")
        }

        func answer(_ url: String) async throws -> Answer {
            let opening = try await core { try await superwall.openDeepLink(url) }
            let reason = opening.handled ? nil : DeepLink(url)?.unhandledReason
            return Answer(handled: opening.handled, reason: reason, placementId: opening.placementId)
        }
    }

    /// An extension: answers once every presentation asked for before it has run, so a host
    /// (a test above all) can wait for a paywall no `register` waits on.
    struct AwaitPresentations: BridgeMethod {
        static let name = "awaitPresentations"

        struct Answer: WireAnswer {
            let onScreen: (sessionId: String, info: PaywallInfo)?

            var wireValue: JSONValue {
                guard let onScreen else { return ["onScreen": .null] }
                return ["onScreen": ["sessionId": .string(onScreen.sessionId), "paywallInfo": onScreen.info.wireValue]]
            }
        }

        let superwall: Superwall

        init(_ context: MethodContext) { superwall = context.superwall }

        func answer(_ parameters: NoParameters) async -> Answer {
            Answer(onScreen: await superwall.presentationsSettled())
        }
    }
}

extension MethodTable {
    mutating func registerEventMethods(_ context: MethodContext) {
        register(EventMethods.GetEventQueueStatus.self, context)
        register(EventMethods.FlushEvents.self, context)
        register(EventMethods.HandleDeepLink.self, context)
        register(EventMethods.AwaitPresentations.self, context)
    }
}
