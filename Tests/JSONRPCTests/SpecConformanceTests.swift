import Foundation
import JSONRPC
import TestSupport
import Testing

@Suite struct SpecConformanceTests {
    @Test(arguments: try SpecExample.all())
    func specExampleIsAnsweredAsTheSpecSays(_ example: SpecExample) async {
        let server = await initializedServer()
        #expect(await example.check(against: server.client, methodsPresent: true) == nil, "\(example.name)")
    }
}

extension SpecExample: CustomTestStringConvertible {
    public var testDescription: String { name }
}
