import JSONRPC
import Logging
import SuperwallCore

/// `configure` and the calls that set how the SDK and the process behave.
enum ConfigurationMethods {
    struct Configure: BridgeMethod {
        static let name = "configure"

        /// `configure`'s answer: the core's outcome, with what the bridge found in the params.
        struct Answer: WireAnswer {
            let outcome: Superwall.ConfigureOutcome
            let warnings: [ConfigureKeys.Warning]

            var wireValue: JSONValue {
                [
                    "configurationStatus": .string(outcome.status.rawValue),
                    "userId": outcome.userId.map(JSONValue.string) ?? .null,
                    "error": outcome.error?.jsonValue ?? .null,
                    "warnings": .array(
                        warnings.map(\.jsonValue)
                            + outcome.storeProblems.map { problem in
                                ConfigureKeys.Warning(path: "options.dataDirectory", message: problem).jsonValue
                            }
                            + outcome.configProblems.map { problem in
                                ConfigureKeys.Warning(path: problem.path, message: problem.message).jsonValue
                            }
                    ),
                    "testMode": [
                        "active": .bool(outcome.testMode != nil),
                        "reason": outcome.testMode.map { .string($0.kind) } ?? .null,
                        "message": outcome.testMode.map { .string($0.message) } ?? .null,
                    ],
                    "dataDirectory": outcome.dataDirectory.map(JSONValue.string) ?? .null,
                ]
            }
        }

        let context: MethodContext

        init(_ context: MethodContext) { self.context = context }

        /// The params are read in `answer`: what they may hold depends on the client's
        /// capabilities and the process's flags, and the configure must announce itself first.
        static func parameters(of request: IncomingRequest) -> IncomingRequest { request }

        func answer(_ request: IncomingRequest) async throws -> Answer {
            var configure = try ConfigureRequest(
                Params(request),
                capabilities: context.host.capabilities,
                watchFiles: context.watchConfigFiles,
                maximumConfigSize: context.maximumConfigSize,
                httpTransport: context.httpTransport
            )
            let superwall = context.superwall
            if let level = configure.logLevel { context.logLevel.setLevel(level) }
            if let scopes = configure.logScopes { context.logLevel.setScopes(scopes) }
            if let locale = configure.localeIdentifier { await superwall.setLocaleIdentifier(locale) }
            if configure.usesManualClock { context.clock.stop() }
            for warning in configure.warnings { context.logger.warning("configure: \(warning.message)") }
            if let pinned = context.pinnedDataDirectory { configure.options.dataDirectory = pinned }
            if configure.options.randomSeed == nil, let seed = context.recordSeed {
                // A recorded session draws from the seed its recording names.
                configure.options.randomSeed = seed
            } else if let seed = configure.options.randomSeed {
                context.logger.warning(
                    "configure: options.randomSeed is \(Int64(bitPattern: seed)): every random draw (variants, holdouts, surveys, ids) is seeded and predictable; a test option, never for production"
                )
            }
            // A directory another session of this process is letting go of (a hot restart) is
            // waited for here, suspended: waiting inside the open held a thread.
            await DataDirectory.waitUntilThisProcessLetsGo(
                of: configure.options.dataDirectory ?? DataDirectory.defaultPath(apiKey: configure.apiKey),
                within: DataDirectory.thisProcessLetsGoWithin
            )
            configure.options.waitsForThisProcessToLetGo = false
            // Opening the data directory and loading a large config stall no one's messages.
            let start = try await offTheReader {
                try await core {
                    try await superwall.startConfiguring(apiKey: configure.apiKey, options: configure.options)
                }
            }
            // Calls sent after it wait for its session to be open, not for its config: the
            // core's calls wait for that themselves where SuperwallKit does.
            context.entryOrder.opener(for: .configure)?()
            let outcome = try await offTheReader { try await core { try await superwall.finishConfiguring(start) } }
            if let error = outcome.error, case .apiKeyMismatch = error { throw error.rpcError }
            for problem in outcome.configProblems.prefix(10) {
                context.logger.warning("configure: the config is in use, but \(problem)")
            }
            if outcome.configProblems.count > 10 {
                context.logger.warning(
                    "configure: the config has \(outcome.configProblems.count - 10) more problems: see configure's warnings"
                )
            }
            return Answer(outcome: outcome, warnings: configure.warnings)
        }
    }

