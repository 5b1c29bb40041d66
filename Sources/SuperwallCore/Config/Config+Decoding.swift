import Foundation
import JSONText
import Synchronization

/// Why a config could not be used, with the JSON path of the fault (`$.trigger_options[0]...`).
public struct ConfigDecodingError: Error, Sendable, Equatable, CustomStringConvertible {
    public var path: String
    public var reason: String
    /// For text that is not JSON: where it stops being JSON, 1-based (the column in bytes).
    public var line: Int?
    public var column: Int?
    public var description: String {
        guard let line, let column else { return "\(path): \(reason)" }
        return "line \(line), column \(column): \(reason)"
    }

    public init(path: String, reason: String, line: Int? = nil, column: Int? = nil) {
        self.path = path
        self.reason = reason
        self.line = line
        self.column = column
    }

    /// Text that is not JSON, at `offset` of `text`.
    init(syntax: JSONTextSyntaxError, in text: Data) {
        let offset = min(max(syntax.offset, 0), text.count)
        let before = text.prefix(offset)
        let lastNewline = before.lastIndex(of: UInt8(ascii: "\n"))
        self.init(
            path: "$",
            reason: "not JSON: \(syntax.reason)",
            line: before.count { $0 == UInt8(ascii: "\n") } + 1,
            column: offset - (lastNewline.map { $0 - text.startIndex + 1 } ?? 0) + 1
        )
    }
}

extension Config {
    /// Decodes a static-config response body with SuperwallKit's strictness: one malformed
    /// trigger, audience or paywall fails the whole config; a malformed product, local
    /// notification or computed property is dropped on its own (and listed in
    /// `droppedElements`); unknown keys are ignored.
    ///
    /// The text is read once, a value at a time (`ConfigReader`): each placement, paywall and
    /// product is checked, indexed and decoded on its own.
    ///
    /// With `previous`, the config in use, a placement or paywall whose text is the same as
    /// one of `previous`'s is taken from it instead of decoded again: a hot reload after an
    /// edit of one paywall decodes that paywall, not thousands. An element that dropped
    /// something is always decoded again, so every drop is still reported.
    /// `platform`: whose rules the config is read by where the two SDKs differ (a Google Play
    /// product is kept for Android only).
    public static func decode(
        from data: Data,
        for platform: ReferenceSDK = .superwallKit
    ) throws(ConfigDecodingError) -> Config {
        try decode(from: data, reusing: nil, for: platform)
    }

    public static func decode(
        from text: Data,
        reusing previous: Config?,
        for platform: ReferenceSDK = .superwallKit
    ) throws(ConfigDecodingError) -> Config {
        let data = withoutByteOrderMark(text)
        do {
            return try data.withUnsafeBytes { bytes in
                var reader = ConfigReader(reusing: previous, for: platform)
                return try reader.read(bytes)
            }
        } catch let error as ConfigDecodingError {
            throw error
        } catch let error as DecodingError {
            // Text that is not JSON fails the config wherever it is.
            if case .dataCorrupted(let context) = error, let syntax = context.underlyingError as? JSONTextSyntaxError {
                throw ConfigDecodingError(syntax: syntax, in: data)
            }
            throw ConfigDecodingError(error)
        } catch {
            throw ConfigDecodingError(path: "$", reason: String(describing: error))
        }
    }

    /// The text without the UTF-8 byte order mark a Windows editor writes at its start.
    public static func withoutByteOrderMark(_ text: Data) -> Data {
        text.starts(with: [0xEF, 0xBB, 0xBF]) ? Data(text.dropFirst(3)) : text
    }

