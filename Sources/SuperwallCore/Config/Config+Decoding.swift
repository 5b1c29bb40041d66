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
    ///
    /// The placements, paywalls and products are decoded one element at a time (see
    /// `ConfigText`), the rest as one small object.
    ///
    /// With `previous`, the config in use, a placement or paywall whose text is the same as
    /// one of `previous`'s is taken from it instead of decoded again: a hot reload after an
    /// edit of one paywall decodes that paywall, not thousands. An element that dropped
    /// something is always decoded again, so every drop is still reported.
    public static func decode(from data: Data) throws(ConfigDecodingError) -> Config {
        try decode(from: data, reusing: nil)
    }

    public static func decode(from data: Data, reusing previous: Config?) throws(ConfigDecodingError) -> Config {
        let dropped = DroppedElementLog()
        let decoder = JSONDecoder()
        decoder.userInfo[DroppedElementLog.key] = dropped
        let layout = try data.withUnsafeBytes { bytes in Result { () throws(ConfigDecodingError) in try ConfigLayout(bytes) } }.get()
        // SuperwallKit's order, so that the first fault is the one reported: the build id,
        // the placements, the paywalls, then the rest.
        let _: ConfigHeader.BuildId = try decodePart(layout.header, at: "$", with: decoder)
        var decodedText = DecodedText()
        func decodeEach<Element: Decodable>(
            of key: String, reusing known: (elements: [Element], positions: [TextDigest: Int])?
        ) throws(ConfigDecodingError) -> (elements: [Element], positions: [TextDigest: Int]) {
            let elements = try layout.elements(of: key)
            var decoded: [Element] = []
            var positions: [TextDigest: Int] = [:]
            decoded.reserveCapacity(elements.count)
            positions.reserveCapacity(elements.count)
            for (index, element) in elements.enumerated() {
                let text = data.slice(element)
                let digest = TextDigest(text)
                if let position = known?.positions[digest], let elements = known?.elements, position < elements.count {
                    decoded.append(elements[position])
                    decodedText.reused += 1
                } else {
                    let drops = dropped.count
                    decoded.append(try decodePart(text, at: "$.\(key)[\(index)]", with: decoder))
                    guard dropped.count == drops else { continue }
                }
                positions[digest] = decoded.count - 1
            }
            return (decoded, positions)
        }
        let triggers: [Trigger]
        (triggers, decodedText.triggers) = try decodeEach(of: "trigger_options", reusing: previous.map { ($0.triggers, $0.decodedText.triggers) })
        let paywalls: [Paywall]
        (paywalls, decodedText.paywalls) = try decodeEach(of: "paywall_responses", reusing: previous.map { ($0.paywalls, $0.decodedText.paywalls) })
        let header: ConfigHeader = try decodePart(layout.header, at: "$", with: decoder)
        var products: [Product] = []
        // A missing or null `products_v3` is no products, as SuperwallKit's lossy array reads it.
        for (index, element) in (layout.isAbsent("products_v3") ? [] : try layout.elements(of: "products_v3")).enumerated() {
            let path = "$.products_v3[\(index)]"
            switch Result(catching: { () throws(PartFault) -> Product in try attemptPart(data.slice(element), at: path, with: decoder) }) {
            case .success(let product): products.append(product)
            case .failure(.decoding(let fault)): dropped.record(ConfigProblem(path: path, message: "dropped: \(fault)"))
            case .failure(.syntax(let fault)): throw fault
            }
        }
        var config = Config(header: header, triggers: triggers, paywalls: paywalls, products: products)
        config.droppedElements = dropped.elements
        config.decodedText = decodedText
        return config
    }

    /// Decodes `text` as a `Part`, with the paths of its errors and drops under `path`.
    private static func decodePart<Part: Decodable>(_ text: Data, at path: String, with decoder: JSONDecoder) throws(ConfigDecodingError) -> Part {
        switch Result(catching: { () throws(PartFault) -> Part in try attemptPart(text, at: path, with: decoder) }) {
        case .success(let part): return part
        case .failure(.syntax(let fault)), .failure(.decoding(let fault)): throw fault
        }
    }

    /// Why a part did not decode: text that is not JSON fails a config wherever it is; a
    /// part that is JSON but not what SuperwallKit expects may be dropped on its own.
    private enum PartFault: Error {
        case syntax(ConfigDecodingError)
        case decoding(ConfigDecodingError)
    }

    private static func attemptPart<Part: Decodable>(_ text: Data, at path: String, with decoder: JSONDecoder) throws(PartFault) -> Part {
        (decoder.userInfo[DroppedElementLog.key] as? DroppedElementLog)?.pathPrefix = path
        do {
            return try decoder.decode(Part.self, from: text)
        } catch let error as DecodingError {
            if case .dataCorrupted(let context) = error, context.codingPath.isEmpty {
                throw .syntax(ConfigDecodingError(error).under(path))
            }
            throw .decoding(ConfigDecodingError(error).under(path))
        } catch {
            throw .syntax(ConfigDecodingError(path: path, reason: String(describing: error)))
        }
    }

    private init(header: ConfigHeader, triggers: [Trigger], paywalls: [Paywall], products: [Product]) {
        buildId = header.buildId
        self.triggers = triggers
        self.paywalls = paywalls
        triggerPositions = Self.positions(of: triggers, by: \.placementName, keeping: .last)
        paywallPositions = Self.positions(of: paywalls, by: \.identifier, keeping: .first)
        logLevel = header.logLevel
        appSessionTimeoutMs = header.appSessionTimeoutMs
        featureFlags = header.featureFlags
        preloadingDisabled = header.preloadingDisabled
        locales = header.locales
        attribution = header.attribution
        self.products = products
        web2appConfig = header.web2appConfig
        prioritizedCampaignId = header.prioritizedCampaignId
        iosAppId = header.iosAppId
        bundleIdConfig = header.bundleIdConfig
        testModeUserIds = header.testModeUserIds
        requestId = header.requestId
        droppedElements = []
    }
}

