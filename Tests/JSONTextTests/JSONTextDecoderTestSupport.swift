import Foundation
import JSONText
import TestSupport
import Testing

/// A value with every shape the config decodes: nested objects, arrays, optionals, a
/// dictionary, integers of several widths, doubles, booleans and strings with escapes.
struct Sample: Codable, Equatable {
    struct Item: Codable, Equatable {
        var name: String
        var weight: Double
        var tags: [String]
    }

    var id: Int
    var small: UInt8
    var big: Int64
    var ratio: Double
    var flag: Bool
    var title: String
    var note: String?
    var missing: String?
    var items: [Item]
    var table: [String: Int]
    var nested: [[Int]]
}

let sampleText = #"""
    { "id": 42, "small": 255, "big": -9223372036854775808, "ratio": 1.5e-3, "flag": true,
      "title": "tab\there \"quoted\" \\ \/ \u00e9 \ud83d\ude00 é ✓ 😀", "note": null,
      "items": [ {"name": "a", "weight": 2, "tags": []}, {"name": "b\n", "weight": -0.25, "tags": ["x", "y"]} ],
      "table": {"one": 1, "two": 2, "tw\u006f": 3}, "nested": [[], [1, 2], [3]], "ignored": {"deep": [null, false]} }
    """#

func foundation<T: Decodable>(_ type: T.Type, _ text: String) throws -> T {
    try JSONDecoder().decode(type, from: Data(text.utf8))
}

func ours<T: Decodable>(_ type: T.Type, _ text: String) throws -> T {
    try JSONTextDecoder().decode(type, from: Array(text.utf8))
}

/// A decoding error as case name and JSON path, the parts of it the config reports.
func summary(_ error: any Error) -> String {
    func path(_ keys: [any CodingKey]) -> String {
        keys.reduce("$") { text, key in key.intValue.map { text + "[\($0)]" } ?? text + "." + key.stringValue }
    }
    switch error as? DecodingError {
    case .keyNotFound(let key, let context): return "keyNotFound \(path(context.codingPath + [key]))"
    case .typeMismatch(let type, let context): return "typeMismatch \(type) \(path(context.codingPath))"
    case .valueNotFound(let type, let context): return "valueNotFound \(type) \(path(context.codingPath))"
    case .dataCorrupted(let context): return "dataCorrupted \(path(context.codingPath))"
    default: return "\(error)"
    }
}
