import Foundation
import Rules
import Testing

/// A function value keeps its argument through the tagged form and the context, as
/// Superscript's `Function(name, argument)` does.
@Suite struct FunctionValueTests {
    private func decode(_ text: String) throws -> Value {
        try JSONDecoder().decode(Value.self, from: Data(text.utf8))
    }

    private func encode(_ value: Value) throws -> String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = .sortedKeys
        return String(decoding: try encoder.encode(value), as: UTF8.self)
    }

    @Test func aFunctionValuesArgumentSurvivesTheTaggedForm() throws {
        let value = try decode(#"{"type": "function", "value": ["test_func", {"type": "string", "value": "arg"}]}"#)
        #expect(value == .function("test_func", argument: .string("arg")))
        #expect(try encode(value) == #"{"type":"function","value":["test_func",{"type":"string","value":"arg"}]}"#)
    }

    @Test func oneWithoutAnArgumentIsWrittenWithNull() throws {
        let value = try decode(#"{"type": "function", "value": ["test_func", null]}"#)
        #expect(value == .function("test_func"))
        #expect(try encode(value) == #"{"type":"function","value":["test_func",null]}"#)
        #expect(try decode(#"{"type": "function", "value": ["test_func"]}"#) == .function("test_func"))
    }

    @Test func aDeclaredFunctionReadWithoutACallCarriesItsDeclaredArguments() throws {
        let context = try JSONDecoder().decode(
            EvaluationContext.self,
            from: Data(
                #"{"variables": {"map": {}}, "computed": {"test_func": [{"type": "string", "value": "arg"}]}, "device": {"other": []}}"#
                    .utf8
            )
        )
        let computed = context.variable(named: "computed")
        #expect(computed == .map(ValueMap(["test_func": .function("test_func", argument: .list([.string("arg")]))])))
        let device = context.variable(named: "device")
        #expect(device == .map(ValueMap(["other": .function("other", argument: .list([]))])))
    }

    @Test func theLanguagesEqualityComparesFunctionsByName() {
        let functions: [String: Value] = [
            "a": .function("f", argument: .string("x")), "b": .function("f", argument: .string("y")),
            "c": .function("g", argument: .string("x")),
        ]
        #expect(value("a == b", functions) == .bool(true))
        #expect(value("a == c", functions) == .bool(false))
    }
}
