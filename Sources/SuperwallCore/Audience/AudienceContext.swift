import Foundation
import Rules

/// What audience rules are evaluated against (rules-language.md §1.5): `user` (attributes
/// plus `isLoggedIn`), `device` (the device template, and the placement functions as
/// members), `params` (the placement's parameters, or `""` without a placement), `computed`
/// (the placement functions), and those functions answered from the placement log.
///
/// Attributes are read through views, so building a context converts nothing: a rule pays
/// only for the attributes it reads.
public final class AudienceContext: Activation, Sendable {
    private let user: Value
    private let device: Value
    private let params: Value
    private let computed: Value
    public let hostFunctions: (any HostFunctions)?

    public init(
        userAttributes: [String: JSON], isLoggedIn: Bool, deviceAttributes: [String: JSON], params: [String: JSON]?,
        history: any PlacementHistory
    ) {
        user = .map(ValueMap(view: JSONObjectView(members: userAttributes, isLoggedIn: isLoggedIn)))
        device = .map(ValueMap(view: JSONObjectView(members: deviceAttributes, functions: Self.functionNames)))
        self.params = params.map { .map(ValueMap(view: JSONObjectView(members: $0))) } ?? .string("")
        computed = Self.computed
        hostFunctions = PlacementFunctions(history: history)
    }

    private static let functionNames = Set(PlacementFunction.allCases.map(\.rawValue))
    private static let computed = Value.map(ValueMap(view: JSONObjectView(members: [:], functions: functionNames)))

    public func variable(named name: String) -> Value? {
        switch name {
        case "user": user
        case "device": device
        case "params": params
        case "computed": computed
        default: nil
        }
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
        return functions.contains(key) ? .function(key) : nil
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
    init(_ json: JSON) {
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