/// Where a config's parts are in its text: the elements of the three large arrays, and the
/// text of a small object of every other member.
private struct ConfigLayout {
    static let arrays = ["trigger_options", "paywall_responses", "products_v3"]

    /// An object of every other member, as written.
    private(set) var header = Data()
    /// The arrays present, split (or why they could not be), by key.
    private var elements: [String: Result<[Range<Int>], ConfigDecodingError>] = [:]
    /// The arrays written as `null`.
    private var nulls: Set<String> = []

    init(_ bytes: UnsafeRawBufferPointer) throws(ConfigDecodingError) {
        let text = try ConfigText(bytes)
        for key in Self.arrays {
            guard let member = text.member(key) else { continue }
            if Self.isNull(member.value, in: bytes) {
                nulls.insert(key)
                elements[key] = .failure(ConfigDecodingError(path: "$.\(key)", reason: "expected an array, found null"))
                continue
            }
            elements[key] = Result { () throws(ConfigDecodingError) in try ConfigText.elements(of: member.value, in: bytes, path: "$.\(key)") }
        }
        header.append(UInt8(ascii: "{"))
        for member in text.members where !Self.arrays.contains(member.key) {
            if header.count > 1 { header.append(UInt8(ascii: ",")) }
            header.append(contentsOf: UnsafeRawBufferPointer(rebasing: bytes[member.rawKey.lowerBound..<member.value.upperBound]))
        }
        header.append(UInt8(ascii: "}"))
    }

    /// Whether the array `key` is missing or null.
    func isAbsent(_ key: String) -> Bool {
        elements[key] == nil || nulls.contains(key)
    }

    /// The elements of the array `key`, which must be there.
    func elements(of key: String) throws(ConfigDecodingError) -> [Range<Int>] {
        guard let split = elements[key] else { throw ConfigDecodingError(path: "$.\(key)", reason: "is required but missing") }
        return try split.get()
    }

    private static func isNull(_ value: Range<Int>, in bytes: UnsafeRawBufferPointer) -> Bool {
        value.count == 4 && bytes[value.lowerBound] == UInt8(ascii: "n")
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

extension ConfigDecodingError {
    /// The error with its path under `prefix`: `$.rules[0]` under `$.trigger_options[3]` is
    /// `$.trigger_options[3].rules[0]`.
    func under(_ prefix: String) -> ConfigDecodingError {
        ConfigDecodingError(path: prefix + path.dropFirst(), reason: reason)
    }
}

extension Data {
    /// The bytes at `offsets` (counted from the start), sharing this storage.
    func slice(_ offsets: Range<Int>) -> Data {
        self[(startIndex + offsets.lowerBound)..<(startIndex + offsets.upperBound)]
    }
}

/// Collects what lossy arrays drop during one decode.
final class DroppedElementLog: Sendable {
    static let key = CodingUserInfoKey(rawValue: "superwall.droppedElements")!
    private let storage = Mutex<(elements: [ConfigProblem], pathPrefix: String)>(([], "$"))

    var elements: [ConfigProblem] { storage.withLock { $0.elements } }
    var count: Int { storage.withLock { $0.elements.count } }

    /// Where the part being decoded is in the whole config: the `$` of its coding paths.
    var pathPrefix: String {
        get { storage.withLock { $0.pathPrefix } }
        set { storage.withLock { $0.pathPrefix = newValue } }
    }

    func record(_ element: ConfigProblem) {
        storage.withLock { $0.elements.append(element) }
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
                let prefix = log?.pathPrefix ?? "$"
                let reason = (error as? DecodingError).map { ConfigDecodingError($0).under(prefix).description } ?? "\(error)"
                let path = ConfigDecodingError(path: jsonPath(codingPath + [key]) + "[\(index)]", reason: "").under(prefix).path
                log?.record(ConfigProblem(path: path, message: "dropped: \(reason)"))
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

/// Where a config's placements and paywalls were in the text it was decoded from, by a digest
/// of each one's text, for the next decode to reuse them (`Config.decode(from:reusing:)`).
struct DecodedText: Sendable, Equatable {
    var triggers: [TextDigest: Int] = [:]
    var paywalls: [TextDigest: Int] = [:]
    /// How many elements this decode took from the previous config rather than decoding them.
    var reused = 0

    /// Derived from the text, not part of the config's value: configs with the same elements
    /// are equal whatever text they came from.
    static func == (lhs: DecodedText, rhs: DecodedText) -> Bool { true }
}

/// A digest of an element's text: its length, Swift's keyed SipHash of it, and an FNV-1a
/// hash of its 8-byte words. Two texts that differ share one by chance with a probability of
/// about 2^-128; the second hash costs a tenth of a second SipHash over megabytes.
struct TextDigest: Hashable, Sendable {
    private let count: Int
    private let sipHash: Int
    private let wordHash: UInt64

    init(_ text: Data) {
        count = text.count
        (sipHash, wordHash) = text.withUnsafeBytes { bytes in
            var hasher = Hasher()
            hasher.combine(bytes: bytes)
            var words: UInt64 = 0xCBF2_9CE4_8422_2325
            var offset = 0
            while offset + 8 <= bytes.count {
                words = (words ^ bytes.loadUnaligned(fromByteOffset: offset, as: UInt64.self)) &* 0x0000_0100_0000_01B3
                offset += 8
            }
            while offset < bytes.count {
                words = (words ^ UInt64(bytes[offset])) &* 0x0000_0100_0000_01B3
                offset += 1
            }
            return (hasher.finalize(), words)
        }
    }
}
