import Foundation
import Rules
import Synchronization

/// What audience rules are evaluated against: `user` (attributes
/// plus `isLoggedIn`), `device` (the device template, and the placement functions as
/// members), `params` (the placement's parameters, or `""` without a placement), `computed`
/// (the placement functions), and those functions answered from the placement log.
///
/// Attributes are read through views, so building a context converts nothing: a rule pays
/// only for the attributes it reads, and the device template is not even built until a rule
/// reads `device`.
public final class AudienceContext: Activation, Sendable {
    private let user: Value
    private let device: Value
    private let params: Value
    private let computed: Value
    private let template: DeviceTemplateView
    public let hostFunctions: (any HostFunctions)?
    /// What the rules evaluated against this context read, by `MemberPath.number`: a
    /// placement's twenty audiences reading `user.plan` look it up once. A list, searched in
    /// order: one placement's audiences read a handful of paths, fewer than hashing pays for.
    private let remembered = Mutex<[(number: Int, value: Value?)]>([])

    public convenience init(
        userAttributes: [String: JSON],
        isLoggedIn: Bool,
        deviceAttributes: [String: JSON],
        params: [String: JSON]?,
        history: any PlacementHistory
    ) {
        self.init(
            userAttributes: userAttributes,
            isLoggedIn: isLoggedIn,
            device: { deviceAttributes },
            params: params,
            history: history
        )
    }

    /// `device` builds the device template; it is called at most once, when a rule first reads it.
    public convenience init(
        userAttributes: [String: JSON],
        isLoggedIn: Bool,
        device: @escaping @Sendable () -> [String: JSON],
        params: [String: JSON]?,
        history: any PlacementHistory
    ) {
        self.init(
            user: .map(ValueMap(view: JSONObjectView(members: userAttributes, isLoggedIn: isLoggedIn))),
            template: DeviceTemplateView(build: device, extra: [:]),
            params: params.map { .map(ValueMap(view: JSONObjectView(members: $0))) } ?? .string(""),
            hostFunctions: PlacementFunctions(history: history)
        )
    }

    private init(user: Value, template: DeviceTemplateView, params: Value, hostFunctions: any HostFunctions) {
        self.user = user
        self.template = template
        device = .map(ValueMap(view: template))
        self.params = params
        computed = Self.computed
        self.hostFunctions = hostFunctions
    }

    /// The same context with extra `device` keys, such as an audience's computed properties
    /// (`daysSince_app_install`). The template is still built once for both.
    public func addingDeviceKeys(_ extra: [String: JSON]) -> AudienceContext {
        guard !extra.isEmpty, let hostFunctions else { return self }
        return AudienceContext(
            user: user,
            template: template.adding(extra),
            params: params,
            hostFunctions: hostFunctions
        )
    }

    public func rememberedMember(_ path: MemberPath) -> Value?? {
        remembered.withLock { entries in
            for entry in entries where entry.number == path.number { return .some(entry.value) }
            return nil
        }
    }

    public func remember(_ value: Value?, for path: MemberPath) {
        remembered.withLock { $0.append((path.number, value)) }
    }

    static let functionNames = Set(PlacementFunction.allCases.map(\.rawValue))
    private static let computed = Value.map(ValueMap(view: JSONObjectView(members: [:], functions: functionNames)))

    /// Told apart by length and first letter before the one comparison: every rule reads two
    /// or three of these, and comparing different strings takes Swift's slow path.
    public func variable(named name: String) -> Value? {
        switch (name.utf8.count, name.utf8.withContiguousStorageIfAvailable { $0.first } ?? nil) {
        case (4, UInt8(ascii: "u")): name == "user" ? user : nil
        case (6, UInt8(ascii: "d")): name == "device" ? device : nil
        case (6, UInt8(ascii: "p")): name == "params" ? params : nil
        case (8, UInt8(ascii: "c")): name == "computed" ? computed : nil
        default: nil
        }
    }
}

/// The `device` map: the template, built on first read and shared by the contexts derived
/// from one another, plus keys of the context's own.
final class DeviceTemplateView: MapView {
    private let built: Built
    private let extra: [String: JSON]

