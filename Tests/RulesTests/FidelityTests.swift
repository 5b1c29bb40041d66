import Foundation
import Rules
import Testing

@Suite struct FidelityTests {
    @Test("timestamps have no integer conversions, as in cel-interpreter 0.8.1")
    func noTimestampIntegers() {
        #expect(isError("int(timestamp('2020-01-01T00:00:00Z'))"))
        #expect(isError("timestamp(1577836800)"))
    }
}
