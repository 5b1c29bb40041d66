import Foundation
import GRDB
import TestSupport
import Testing

@testable import SuperwallCore

@Suite struct PlacementTimelineBoundTests {
    @Test func manyEventsAreAnsweredExactlyOnSecondBoundariesWithBoundedMemory() {
        var timeline = PlacementTimeline()
        var times: [Double] = []
        // 40,000 events over 100 s: 400 a second, each at its own millisecond.
        for index in 0..<40_000 {
            let time = 1_700_000_000_000.0 + Double(index / 400) * 1000 + Double(index % 400)
            times.append(time)
            timeline.insert("tap", atMs: time)
        }
        #expect(
            timeline.storedCount < 2 * PlacementTimeline.exactCapacity + 100,
            "older times are folded a second at a time"
        )
        for (from, to) in [(0.0, 99.0), (10.0, 19.0), (50.0, 99.0), (0.0, 0.0), (98.0, 99.0)] {
            let fromMs = 1_700_000_000_000.0 + from * 1000
            let toMs = 1_700_000_000_000.0 + to * 1000 + 999
            let expected = times.filter { $0 >= fromMs && $0 <= toMs }.count
            #expect(timeline.count(named: "tap", from: fromMs, to: toMs) == expected, "seconds \(from)–\(to)")
        }
        #expect(timeline.last(named: "tap", atOrBefore: .infinity) == times.last)
        #expect(
            timeline.last(named: "tap", atOrBefore: 1_700_000_005_999) == 1_700_000_005_399,
            "the last time of a folded second"
        )
        #expect(timeline.last(named: "tap", atOrBefore: 1_699_999_999_999) == nil)
    }

    @Test func aClockThatWentBackIsFoldedInOrder() {
        var timeline = PlacementTimeline()
        let base = 1_700_000_000_000.0
        for index in 0..<(2 * PlacementTimeline.exactCapacity) {
            timeline.insert("tap", atMs: base + 10_000 + Double(index))
        }
        // Now older times arrive, and enough more to fold them too.
        for index in 0..<(2 * PlacementTimeline.exactCapacity) {
            timeline.insert("tap", atMs: base + Double(index % 5) * 1000)
        }
        #expect(timeline.count(named: "tap", from: base, to: base + 5_000) == 2 * PlacementTimeline.exactCapacity)
        #expect(timeline.count(named: "tap", from: base, to: .infinity) == 4 * PlacementTimeline.exactCapacity)
    }
}