    struct GetConfigurationStatus: BridgeMethod {
        static let name = "getConfigurationStatus"

        struct Answer: WireAnswer {
            let status: Superwall.ConfigurationStatus

            var wireValue: JSONValue { ["status": .string(status.rawValue)] }
        }

        let superwall: Superwall

        init(_ context: MethodContext) { superwall = context.superwall }

        func answer(_ parameters: NoParameters) async -> Answer {
            Answer(status: await superwall.configurationStatus)
        }
    }

    struct RefreshConfiguration: BridgeMethod {
        static let name = "refreshConfiguration"

        let superwall: Superwall

        init(_ context: MethodContext) { superwall = context.superwall }

        func answer(_ parameters: NoParameters) async throws -> ConfigRefresh {
            try await offTheReader { try await core { try await superwall.refreshConfiguration() } }
        }
    }

    struct SetDelegate: BridgeMethod {
        static let name = "setDelegate"

        let delegate: DelegateChannel

        init(_ context: MethodContext) { delegate = context.delegate }

        static func parameters(of request: IncomingRequest) throws(RPCError) -> Bool {
            try Params(request).bool("enabled")
        }

        func answer(_ enabled: Bool) -> Done {
            delegate.bind(enabled)
            return Done()
        }
    }

    struct SetLogLevel: BridgeMethod {
        static let name = "setLogLevel"

        let logLevel: any LogLevelControl

        init(_ context: MethodContext) { logLevel = context.logLevel }

        static func parameters(of request: IncomingRequest) throws(RPCError) -> Logger.Level {
            let name = try Params(request).string("level")
            guard let level = Logger.Level(superwallName: name) else {
                throw RPCError.invalidParams(
                    "params.level must be debug, info, warn, error or none (or trace, notice, warning, critical), not \"\(name)\".",
                    details: ["path": "params.level"]
                )
            }
            return level
        }

        func answer(_ level: Logger.Level) -> Done {
            logLevel.setLevel(level)
            return Done()
        }
    }

    /// `{level}`: the log level in effect, by SuperwallKit's name (a getter the wrappers have).
    struct GetLogLevel: BridgeMethod {
        static let name = "getLogLevel"

        struct Answer: WireAnswer {
            let level: Logger.Level

            var wireValue: JSONValue {
                ["level": .string(level == .critical ? "none" : ClientLog.superwallName(of: level))]
            }
        }

        let logLevel: any LogLevelControl

        init(_ context: MethodContext) { logLevel = context.logLevel }

        func answer(_ parameters: NoParameters) -> Answer { Answer(level: logLevel.level) }
    }

    /// `{localeIdentifier}`: the locale override in effect; null is the device's.
    struct GetLocaleIdentifier: BridgeMethod {
        static let name = "getLocaleIdentifier"

        struct Answer: WireAnswer {
            let localeIdentifier: String?

            var wireValue: JSONValue { ["localeIdentifier": localeIdentifier.map(JSONValue.string) ?? .null] }
        }

        let superwall: Superwall

        init(_ context: MethodContext) { superwall = context.superwall }

        func answer(_ parameters: NoParameters) async -> Answer {
            Answer(localeIdentifier: await superwall.localeIdentifier)
        }
    }

    /// `{options}`: SuperwallKit's `options` in effect, in `config_attributes`' form.
    struct GetOptions: BridgeMethod {
        static let name = "getOptions"

        struct Answer: WireAnswer {
            let options: [String: JSON]

            var wireValue: JSONValue { ["options": JSONValue(JSON.object(options))] }
        }

        let superwall: Superwall
        let logLevel: any LogLevelControl

        init(_ context: MethodContext) {
            superwall = context.superwall
            logLevel = context.logLevel
        }

        func answer(_ parameters: NoParameters) async throws -> Answer {
            let level = logLevel.level
            return Answer(options: try await core { try await superwall.optionsInEffect(logLevel: level) })
        }
    }

    struct SetLocaleIdentifier: BridgeMethod {
        static let name = "setLocaleIdentifier"

        let superwall: Superwall

        init(_ context: MethodContext) { superwall = context.superwall }

        /// Nil is the device's locale.
        static func parameters(of request: IncomingRequest) throws(RPCError) -> String? {
            let params = try Params(request)
            try params.requirePresent("localeIdentifier", "a string, or null for the device's locale")
            let identifier = try params.optionalString("localeIdentifier")
            if let identifier {
                try ClientLimits.check(identifier, at: "params.localeIdentifier", atMost: ClientLimits.nameBytes)
            }
            return identifier
        }

