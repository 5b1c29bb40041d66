/// The host functions SuperwallKit declares under both `device` and `computed`, answered from
/// a history of placements.
public enum PlacementFunction: String, CaseIterable, Sendable {
    case minutesSince, hoursSince, daysSince, monthsSince, yearsSince
    case placementsInHour, placementsInDay, placementsInWeek, placementsInMonth, placementsSinceInstall
}

public enum ElapsedUnit: Sendable {
    case minutes, hours, days, months, years
}

/// A counting window. SuperwallKit's "month" is 60·24·7·30 minutes (thirty weeks), and the
/// bridge keeps that, since audiences are tuned against it.
public enum PlacementWindow: Sendable {
    case hour, day, week, month, sinceInstall

    /// The window's length in minutes; nil for since-install.
    public var minutes: Int? {
        switch self {
        case .hour: 60
        case .day: 60 * 24
        case .week: 60 * 24 * 7
        case .month: 60 * 24 * 7 * 30
        case .sinceInstall: nil
        }
    }
}

/// What the functions ask of the host's placement log.
public protocol PlacementHistory: Sendable {
    /// Whole units since the placement last happened; nil when it never did.
    func elapsed(since placement: String, in unit: ElapsedUnit) -> Int?
    /// How often the placement happened within the window.
    func count(of placement: String, in window: PlacementWindow) -> Int
}

/// `daysSince("app_open")` and friends over a `PlacementHistory`. The first argument must be
/// a string; anything else, or no data, answers null (SuperwallKit answers `""`).
public struct PlacementFunctions: HostFunctions {
    private let history: any PlacementHistory

    public init(history: any PlacementHistory) {
        self.history = history
    }

    /// Asked for every field a rule selects that its map lacks, so an ordinary name is
    /// turned away before the names are compared.
    public func declares(_ name: String) -> Bool {
        guard name.hasSuffix("Since") || name.hasPrefix("placements") else { return false }
        return PlacementFunction(rawValue: name) != nil
    }

    public func call(_ name: String, arguments: [Value]) -> Value {
        guard let function = PlacementFunction(rawValue: name), case .string(let placement)? = arguments.first else {
            return .null
        }
        let answer: Int?
        switch function {
        case .minutesSince: answer = history.elapsed(since: placement, in: .minutes)
        case .hoursSince: answer = history.elapsed(since: placement, in: .hours)
        case .daysSince: answer = history.elapsed(since: placement, in: .days)
        case .monthsSince: answer = history.elapsed(since: placement, in: .months)
        case .yearsSince: answer = history.elapsed(since: placement, in: .years)
        case .placementsInHour: answer = history.count(of: placement, in: .hour)
        case .placementsInDay: answer = history.count(of: placement, in: .day)
        case .placementsInWeek: answer = history.count(of: placement, in: .week)
        case .placementsInMonth: answer = history.count(of: placement, in: .month)
        case .placementsSinceInstall: answer = history.count(of: placement, in: .sinceInstall)
        }
        return answer.map { .int(Int64($0)) } ?? .null
    }
}