    init(header: ConfigHeader, triggers: [Trigger], paywalls: [Paywall], products: [Product]) {
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

extension ConfigDecodingError {
    static let missingReason = "is required but missing"

    /// A top-level key that is missing, with the member of `names` it was most likely
    /// misspelt as (`trigger_optoins` for `trigger_options`), if there is one.
    func suggestingTopLevelKey(among names: [String]) -> ConfigDecodingError {
        guard reason == Self.missingReason, line == nil, path.hasPrefix("$.") else { return self }
        let key = path.dropFirst(2)
        guard !key.contains(where: { $0 == "." || $0 == "[" }),
            let nearest = NearestName.among(names.lazy.filter { $0 != key }, to: String(key))
        else { return self }
        var suggested = self
        suggested.reason += "; the config has \"\(nearest)\": did you mean \"\(key)\"?"
        return suggested
    }

    init(_ error: DecodingError) {
        switch error {
        case .keyNotFound(let key, let context):
            self.init(path: jsonPath(context.codingPath + [key]), reason: Self.missingReason)
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

/// Which SDK a session follows where SuperwallKit and Superwall-Android differ: Android's for a
/// device whose `platform` is Android, SuperwallKit's for every other.
public enum ReferenceSDK: Sendable {
    case superwallKit
    case superwallAndroid

    static let key = CodingUserInfoKey(rawValue: "superwall.referenceSDK")!

    public init(devicePlatform: String) {
        self = devicePlatform.lowercased() == "android" ? .superwallAndroid : .superwallKit
    }

    /// The rules of the config being decoded; SuperwallKit's unless the decode says otherwise.
    static func of(_ decoder: any Decoder) -> ReferenceSDK {
        decoder.userInfo[key] as? ReferenceSDK ?? .superwallKit
    }
}

/// Collects what one decode leaves out: the elements lossy arrays drop, and the members no
/// decoder reads (`ignoredMembers`).
final class DroppedElementLog: Sendable {
    static let key = CodingUserInfoKey(rawValue: "superwall.droppedElements")!

    private struct Entries {
        var elements: [ConfigProblem] = []
        var ignored: [ConfigProblem] = []
        /// How many members were ignored, those past `ignoredListed` included.
        var ignoredCount = 0
        var pathPrefix = "$"
    }

    private let storage = Mutex(Entries())

    /// The most unknown keys one decode lists; the others are counted. A config of a million
    /// misspelt keys otherwise answered `configure` with 72 MB of warnings, after a minute.
    static let ignoredListed = 200

    var elements: [ConfigProblem] { storage.withLock { $0.elements } }
    var ignoredMembers: [ConfigProblem] { storage.withLock { $0.ignored } }
    /// How many members were ignored, listed or not.
    var ignoredCount: Int { storage.withLock { $0.ignoredCount } }
    /// Both kinds: an element that left anything out is decoded again on reuse, so that it is
    /// reported again.
    var count: Int { storage.withLock { $0.elements.count + $0.ignoredCount } }

    /// Where the part being decoded is in the whole config: the `$` of its coding paths.
    var pathPrefix: String {
        get { storage.withLock { $0.pathPrefix } }
        set { storage.withLock { $0.pathPrefix = newValue } }
    }

    func record(_ element: ConfigProblem) {
        storage.withLock { $0.elements.append(element) }
    }

    /// Counts an ignored member, and lists it while fewer than `ignoredListed` are: `describe`
    /// is called only then.
    func recordIgnored(_ describe: () -> ConfigProblem) {
        let listed = storage.withLock { entries in
            entries.ignoredCount += 1
            return entries.ignored.count < Self.ignoredListed
        }
        guard listed else { return }
        let problem = describe()
        storage.withLock { $0.ignored.append(problem) }
    }

    /// The ignored members of several logs: the first `ignoredListed`, then one line that
    /// counts the others.
    static func ignoredMembers(of logs: [DroppedElementLog]) -> [ConfigProblem] {
        let listed = logs.flatMap(\.ignoredMembers).prefix(ignoredListed)
        let others = logs.reduce(0) { $0 + $1.ignoredCount } - listed.count
        guard others > 0 else { return Array(listed) }
        return listed
            + [
                ConfigProblem(
                    path: "$",
                    message: "\(others) more unknown keys are ignored: only the first \(ignoredListed) are listed"
                )
            ]
    }

    static func of(_ decoder: any Decoder) -> DroppedElementLog? {
        decoder.userInfo[key] as? DroppedElementLog
    }
}

extension KeyedDecodingContainer {
    /// An array whose malformed elements are dropped one by one, as SuperwallKit's
    /// `ThrowableDecodable` arrays are, each drop recorded in `log`. A missing key or null
    /// gives an empty array; a value that is not an array fails.
    func decodeLossyArray<Element: Decodable>(
        _ type: Element.Type,
        forKey key: Key,
        log: DroppedElementLog?
    ) throws -> [Element] {
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
                let reason =
                    (error as? DecodingError).map { ConfigDecodingError($0).under(prefix).description } ?? "\(error)"
                let path = ConfigDecodingError(path: jsonPath(codingPath + [key]) + "[\(index)]", reason: "").under(
                    prefix
                ).path
                log?.record(ConfigProblem(path: path, message: "dropped: \(reason)"))
            }
        }
        return decoded
    }

    /// `decode([Element].self, forKey:)`, with the same errors, but specialized here: the
    /// standard library's `Array.init(from:)` is generic at run time, and its appends cost a
    /// config of thousands of products about a thousand instructions an element.
    func decodeArray<Element: Decodable>(_ type: Element.Type, forKey key: Key) throws -> [Element] {
        var elements = try nestedUnkeyedContainer(forKey: key)
        var decoded: [Element] = []
        decoded.reserveCapacity(elements.count ?? 0)
        while !elements.isAtEnd { decoded.append(try elements.decode(Element.self)) }
        return decoded
    }

    /// A string-backed enum whose unknown values read as `fallback`; absent or null also gives
    /// `fallback`.
    func decodeEnum<Value: RawRepresentable>(
        _ type: Value.Type,
        forKey key: Key,
        unknownAs fallback: Value
    ) throws -> Value
    where Value.RawValue == String {
        guard let raw = try decodeIfPresent(String.self, forKey: key) else { return fallback }
        return Value(rawValue: raw) ?? fallback
    }

    /// A string-backed enum that must be one of its known values.
    func decodeEnum<Value: RawRepresentable>(_ type: Value.Type, forKey key: Key) throws -> Value
    where Value.RawValue == String {
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

/// A digest of an element's text: its length and two 64-bit hashes, each a chain of
/// 128-bit multiplications of 16-byte blocks (the mixing step of wyhash) from its own seed,
/// drawn at random for each process. A SipHash of megabytes costs several instructions a byte;
/// this costs under one. Texts that differ share a digest by chance with a probability of
/// about 2^-128 (this is a hash for texts nobody crafts against this process's seeds, not a
/// cryptographic one).
struct TextDigest: Hashable, Sendable {
    private let count: Int
    private let first: UInt64
    private let second: UInt64

    private static let seeds = (UInt64.random(in: .min ... .max), UInt64.random(in: .min ... .max))

    init(_ text: UnsafeRawBufferPointer) {
        count = text.count
        var first = Self.seeds.0
        var second = Self.seeds.1
        var offset = 0
        while offset + 16 <= text.count {
            let low = UInt64(littleEndian: text.loadUnaligned(fromByteOffset: offset, as: UInt64.self))
            let high = UInt64(littleEndian: text.loadUnaligned(fromByteOffset: offset + 8, as: UInt64.self))
            first = Self.mix(low ^ first, high ^ 0xA076_1D64_78BD_642F)
            second = Self.mix(low ^ second, high ^ 0xE703_7ED1_A0B4_28DB)
            offset += 16
        }
        var tail: (UInt64, UInt64) = (0, 0)
        withUnsafeMutableBytes(of: &tail) { $0.copyMemory(from: UnsafeRawBufferPointer(rebasing: text[offset...])) }
        first = Self.mix(
            Self.mix(tail.0 ^ first, tail.1 ^ 0xA076_1D64_78BD_642F),
            UInt64(text.count) ^ 0x8EBC_6AF0_9C88_C6E3
        )
        second = Self.mix(
            Self.mix(tail.0 ^ second, tail.1 ^ 0xE703_7ED1_A0B4_28DB),
            UInt64(text.count) ^ 0x5899_65CC_7537_4CC3
        )
        self.first = first
        self.second = second
    }

    /// The two halves of the 128-bit product, folded.
    @inline(__always)
    private static func mix(_ a: UInt64, _ b: UInt64) -> UInt64 {
        let (high, low) = a.multipliedFullWidth(by: b)
        return high ^ low
    }
}
