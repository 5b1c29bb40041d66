import Foundation
import GRDB
import TestSupport
import Testing

@testable import SuperwallCore

@Suite struct SystemRandomSourceTests {
    @Test func uuidsAreVersionFourAndDistinct() {
        let random = SystemRandomSource()
        let uuids = (0..<1000).map { _ in random.uuid() }
        #expect(Set(uuids).count == 1000)
        for uuid in uuids.prefix(50) {
            let text = uuid.uuidString
            #expect(Array(text)[14] == "4")
            #expect("89AB".contains(Array(text)[19]))
        }
    }
}
