import Foundation
import JSONRPC
import TestSupport
import Testing

/// The events an `accept64` argument carries.
func pageEvents(_ notification: JSONValue?) throws -> [JSONValue] {
    let text = try #require(notification?["params"]?["accept64"]?.stringValue)
    let data = try #require(Data(base64Encoded: text))
    return try #require(try JSONDecoding.decode([UInt8](data)).arrayValue)
}
