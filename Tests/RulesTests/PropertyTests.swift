import Testing

@testable import Rules

/// The loops are async and yield each round: the suites share a two-thread pool with
/// in-process servers that must not starve while thousands of expressions run.
@Suite struct PropertyTests {
    @Test("random expressions never crash, and a program compiled once answers as one compiled each time")
    func compiledOnceEqualsCompiledEachTime() async {
        var generator = ExpressionGenerator(random: SplitMix64(state: 20_261_122))
        var evaluated = 0
        for _ in 0..<3000 {
            await Task.yield()
            let source = generator.expression()
            guard let once = try? Program(source) else { continue }
            for context in contexts {
                let fresh = (try? Program(source))?.evaluate(context)
                #expect(fresh.map { sameOutcome(once.evaluate(context), $0) } == true, "\(source)")
                evaluated += 1
            }
        }
        #expect(evaluated > 3000)
    }

    @Test("the optimised program answers exactly as the plain lowering of the same tree")
    func optimisationsChangeNothing() async throws {
        var generator = ExpressionGenerator(random: SplitMix64(state: 7))
        for _ in 0..<3000 {
            await Task.yield()
            let source = generator.expression()
            guard let optimised = try? Program(source, optimize: true) else { continue }
            let plain = try Program(source, optimize: false)
            for context in contexts {
                #expect(sameOutcome(optimised.evaluate(context), plain.evaluate(context)), "\(source)")
            }
        }
    }

    @Test("mangled expressions compile or fail cleanly, and never crash when evaluated")
    func mangledInput() async {
        var generator = ExpressionGenerator(random: SplitMix64(state: 99))
        var compiled = 0
        for _ in 0..<5000 {
            await Task.yield()
            let source = generator.mutated()
            guard let program = try? Program(source) else { continue }
            compiled += 1
            for context in contexts { _ = program.evaluate(context) }
        }
        #expect(compiled > 0)
    }

    @Test("random bytes never crash the lexer or parser")
    func randomBytes() async {
        var random = SplitMix64(state: 5)
        for _ in 0..<3000 {
            await Task.yield()
            let length = Int(random.next() % 40)
            let bytes = (0..<length).map { _ in UInt8(truncatingIfNeeded: random.next()) }
            _ = try? Program(String(decoding: bytes, as: UTF8.self))
        }
    }
}
