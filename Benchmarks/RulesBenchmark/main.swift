// The bridge's side of the rules benchmark (`make bench`; Benchmarks/rules_bench.py runs it
// beside the Python peer). Reads the workload the runner wrote, evaluates it the way the core
// does, and prints one JSON line per figure: nanoseconds per evaluation (per sequence for the
// 1,000-rule figures) for each round, and the first result, which the runner compares with
// the peer's.
import Foundation
import Rules
import SuperwallCore

struct Workload: Decodable {
    let user: [String: JSON]
    let device: [String: JSON]
    let params: [String: JSON]
    let simple: String
    let sdk: String
    let many: [String]
    let rounds: Int
    let iterations: [String: Int]
}

/// The placement log is not read by the benchmark's rules.
struct NoHistory: PlacementHistory {
    func elapsed(since placement: String, in unit: ElapsedUnit) -> Int? { nil }
    func count(of placement: String, in window: PlacementWindow) -> Int { 0 }
}

func report(_ figure: String, _ rounds: [Double], result: String) {
    let values = rounds.map { String(format: "%.1f", $0) }.joined(separator: ",")
    print("{\"figure\":\"\(figure)\",\"ns\":[\(values)],\"result\":\(result)}")
}

func describe(_ value: Value) -> String {
    if case .bool(let flag) = value { return flag ? "true" : "false" }
    return "\"\(value)\""
}

func nanoseconds(_ body: () -> Void) -> Double {
    let start = DispatchTime.now().uptimeNanoseconds
    body()
    return Double(DispatchTime.now().uptimeNanoseconds - start)
}

/// How many evaluations matched, printed at the end so no loop's work can be optimised away.
nonisolated(unsafe) var matchedTotal = 0

let workload = try JSONDecoder().decode(
    Workload.self,
    from: Data(contentsOf: URL(fileURLWithPath: CommandLine.arguments[1]))
)
let history = NoHistory()

func context(user: [String: JSON], params: [String: JSON]) -> AudienceContext {
    AudienceContext(
        userAttributes: user,
        isLoggedIn: false,
        deviceAttributes: workload.device,
        params: params,
        history: history
    )
}

/// A placement's sources change before every evaluation: one attribute and the params.
func changed(_ iteration: Int, user: inout [String: JSON]) -> [String: JSON] {
    user["credits"] = .int(Int64(iteration % 20))
    var params = workload.params
    params["count"] = .int(Int64(iteration))
    return params
}

for (name, source) in [("a", workload.simple), ("b", workload.sdk)] {
    let program = try Program(source)
    let bareIterations = workload.iterations["bare"]!
    let liveIterations = workload.iterations["live"]!
    let prepared = context(user: workload.user, params: workload.params)
    let first = describe(try program.evaluate(prepared).get())
    var bare: [Double] = []
    var live: [Double] = []
    for _ in 0..<workload.rounds {
        var matches = 0
        bare.append(
            nanoseconds {
                for _ in 0..<bareIterations where program.matches(prepared) { matches += 1 }
            } / Double(bareIterations)
        )
        var user = workload.user
        live.append(
            nanoseconds {
                for iteration in 0..<liveIterations {
                    let params = changed(iteration, user: &user)
                    if program.matches(context(user: user, params: params)) { matches += 1 }
                }
            } / Double(liveIterations)
        )
        matchedTotal += matches
    }
    report("\(name)-bare", bare, result: first)
    report("\(name)-live", live, result: first)
}

let programs = try workload.many.map { try Program($0) }
let sequences = workload.iterations["sequences"]!
let prepared = context(user: workload.user, params: workload.params)
let firstMatches = programs.filter { $0.matches(prepared) }.count
var bare: [Double] = []
var live: [Double] = []
for _ in 0..<workload.rounds {
    var matches = 0
    bare.append(
        nanoseconds {
            for _ in 0..<sequences { for program in programs where program.matches(prepared) { matches += 1 } }
        } / Double(sequences)
    )
    var user = workload.user
    live.append(
        nanoseconds {
            for iteration in 0..<sequences {
                let params = changed(iteration, user: &user)
                let placement = context(user: user, params: params)
                for program in programs where program.matches(placement) { matches += 1 }
            }
        } / Double(sequences)
    )
    matchedTotal += matches
}
report("c-bare", bare, result: String(firstMatches))
report("c-live", live, result: String(firstMatches))
FileHandle.standardError.write(Data("matched \(matchedTotal) times\n".utf8))
