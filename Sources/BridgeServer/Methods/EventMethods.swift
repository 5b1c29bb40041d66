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

        /// Whether the link was handled and, when not, why.
        struct Answer: WireAnswer {
            let handled: Bool
            let reason: String?

            var wireValue: JSONValue {
                guard let reason else { return ["handled": .bool(handled)] }
                return ["handled": false, "reason": .string(reason)]
            }
        }

        let superwall: Superwall

        init(_ context: MethodContext) { superwall = context.superwall }

        static func parameters(of request: IncomingRequest) throws(RPCError) -> String {
            try Params(request).string("url")
        }

        func answer(_ url: String) async throws -> Answer {
            let handled = try await core { try await superwall.handleDeepLink(url) }
            guard !handled, let reason = DeepLink(url)?.unhandledReason else {
                return Answer(handled: handled, reason: nil)
            }
            return Answer(handled: false, reason: reason)
        }
    }
}

extension MethodTable {
    mutating func registerEventMethods(_ context: MethodContext) {
        register(EventMethods.GetEventQueueStatus.self, context)
        register(EventMethods.FlushEvents.self, context)
        register(EventMethods.HandleDeepLink.self, context)
    }
}
