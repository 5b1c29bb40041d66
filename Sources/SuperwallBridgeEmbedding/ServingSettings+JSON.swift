import BridgeServer
import JSONRPC
import Logging

/// What `superwall_bridge_open` accepts: the command line's serving settings, as a JSON object
/// with their names in camel case. Framing has no meaning in-process.
extension ServingSettings {
    struct Problem: Error, CustomStringConvertible {
        let description: String
    }

    /// Reads the options; nil or empty text means the defaults.
    init(json text: [UInt8]?) throws(Problem) {
        self.init()
        guard let text, !text.isEmpty else { return }
        let decoded = text.withUnsafeBytes { bytes in
            Result { () throws(JSONSyntaxError) in try JSONDecoding.decode(bytes) }
        }
        let value: JSONValue
        switch decoded {
        case .success(let decodedValue): value = decodedValue
        case .failure(let error): throw Problem(description: "the options are not JSON: \(error.positionedReason)")
        }
        guard case .object(let members) = value else {
            throw Problem(description: "the options must be a JSON object, such as {\"logLevel\": \"debug\"}")
        }
        for (name, member) in members {
            switch name {
            case "logLevel":
                guard case .string(let text) = member, let level = Logger.Level(rawValue: text) else {
                    throw Problem(
                        description:
                            "logLevel must be one of \(Logger.Level.allCases.map(\.rawValue).joined(separator: ", "))"
                    )
                }
                logLevel = level
            case "trace":
                guard case .string(let path) = member, !path.isEmpty else {
                    throw Problem(description: "trace must be a file path")
                }
                trace = path
            case "recordRedact":
                guard case .bool(let flag) = member else {
                    throw Problem(description: "recordRedact must be true or false")
                }
                recordRedact = flag
            case "record":
                guard case .string(let path) = member, !path.isEmpty else {
                    throw Problem(description: "record must be a file path")
                }
                record = path
            case "maxMessageSize": maxMessageSize = try Self.positive(member, name)
            case "maxQueuedOutput": maxQueuedOutput = try Self.positive(member, name)
            case "maxConfigSize": maxConfigSize = try Self.positive(member, name)
            case "watch":
                guard case .bool(let flag) = member else { throw Problem(description: "watch must be true or false") }
                watch = flag
            default:
                throw Problem(
                    description: "unknown option \"\(name)\"; the options are \(Self.names.joined(separator: ", "))"
                )
            }
        }
        if let conflict { throw Problem(description: conflict.description) }
    }

    private static func positive(_ value: JSONValue, _ name: String) throws(Problem) -> Int {
        switch value {
        case .int(let number) where number > 0: return Int(number)
        case .uint(let number) where number <= UInt64(Int.max): return Int(number)
        default: throw Problem(description: "\(name) must be a positive whole number of bytes")
        }
    }
}
