import Foundation
import JSONRPC
import Logging
import TestSupport
import Testing

@testable import BridgeServer

/// A `shutdown` and the end of input after it each waited 2 s for a failing collector: 4 s
/// where the documentation says 2.
@Suite struct ConnectionEndTests {
    @Test func theFlushesOfASessionsEndShareOneBudget() {
        let end = ConnectionEnd()
        let start = ContinuousClock.now
        #expect(end.remainingFlushTime(at: start) == ConnectionEnd.flushLimit)
        #expect(end.remainingFlushTime(at: start + .milliseconds(1_500)) == .milliseconds(500))
        #expect(end.remainingFlushTime(at: start + ConnectionEnd.flushLimit) == nil)
        #expect(end.remainingFlushTime(at: start + .seconds(10)) == nil)
    }
}
