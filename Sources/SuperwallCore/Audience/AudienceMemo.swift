import Rules
import Synchronization

/// The answers of a placement's audience rules, remembered with the fields they read.
///
/// A rule that reads only fields of the variables (`user.plan`, `params.level`, not a whole
/// variable or a host function such as `daysSince`) answers the same for the same fields. A
/// placement registered again and again for the same user and params then compares the few
/// fields its twenty rules read, instead of evaluating the twenty rules. Rules are pure, so
/// remembering changes no answer; answers are still worked out only as the evaluation reaches
/// them.
final class AudienceMemo: Sendable {
    fileprivate struct Remembered {
        /// The rules the answers are for, by identity (a trigger's audiences may be replaced).
        var rules: [Rule?]
        /// Every field any of them reads.
        var paths: [MemberPath]
        var fields: [FieldValue]
        var answers: [Bool?]
    }

    private let remembered = Mutex<Remembered?>(nil)

    /// One evaluation's view: the answers remembered for the fields it has, and the ones it
    /// works out, kept for the next evaluation by `keep()`. A value, not a class: a class's
    /// `var` pays a dynamic exclusivity check on each audience's answer.
    struct Reading {
        fileprivate var state: Remembered
        /// Whether it worked out an answer the memo did not have.
        fileprivate var learned = false
        fileprivate init(_ state: Remembered) { self.state = state }

        mutating func answer(_ index: Int, otherwise evaluate: () -> Bool) -> Bool {
            if let known = state.answers[index] { return known }
            let answer = evaluate()
            state.answers[index] = answer
            learned = true
            return answer
        }
    }

    /// A reading for the audiences' rules in `activation`, or nil when some rule reads more
    /// than fields (its answers are not remembered).
    func reading(_ audiences: [Audience], in activation: any Activation) -> Reading? {
        let last = remembered.withLock { $0 }
        if let last, last.rules.count == audiences.count,
            audiences.indices.allSatisfy({ last.rules[$0] === audiences[$0].rule })
        {
            var same = true
            for index in last.paths.indices
            where FieldValue(of: last.paths[index], in: activation) != last.fields[index] {
                same = false
                break
            }
            if same { return Reading(last) }
            return Reading(
                Remembered(
                    rules: last.rules,
                    paths: last.paths,
                    fields: last.paths.map { FieldValue(of: $0, in: activation) },
                    answers: Array(repeating: nil, count: audiences.count)
                )
            )
        }
        let rules = audiences.map(\.rule)
        guard let paths = Self.paths(of: rules) else { return nil }
        let fields = paths.map { FieldValue(of: $0, in: activation) }
        return Reading(
            Remembered(rules: rules, paths: paths, fields: fields, answers: Array(repeating: nil, count: rules.count))
        )
    }

    /// Keeps what `reading` worked out for the next evaluation.
    func keep(_ reading: Reading) {
        guard reading.learned else { return }
        remembered.withLock { $0 = reading.state }
    }

    /// Every field the rules read, or nil when one reads more (or does not compile).
    private static func paths(of rules: [Rule?]) -> [MemberPath]? {
        var paths: [MemberPath] = []
        for rule in rules {
            guard let rule else { continue }
            guard case .success(let program) = rule.program, let read = program.memberPaths else { return nil }
            for path in read where !paths.contains(where: { $0 === path }) { paths.append(path) }
        }
        return paths
    }
}
