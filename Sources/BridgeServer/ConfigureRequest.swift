import Foundation
import JSONRPC
import SuperwallCore

/// `configure`'s params: `{apiKey, options?, device?}`.
struct ConfigureRequest {
    let apiKey: String
    let options: Superwall.ConfigureOptions

    init(_ params: Params) throws(RPCError) {
        apiKey = try params.string("apiKey")
        guard !apiKey.trimmingCharacters(in: .whitespaces).isEmpty else {
            throw RPCError.invalidParams("params.apiKey must not be empty.", details: ["path": "params.apiKey"])
        }
        let options = try params.optionalObject("options")
        let source = try Self.configSource(options?.optionalObject("configSource"), path: options?.path(of: "configSource") ?? "params.options.configSource")
        let device = try params.optionalJSONObject("device") ?? [:]
        self.options = Superwall.ConfigureOptions(
            configSource: source,
            dataDirectory: try options?.optionalString("dataDirectory"),
            device: [String: JSON](device),
            reportedOptions: [String: JSON]((options?.members ?? [:]).filter { $0.key != "configSource" }))
    }

    /// `{type: "embedded"}`, `{type: "file", path, watch?}` or `{type: "http", baseUrl}`; without
    /// one, SuperwallKit's own source, the Superwall API over HTTP.
    private static func configSource(_ source: Params?, path: String) throws(RPCError) -> any ConfigSource {
        guard let source else {
            throw notBuilt("configSource http (the default, the Superwall API)", hint: "pass options.configSource {type: \"embedded\"} or {type: \"file\", path}")
        }
        switch try source.string("type") {
        case "embedded":
            return EmbeddedConfigSource()
        case "file":
            if try source.optionalBool("watch") == true {
                throw notBuilt("configSource file with watch: true", hint: "omit watch")
            }
            return FileConfigSource(path: try source.string("path"))
        case "http":
            throw notBuilt("configSource http", hint: "use {type: \"embedded\"} or {type: \"file\", path}")
        case let other:
            throw RPCError.invalidParams("\(path).type must be \"embedded\", \"file\" or \"http\", not \"\(other)\".", details: ["path": .string("\(path).type")])
        }
    }

    private static func notBuilt(_ what: String, hint: String) -> RPCError {
        RPCError(code: -32601, message: "Not implemented yet: \(what) is part of the protocol but this build does not provide it; \(hint).",
                 kind: "notImplemented", details: ["feature": .string(what)])
    }
}
