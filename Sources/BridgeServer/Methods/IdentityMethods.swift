import JSONRPC
import SuperwallCore

/// Who the user is and what is known of them and of the device.
enum IdentityMethods {
    /// `{userId}`: what `identify` and `reset` answer.
    struct UserIdAnswer: WireAnswer {
        let identity: Identity

        var wireValue: JSONValue { ["userId": .string(identity.userId)] }
    }

    struct Identify: BridgeMethod {
        static let name = "identify"

        struct Parameters: Sendable {
            let userId: String
            /// Server assignments come with the http source; others keep none.
            let restorePaywallAssignments: Bool
        }

        let superwall: Superwall

        init(_ context: MethodContext) { superwall = context.superwall }

        static func parameters(of request: IncomingRequest) throws(RPCError) -> Parameters {
            let params = try Params(request)
            let restore = try params.optionalObject("options")?.optionalBool("restorePaywallAssignments") ?? false
            let userId = try params.string("userId")
            try ClientLimits.check(userId, at: "params.userId", atMost: ClientLimits.userIdBytes)
            return Parameters(userId: userId, restorePaywallAssignments: restore)
        }

        func answer(_ parameters: Parameters) async throws -> UserIdAnswer {
            UserIdAnswer(
                identity: try await core {
                    try await superwall.identify(
                        userId: parameters.userId,
                        restorePaywallAssignments: parameters.restorePaywallAssignments
                    )
                }
            )
        }
    }

    struct Reset: BridgeMethod {
        static let name = "reset"

        let superwall: Superwall

        init(_ context: MethodContext) { superwall = context.superwall }

        func answer(_ parameters: NoParameters) async throws -> UserIdAnswer {
            UserIdAnswer(identity: try await core { try await superwall.reset() })
        }
    }

    struct GetUserId: BridgeMethod {
        static let name = "getUserId"

        let superwall: Superwall

        init(_ context: MethodContext) { superwall = context.superwall }

        func answer(_ parameters: NoParameters) async throws -> Identity {
            try await core { try await superwall.identity() }
        }
    }

    struct SetUserAttributes: BridgeMethod {
        static let name = "setUserAttributes"

        let superwall: Superwall

        init(_ context: MethodContext) { superwall = context.superwall }

        static func parameters(of request: IncomingRequest) throws(RPCError) -> [String: JSON?] {
            attributeChanges(try ClientLimits.checkedAttributes(Params(request)))
        }

        func answer(_ changes: [String: JSON?]) async throws -> AttributesAnswer {
            AttributesAnswer(written: try await core { try await superwall.mergeUserAttributes(changes) }.texts)
        }
    }

    struct GetUserAttributes: BridgeMethod {
        static let name = "getUserAttributes"

        let superwall: Superwall

        init(_ context: MethodContext) { superwall = context.superwall }

        func answer(_ parameters: NoParameters) async throws -> AttributesAnswer {
            AttributesAnswer(attributes: try await core { try await superwall.userAttributes() })
        }
    }

    struct SetIntegrationAttributes: BridgeMethod {
        static let name = "setIntegrationAttributes"

        let superwall: Superwall

        init(_ context: MethodContext) { superwall = context.superwall }

        static func parameters(of request: IncomingRequest) throws(RPCError) -> [String: JSON?] {
            let given = try ClientLimits.checkedAttributes(Params(request))
            // SuperwallKit takes its own list of services' ids; another key is a typo to report.
            if let unknown = given.keys.sorted().first(where: { !IntegrationAttributes.isKnown($0) }) {
                throw RPCError.invalidParams(
                    "params.attributes.\(unknown.prefix(64)) is not an integration attribute; the keys are \(IntegrationAttributes.names.joined(separator: ", ")).",
                    details: [
                        "path": .string("params.attributes.\(unknown.prefix(64))"),
                        "allowed": .array(IntegrationAttributes.names.map(JSONValue.string)),
                    ]
                )
            }
            return attributeChanges(given)
        }

        func answer(_ changes: [String: JSON?]) async throws -> AttributesAnswer {
            AttributesAnswer(attributes: try await core { try await superwall.setIntegrationAttributes(changes) })
        }
    }

    struct GetIntegrationAttributes: BridgeMethod {
        static let name = "getIntegrationAttributes"

        let superwall: Superwall

        init(_ context: MethodContext) { superwall = context.superwall }

        func answer(_ parameters: NoParameters) async throws -> AttributesAnswer {
            AttributesAnswer(attributes: try await core { try await superwall.integrationAttributes() })
        }
    }

    struct GetDeviceAttributes: BridgeMethod {
        static let name = "getDeviceAttributes"

        let superwall: Superwall

        init(_ context: MethodContext) { superwall = context.superwall }

        func answer(_ parameters: NoParameters) async throws -> AttributesAnswer {
            AttributesAnswer(attributes: try await core { try await superwall.sessionDeviceAttributes() })
        }
    }
}

extension Identity: WireAnswer {
    /// `getUserId`'s answer.
    var wireValue: JSONValue {
        [
            "userId": .string(userId), "aliasId": .string(aliasId),
            "appUserId": appUserId.map(JSONValue.string) ?? .null,
            "isLoggedIn": .bool(isLoggedIn), "seed": .int(Int64(seed)),
        ]
    }
}

extension MethodTable {
    mutating func registerIdentityMethods(_ context: MethodContext) {
        register(IdentityMethods.Identify.self, context)
        register(IdentityMethods.Reset.self, context)
        register(IdentityMethods.GetUserId.self, context)
        register(IdentityMethods.SetUserAttributes.self, context)
        register(IdentityMethods.GetUserAttributes.self, context)
        register(IdentityMethods.SetIntegrationAttributes.self, context)
        register(IdentityMethods.GetIntegrationAttributes.self, context)
        register(IdentityMethods.GetDeviceAttributes.self, context)
    }
}
