import Foundation
import Rules
import Testing

@Suite struct SemanticsTests {
    @Test("|| returns the operand itself; && evaluates both sides and answers a bool")
    func logic() {
        #expect(value("0 || 'fallback'") == .string("fallback"))
        #expect(value("'first' || 'second'") == .string("first"))
        #expect(value("1 && 'x'") == .bool(true))
        #expect(isError("false && 1 / 0 == 1"))
        #expect(value("true || 1 / 0 == 1") == .bool(true))
    }

    @Test("truthiness: empty and zero values are falsy")
    func truthiness() {
        for falsy in ["0", "0.0", "''", "[]", "{}", "null", "b''", "0u"] {
            #expect(value("!\(falsy)") == .bool(true), "\(falsy) should be falsy")
        }
        for truthy in ["1", "'a'", "[0]", "{'a': 1}", "-1.5", "timestamp('2020-01-01T00:00:00Z')"] {
            #expect(value("!\(truthy)") == .bool(false), "\(truthy) should be truthy")
        }
    }

    @Test("numbers compare and combine across int, uint and double")
    func numbers() {
        #expect(value("1 == 1.0 && 1u == 1 && 2u > 1 && 1.5 < 2u") == .bool(true))
        #expect(value("1 + 1.5") == .double(2.5))
        #expect(value("3u * 2.0") == .double(6))
        #expect(value("7 / 2") == .int(3))
        #expect(value("-7 % 3") == .int(-1))
        #expect(value("-1 < 18446744073709551615u") == .bool(true))
        #expect(isError("1 + 1u"))
    }

    @Test("overflow and division by zero are errors, never a crash or a wrap")
    func arithmeticErrors() {
        for source in [
            "9223372036854775807 + 1", "-9223372036854775808 - 1", "4611686018427387904 * 2",
            "1 / 0", "1 % 0", "0u - 1u", "-(-9223372036854775808)", "-9223372036854775808 / -1",
            "int(1e19)", "uint(-1)", "int(18446744073709551615u)",
        ] {
            guard case .failure(.evaluation(let error)) = evaluate(source) else {
                Issue.record("\(source) should be an evaluation error")
                continue
            }
            #expect(error.kind == .overflow || error.kind == .divisionByZero, "\(source): \(error)")
        }
        #expect(value("1.0 / 0.0") == .double(.infinity))
    }

    @Test("ordering: strings by bytes, mixed kinds are errors, a null left side gives null")
    func ordering() {
        #expect(value("'a' < 'b' && 'B' < 'a' && 'é' > 'z'") == .bool(true))
        #expect(value("null <= null") == .bool(true))
        #expect(value("user.score > 12", user) == .null)
        guard case .failure(.evaluation(let error)) = evaluate("1 > user.missing", user) else {
            Issue.record("a null right side is an error")
            return
        }
        #expect(error.message == "Int(1) can not be compared to Null")
        #expect(isError("'a' < 1"))
    }

    @Test("in: list membership, map keys, substrings")
    func membership() {
        #expect(value("2 in [1, 2.0, 3]") == .bool(true))
        #expect(value("'a' in {'a': 1}") == .bool(true))
        #expect(value("'ab' in 'xabx'") == .bool(true))
        #expect(value("'zz' in 'xabx'") == .bool(false))
        #expect(isError("1 in 5"))
    }

    @Test("indexing: null past the end, one byte of a string, an error for a missing map key")
    func indexing() {
        #expect(value("[1, 2][5]") == .null)
        #expect(value("[1, 2][-1]") == .null)
        #expect(value("'abc'[1]") == .string("b"))
        #expect(value("'abc'[9]") == .null)
        #expect(value("{'a': 1}['a']") == .int(1))
        #expect(isError("{'a': 1}['b']"))
    }

    @Test("map + map merges with the right side winning; lists and strings concatenate")
    func concatenation() {
        #expect(value("{'a': 1, 'b': 2} + {'b': 3}") == .map(ValueMap(["a": .int(1), "b": .int(3)])))
        #expect(value("[1] + [2]") == .list([.int(1), .int(2)]))
        #expect(value("'a' + 'b'") == .string("ab"))
    }

    @Test("size counts UTF-8 bytes of strings")
    func size() {
        #expect(value("size('é')") == .int(2))
        #expect(value("size([1, 2, 3])") == .int(3))
        #expect(value("size({'a': 1})") == .int(1))
        #expect(isError("size(1)"))
    }

