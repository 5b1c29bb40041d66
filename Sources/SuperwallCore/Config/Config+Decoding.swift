import Foundation
import Synchronization

/// Why a config could not be used, with the JSON path of the fault (`$.trigger_options[0]...`).
public struct ConfigDecodingError: Error, Sendable, Equatable, CustomStringConvertible {
    public var path: String
    public var reason: String
    public var description: String { "\(path): \(reason)" }
}

extension Config {
    /// Decodes a static-config response body with SuperwallKit's strictness: one malformed
    /// trigger, audience or paywall fails the whole config; a malformed product, local
    /// notification or computed property is dropped on its own (and listed in
    /// `droppedElements`); unknown keys are ignored.
    public static func decode(from data: Data) throws(ConfigDecodingError) -> Config {
        let dropped = DroppedElementLog()
        let decoder = JSONDecoder()
        decoder.userInfo[DroppedElementLog.key] = dropped
        do {
            var config = try decoder.decode(Config.self, from: data)
            config.droppedElements = dropped.elements
            return config
        } catch let error as DecodingError {
            throw ConfigDecodingError(error)
        } catch {
            throw ConfigDecodingError(path: "$", reason: String(describing: error))
        }
    }
}

extension ConfigDecodingError {
    init(_ error: DecodingError) {
        switch error {
        case .keyNotFound(let key, let context):
            self.init(path: jsonPath(context.codingPath + [key]), reason: "is required but missing")
        case .typeMismatch(let type, let context):
            self.init(path: jsonPath(context.codingPath), reason: "expected \(jsonTypeName(type))")
        case .valueNotFound(let type, let context):
            self.init(path: jsonPath(context.codingPath), reason: "expected \(jsonTypeName(type)), found null")
        case .dataCorrupted(let context):
            self.init(path: jsonPath(context.codingPath), reason: context.debugDescription)
        @unknown default:
            self.init(path: "$", reason: String(describing: error))
        }
    }
}

/// A coding path the way people write JSON paths: `$.trigger_options[2].rules[0]`.
func jsonPath(_ path: [any CodingKey]) -> String {
    path.reduce(into: "$") { text, key in
        if let index = key.intValue { text += "[\(index)]" } else { text += ".\(key.stringValue)" }
    }
}

private func jsonTypeName(_ type: Any.Type) -> String {
    switch type {
    case is String.Type: return "a string"
    case is Int.Type, is Double.Type: return "a number"
    case is Bool.Type: return "a boolean"
    default: return "\(type)"
    }
}

/// Collects what lossy arrays drop during one decode.
final class DroppedElementLog: Sendable {
    static let key = CodingUserInfoKey(rawValue: "superwall.droppedElements")!
    private let storage = Mutex<[ConfigProblem]>([])

    var elements: [ConfigProblem] { storage.withLock { $0 } }

    func record(_ element: ConfigProblem) {
        storage.withLock { $0.append(element) }
    }

    static func of(_ decoder: any Decoder) -> DroppedElementLog? {
        decoder.userInfo[key] as? DroppedElementLog
    }
}

extension KeyedDecodingContainer {
    /// An array whose malformed elements are dropped one by one, as SuperwallKit's
    /// `ThrowableDecodable` arrays are, each drop recorded in `log`. A missing key or null
    /// gives an empty array; a value that is not an array fails.
    func decodeLossyArray<Element: Decodable>(_ type: Element.Type, forKey key: Key, log: DroppedElementLog?) throws -> [Element] {
        guard contains(key), try !decodeNil(forKey: key) else { return [] }
        var elements = try nestedUnkeyedContainer(forKey: key)
        var decoded: [Element] = []
        while !elements.isAtEnd {
            let index = elements.currentIndex
            do {
                decoded.append(try elements.decode(Element.self))
            } catch {
                // A failed element does not advance the container; step over it.
                _ = try? elements.decode(SkippedValue.self)
                let reason = (error as? DecodingError).map { ConfigDecodingError($0).description } ?? "\(error)"
                log?.record(ConfigProblem(path: jsonPath(codingPath + [key]) + "[\(index)]", message: "dropped: \(reason)"))
            }
        }
        return decoded
    }

    /// A string-backed enum whose unknown values read as `fallback`; absent or null also gives
    /// `fallback`.
    func decodeEnum<Value: RawRepresentable>(_ type: Value.Type, forKey key: Key, unknownAs fallback: Value) throws -> Value
    where Value.RawValue == String {
        guard let raw = try decodeIfPresent(String.self, forKey: key) else { return fallback }
        return Value(rawValue: raw) ?? fallback
    }

    /// A string-backed enum that must be one of its known values.
    func decodeEnum<Value: RawRepresentable>(_ type: Value.Type, forKey key: Key) throws -> Value where Value.RawValue == String {
        let raw = try decode(String.self, forKey: key)
        guard let value = Value(rawValue: raw) else {
            throw DecodingError.dataCorruptedError(forKey: key, in: self, debugDescription: "unknown value \"\(raw)\"")
        }
        return value
    }
}

/// Decodes any JSON value and keeps nothing; used to step over an element.
private struct SkippedValue: Decodable {
    init(from decoder: any Decoder) throws {}
}