        func answer(_ identifier: String?) async -> Done {
            await superwall.setLocaleIdentifier(identifier)
            return Done()
        }
    }

    /// SuperwallKit's `eventTrackingBehavior` setter: `{behavior: "all" | "superwallOnly" |
    /// "none"}` (any case, `SUPERWALL_ONLY` as Android spells it).
    struct SetEventTrackingBehavior: BridgeMethod {
        static let name = "setEventTrackingBehavior"

        let superwall: Superwall

        init(_ context: MethodContext) { superwall = context.superwall }

        static func parameters(of request: IncomingRequest) throws(RPCError) -> EventTrackingBehavior {
            let name = try Params(request).string("behavior")
            let folded = name.lowercased().replacingOccurrences(of: "_", with: "")
            guard let behavior = EventTrackingBehavior.allCases.first(where: { $0.rawValue.lowercased() == folded })
            else {
                throw RPCError.invalidParams(
                    "params.behavior must be one of all, superwallOnly, none, not \"\(name.prefix(64))\".",
                    details: ["path": "params.behavior"]
                )
            }
            return behavior
        }

        func answer(_ behavior: EventTrackingBehavior) async throws -> Done {
            try await core { try await superwall.setEventTrackingBehavior(behavior) }
            return Done()
        }
    }

    struct SetInterfaceStyle: BridgeMethod {
        static let name = "setInterfaceStyle"

        let superwall: Superwall

        init(_ context: MethodContext) { superwall = context.superwall }

        /// Nil is the device's style.
        static func parameters(of request: IncomingRequest) throws(RPCError) -> Superwall.InterfaceStyle? {
            let params = try Params(request)
            try params.requirePresent("style", "\"light\", \"dark\", or null for the device's")
            switch try params.optionalString("style")?.lowercased() {
            case nil: return nil
            case "light": return .light
            case "dark": return .dark
            default:
                throw RPCError.invalidParams(
                    "params.style must be \"light\", \"dark\" or null.",
                    details: ["path": "params.style"]
                )
            }
        }

        func answer(_ style: Superwall.InterfaceStyle?) async throws -> Done {
            try await core { try await superwall.setInterfaceStyle(style) }
            return Done()
        }
    }

    /// Allowed before `configure`, as wrappers say who they are first.
    struct SetPlatformWrapper: BridgeMethod {
        static let name = "setPlatformWrapper"

        struct Parameters: Sendable {
            let name: String
            let version: String
        }

        let superwall: Superwall

        init(_ context: MethodContext) { superwall = context.superwall }

        static func parameters(of request: IncomingRequest) throws(RPCError) -> Parameters {
            let params = try Params(request)
            let name = try params.string("platformWrapper")
            let version = try params.string("version")
            try ClientLimits.check(name, at: "params.platformWrapper", atMost: ClientLimits.nameBytes)
            try ClientLimits.check(version, at: "params.version", atMost: ClientLimits.nameBytes)
            return Parameters(name: name, version: version)
        }

        func answer(_ wrapper: Parameters) async -> Done {
            await superwall.setPlatformWrapper(wrapper.name, version: wrapper.version)
            return Done()
        }
    }
}

extension ConfigRefresh: WireAnswer {}

extension MethodTable {
    mutating func registerConfigurationMethods(_ context: MethodContext) {
        register(ConfigurationMethods.Configure.self, context)
        register(ConfigurationMethods.GetConfigurationStatus.self, context)
        register(ConfigurationMethods.RefreshConfiguration.self, context)
        register(ConfigurationMethods.SetDelegate.self, context)
        register(ConfigurationMethods.SetLogLevel.self, context)
        register(ConfigurationMethods.SetLocaleIdentifier.self, context)
        register(ConfigurationMethods.GetLogLevel.self, context)
        register(ConfigurationMethods.GetLocaleIdentifier.self, context)
        register(ConfigurationMethods.GetOptions.self, context)
        register(ConfigurationMethods.SetInterfaceStyle.self, context)
        register(ConfigurationMethods.SetEventTrackingBehavior.self, context)
        register(ConfigurationMethods.SetPlatformWrapper.self, context)
    }
}