    @Test("macros iterate lists and map keys, bind their variable, and restore it after")
    func macros() {
        #expect(value("[1, 2, 3].filter(x, x > 1).map(x, x * 10)") == .list([.int(20), .int(30)]))
        #expect(value("{'a': 1, 'b': 2}.all(k, k in ['a', 'b'])") == .bool(true))
        #expect(value("[1, 2].exists(x, [3, 4].exists(y, x + y == 6))") == .bool(true))
        #expect(value("[1, 2, 3].map(x, x > 1, x * 2)") == .list([.int(4), .int(6)]))
        #expect(
            value("[[1], [2, 3]].map(x, x.map(x, x + 1))") == .list([.list([.int(2)]), .list([.int(3), .int(4)])])
        )
        #expect(value("[1, 2].all(x, x > 0) && x == 7", ["x": .int(7)]) == .bool(true))
    }

    @Test("conversions and their failures")
    func conversions() {
        #expect(value("int('42') + int(3.9) + int(-3.9)") == .int(42))
        #expect(value("uint('7')") == .uint(7))
        #expect(value("double('2.5')") == .double(2.5))
        #expect(value("string(1.0) + string(2.5) + string(3u) + string(true)") == .string("12.53true"))
        #expect(value("(1e21).floatToString()") == .string("1000000000000000000000"))
        #expect(value("(0.000001).floatToString()") == .string("0.000001"))
        #expect(value("bytes('é')") == .bytes([0xC3, 0xA9]))
        #expect(isError("int('4x')"))
        #expect(isError("double(' 1')"))
    }

    @Test("timestamps and durations: parsing, arithmetic, printing")
    func time() {
        #expect(value("timestamp('2023-05-28T02:00:00+02:00') == timestamp('2023-05-28T00:00:00Z')") == .bool(true))
        #expect(
            value("string(timestamp('2023-05-28T00:00:00.5Z') + duration('1h30m'))")
                == .string("2023-05-28T01:30:00.500+00:00")
        )
        #expect(value("string(duration('90s'))") == .string("1m30s"))
        #expect(value("string(duration('-1.5h'))") == .string("-1h30m0s"))
        #expect(value("string(duration('1500ms'))") == .string("1.5s"))
        #expect(value("string(duration('250ms'))") == .string("250ms"))
        #expect(value("duration('1m') > duration('59s')") == .bool(true))
        #expect(
            value("string(timestamp('2024-02-29T23:59:59Z') + duration('1s'))") == .string("2024-03-01T00:00:00+00:00")
        )
        #expect(isError("timestamp('2023-02-30T00:00:00Z')"))
        #expect(isError("timestamp('yesterday')"))
        #expect(isError("duration('1 fortnight')"))
    }

    @Test("strings: startsWith, endsWith, contains, matches")
    func strings() {
        #expect(value("'superwall'.startsWith('super') && 'superwall'.endsWith('wall')") == .bool(true))
        #expect(value("contains('superwall', 'erw')") == .bool(true))
        #expect(value("'user@example.com'.matches('^[a-z]+@[a-z]+\\\\.com$')") == .bool(true))
        #expect(value("'A1'.matches('(?i)^a\\\\d$')") == .bool(true))
        #expect(value("'abc'.matches('x|b')") == .bool(true))
    }

    @Test("max over arguments or a list; null when empty")
    func maximum() {
        #expect(value("max(1, 5.5, 3u)") == .double(5.5))
        #expect(value("max([4, 9, 2])") == .int(9))
        #expect(value("max([])") == .null)
        #expect(isError("max(1, 'a')"))
    }

    @Test("maybe falls back only on an error")
    func maybe() {
        #expect(value("1.maybe(1 / 0, 5)") == .int(5))
        #expect(value("1.maybe(2, 5)") == .int(2))
    }

    @Test("a map's missing member reads as a function value when a function of that name exists")
    func memberFunctions() {
        #expect(value("has(user.contains)", user) == .bool(true))
        #expect(value("has(user.nothing)", user) == .bool(false))
    }

    @Test("Superscript's conversions to string and its stubs")
    func superscriptFunctions() {
        #expect(value("5.intToString() + 5u.uintToString() + false.boolToString()") == .string("55false"))
        #expect(value("unknownFunction(1 / 0)") == .null)
        #expect(value("5.toString()") == .null)
        #expect(isError("'5'.intToString()"))
    }
}
