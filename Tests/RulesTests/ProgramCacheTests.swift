import Testing

@testable import Rules

@Suite struct ProgramCacheTests {
    @Test("one cache serves concurrent evaluations: each source compiles once and every answer is right")
    func concurrentEvaluations() async {
        let cache = ProgramCache()
        let sources = (0..<40).map { "user.credits + \($0) == \(5 + $0)" }
        let context = contexts[0]
        let wrong = await withTaskGroup(of: Int.self) { group in
            for worker in 0..<8 {
                group.addTask {
                    var wrong = 0
                    for round in 0..<200 {
                        let source = sources[(worker * 7 + round) % sources.count]
                        if case .success(.bool(true)) = cache.evaluate(source, context) {} else { wrong += 1 }
                        if round % 20 == 0 { await Task.yield() }
                    }
                    return wrong
                }
            }
            return await group.reduce(0, +)
        }
        #expect(wrong == 0)
        #expect(cache.count == sources.count)
    }

    @Test("a source that does not compile is cached as its error, and the cache stays bounded")
    func failuresAndCapacity() {
        let cache = ProgramCache(capacity: 3)
        guard case .failure(.compile) = cache.evaluate("1 +", contexts[0]) else {
            Issue.record("expected a compile error")
            return
        }
        for number in 0..<10 { _ = cache.evaluate("\(number) == \(number)", contexts[0]) }
        #expect(cache.count == 3)
    }

    @Test("a rule matches only what evaluates to exactly true, keeps its program, and a broken rule matches nothing")
    func rulesKeepTheirPrograms() throws {
        let rule = Rule("user.credits == 5")
        let first = try rule.program.get()
        #expect(rule.matches(contexts[0]))
        #expect(try rule.program.get().source == first.source)
        #expect(!Rule("user.credits").matches(contexts[0]))
        #expect(!Rule("1 +").matches(contexts[0]))
        #expect(Rule("a == 1") == Rule("a == 1") && Rule("a == 1") != Rule("a == 2"))
    }
}
