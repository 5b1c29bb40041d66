import Foundation
import GRDB
import TestSupport
import Testing

@testable import SuperwallCore

@Suite struct UUIDTextTests {
    @Test func theTextIsFoundationsUUIDString() {
        for _ in 0..<1000 {
            let id = UUID()
            #expect(id.text == id.uuidString)
        }
        let edges = [
            UUID(uuid: (0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0)),
            UUID(uuid: (255, 255, 255, 255, 255, 255, 255, 255, 255, 255, 255, 255, 255, 255, 255, 255)),
        ]
        for id in edges { #expect(id.text == id.uuidString) }
    }
}
