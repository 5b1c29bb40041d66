import Foundation
import Testing

@testable import SuperwallCore

@Suite struct VariantChoiceTests {
    private func variants(_ percentages: [Int]) -> [Variant] {
        percentages.enumerated().map {
            Variant(id: "v\($0.offset)", kind: .treatment, percentage: $0.element, paywallIdentifier: "p")
        }
    }

    /// SuperwallKit's `ConfigLogicTests` vectors: the draw is in `0..<sum`.
    @Test func aDrawPicksTheFirstVariantWhoseRunningTotalExceedsIt() {
        let thirds = variants([33, 33, 33])
        #expect(VariantChooser.choose(thirds, using: ScriptedRandomSource(draws: [98]))?.id == "v2")
        #expect(VariantChooser.choose(thirds, using: ScriptedRandomSource(draws: [65]))?.id == "v1")
        #expect(VariantChooser.choose(thirds, using: ScriptedRandomSource(draws: [0]))?.id == "v0")
        #expect(VariantChooser.choose(thirds, using: ScriptedRandomSource(draws: [33]))?.id == "v1")
        #expect(VariantChooser.choose(variants([1, 0, 0]), using: ScriptedRandomSource(draws: [0]))?.id == "v0")
        #expect(VariantChooser.choose(variants([100, 0, 0]), using: ScriptedRandomSource(draws: [99]))?.id == "v0")
    }

    @Test func theDrawRangeIsTheSumOfTheWeights() {
        final class RangeRecorder: RandomSource, @unchecked Sendable {
            var ranges: [Range<Int>] = []
            func uuid() -> UUID { UUID() }
            func int(in range: Range<Int>) -> Int {
                ranges.append(range)
                return range.lowerBound
            }
        }
        let recorder = RangeRecorder()
        _ = VariantChooser.choose(variants([33, 33, 33]), using: recorder)
        _ = VariantChooser.choose(variants([0, 0, 0]), using: recorder)
        #expect(recorder.ranges == [0..<99, 0..<3])
    }

    @Test func aSingleVariantIsAlwaysChosenAndNoVariantsIsNone() {
        #expect(VariantChooser.choose(variants([0]), using: ScriptedRandomSource(draws: [5]))?.id == "v0")
        #expect(VariantChooser.choose([], using: ScriptedRandomSource(draws: [0])) == nil)
    }

    @Test func weightsSummingToZeroDrawUniformly() {
        #expect(VariantChooser.choose(variants([0, 0, 0]), using: ScriptedRandomSource(draws: [2]))?.id == "v2")
    }

    /// 85/5/5/5 over 100,000 system draws lands within one point of each weight.
    @Test func theDistributionFollowsTheWeights() async {
        let weighted = variants([85, 5, 5, 5])
        var counts = [String: Int]()
        let random = SystemRandomSource()
        for round in 0..<100_000 {
            counts[VariantChooser.choose(weighted, using: random)!.id, default: 0] += 1
            if round % 1000 == 0 { await Task.yield() }
        }
        for (id, expected) in [("v0", 85.0), ("v1", 5.0), ("v2", 5.0), ("v3", 5.0)] {
            let share = Double(counts[id] ?? 0) / 1000
            #expect(abs(share - expected) <= 1, "\(id): \(share)%")
        }
    }
}