    /// The template, built once.
    private final class Built: Sendable {
        let build: @Sendable () -> [String: JSON]
        let view = Mutex<JSONObjectView?>(nil)

        init(build: @escaping @Sendable () -> [String: JSON]) {
            self.build = build
        }

        var members: JSONObjectView {
            view.withLock { view in
                if let view { return view }
                let made = JSONObjectView(members: build(), functions: AudienceContext.functionNames)
                view = made
                return made
            }
        }
    }

    init(build: @escaping @Sendable () -> [String: JSON], extra: [String: JSON]) {
        built = Built(build: build)
        self.extra = extra
    }

    private init(built: Built, extra: [String: JSON]) {
        self.built = built
        self.extra = extra
    }

    func adding(_ keys: [String: JSON]) -> DeviceTemplateView {
        DeviceTemplateView(built: built, extra: extra.merging(keys, uniquingKeysWith: { _, new in new }))
    }

    func value(forKey key: String) -> Value? {
        // Most audiences add no keys, and a lookup in an empty dictionary still hashes the key.
        if !extra.isEmpty, let member = extra[key] { return Value(member) }
        return built.members.value(forKey: key)
    }

    func materialize() -> [MapKey: Value] {
        var entries = built.members.materialize()
        for (key, member) in extra { entries[.string(key)] = Value(member) }
        return entries
    }
}

/// A JSON object read as a rules map, each member converted (and normalised) when read.
/// `functions` are names that read as function values unless a member of that name exists,
/// as Superscript's `device` map holds the declared host functions. The user's map also
/// answers `isLoggedIn`, without copying the attributes to add it.
final class JSONObjectView: MapView {
    let members: [String: JSON]
    let functions: Set<String>
    let isLoggedIn: Bool?

    init(members: [String: JSON], functions: Set<String> = [], isLoggedIn: Bool? = nil) {
        self.members = members
        self.functions = functions
        self.isLoggedIn = isLoggedIn
    }

    func value(forKey key: String) -> Value? {
        if let isLoggedIn, key == "isLoggedIn" { return .bool(isLoggedIn) }
        if let member = members[key] { return Value(member) }
        return !functions.isEmpty && functions.contains(key) ? .function(key) : nil
    }

    func materialize() -> [MapKey: Value] {
        var entries: [MapKey: Value] = [:]
        for name in functions { entries[.string(name)] = .function(name) }
        for (key, member) in members { entries[.string(key)] = Value(member) }
        if let isLoggedIn { entries[.string("isLoggedIn")] = .bool(isLoggedIn) }
        return entries
    }
}

extension Value {
    /// A core JSON value as rules read it, normalised as Superscript normalises its inputs.
    public init(_ json: JSON) {
        switch json {
        case .null: self = .null
        case .bool(let flag): self = .bool(flag)
        case .int(let number): self = .int(number)
        case .double(let number): self = .double(number)
        case .string(let text): self = Value.string(text).normalized
        case .array(let elements): self = .list(elements.map(Value.init))
        case .object(let members): self = .map(ValueMap(view: JSONObjectView(members: members)))
        }
    }
}

/// The placement log as the placement functions see it, at one moment.
struct StorePlacementHistory: PlacementHistory {
    let store: Store
    let now: Date

    func elapsed(since placement: String, in unit: ElapsedUnit) -> Int? {
        guard let last = try? store.lastPlacement(named: placement, before: now) else { return nil }
        let seconds = now.timeIntervalSince(last)
        switch unit {
        case .minutes: return Int(seconds / 60)
        case .hours: return Int(seconds / 3600)
        case .days: return Int(seconds / 86_400)
        case .months: return Calendar(identifier: .gregorian).dateComponents([.month], from: last, to: now).month
        case .years: return Calendar(identifier: .gregorian).dateComponents([.year], from: last, to: now).year
        }
    }

    func count(of placement: String, in window: PlacementWindow) -> Int {
        let since = window.minutes.map { now.addingTimeInterval(-Double($0) * 60) }
        return (try? store.placementCount(named: placement, since: since, until: now)) ?? 0
    }
}
