import Foundation
import JSONRPC
import Logging
import TestSupport
import Testing

@testable import BridgeServer

@Suite struct BridgeSpecConformanceTests {
    /// The bridge has none of the spec's example methods, so each example must be answered as
    /// `expect_if_methods_absent` says (or `expect`, for method-independent ones).
    @Test(arguments: try SpecExample.all())
    func specExampleIsAnsweredWithTheBridgesMethodSet(_ example: SpecExample) async {
        let (process, _) = bridge()
        await process.initialize()
        #expect(await example.check(against: process.client, methodsPresent: false) == nil, "\(example.name)")
    }
}
