// The libFuzzer entry points of `make fuzz`, built by Tests/Fuzz/build.sh into one module with
// copies of Sources/Rules, Sources/JSONText and Sources/JSONRPC/Framing.swift, so that the
// internal API is reachable. FUZZ_TARGET picks the target:
//
// - rules: a rule through the lexer, parser, rewrite, both lowerings, evaluation, explanation
//   and printer. Oracles: the optimised and the plain lowering and `Program.explain` give the
//   same result; a rule that `isAlwaysTrue` is true; the explanation's printed root, parsed
//   again, gives the same result.
// - regex: a pattern and a text (split at the first NUL), matched directly and through
//   `matches()`. Oracle: the step bound (a hang is libFuzzer's -timeout).
// - json: the text decoder, typed and generic, and the stream reader the config loader walks.
// - framing: a byte stream framed whole and in pieces. Oracles: the same events either way
//   (newline-delimited), no message over the limit.
//
// A broken oracle aborts with what differed, so libFuzzer keeps the input as a crash.
#if canImport(Glibc)
import Glibc
#endif

nonisolated(unsafe) var target = "rules"
nonisolated(unsafe) var context = EvaluationContext()

/// Variables of every kind a rule can read, as the bridge hands them over.
let contextJSON = """
    {"variables": {"map": {
      "user": {"type": "map", "value": {
         "plan": {"type": "string", "value": "pro"},
         "workouts_completed": {"type": "int", "value": 5},
         "name": {"type": "string", "value": "Ann Lee"},
         "score": {"type": "float", "value": 1.5},
         "big": {"type": "int", "value": 9223372036854775807},
         "u": {"type": "uint", "value": 18446744073709551615},
         "flag": {"type": "bool", "value": true},
         "none": {"type": "Null"},
         "tags": {"type": "list", "value": [{"type": "string", "value": "a"}, {"type": "int", "value": 2}]},
         "counts": {"type": "map", "value": {"x": {"type": "int", "value": 5}, "y": {"type": "string", "value": "n/a"}}},
         "nested": {"type": "map", "value": {"x": {"type": "map", "value": {"y": {"type": "int", "value": 1}}}}},
         "bytes": {"type": "bytes", "value": [0, 255, 10]},
         "ts": {"type": "timestamp", "value": 1700000000}
      }},
      "device": {"type": "map", "value": {
         "platform": {"type": "string", "value": "iOS"},
         "minutesSinceInstall": {"type": "int", "value": 60}
      }},
      "params": {"type": "map", "value": {"source": {"type": "string", "value": "home"}}}
    }},
     "device": {"daysSince": [{"type": "string", "value": "event_name"}]},
     "host": {"daysSince": {"type": "int", "value": 3}}
    }
    """

func report(_ what: String, _ input: String) -> Never {
    var text = "FUZZ ORACLE: \(what)\n  input: \(input.debugDescription)\n"
    text.withUTF8 { _ = write(2, $0.baseAddress, $0.count) }
    abort()
}

/// Equal values, a NaN equal to itself.
func same(_ a: Value, _ b: Value) -> Bool {
    switch (a, b) {
    case (.double(let x), .double(let y)): return x.bitPattern == y.bitPattern || (x.isNaN && y.isNaN)
    case (.list(let x), .list(let y)): return x.count == y.count && zip(x, y).allSatisfy { same($0, $1) }
    case (.map(let x), .map(let y)):
        let (left, right) = (x.entries, y.entries)
        guard left.count == right.count else { return false }
        return left.allSatisfy { key, value in right[key].map { same(value, $0) } ?? false }
    default: return a == b
    }
}

func sameResult(_ a: Result<Value, EvaluationError>, _ b: Result<Value, EvaluationError>) -> Bool {
    switch (a, b) {
    case (.success(let x), .success(let y)): return same(x, y)
    case (.failure(let x), .failure(let y)): return x.kind == y.kind
    default: return false
    }
}

func describe(_ result: Result<Value, EvaluationError>) -> String {
    switch result {
    case .success(let value): "value \(value.debugDescription)"
    case .failure(let error): "error \(error.kind): \(error.message)"
    }
}

func fuzzRule(_ source: String) {
    guard let optimized = try? Program(source, optimize: true) else {
        if (try? Program(source, optimize: false)) != nil {
            report("the plain lowering compiles it, not the optimised", source)
        }
        if (try? Program.explain(source, context)) != nil { report("explain compiles it, Program does not", source) }
        return
    }
    guard let plain = try? Program(source, optimize: false) else {
        report("the plain lowering does not compile it", source)
    }
    let value = optimized.evaluate(context)
    let plainValue = plain.evaluate(context)
    if !sameResult(value, plainValue) { report("optimised \(describe(value)), plain \(describe(plainValue))", source) }
    if optimized.isAlwaysTrue, value != .success(.bool(true)) { report("isAlwaysTrue, yet \(describe(value))", source) }
    guard let explained = try? Program.explain(source, context) else { report("explain does not compile it", source) }
    if !sameResult(value, explained.result) {
        report("evaluated \(describe(value)), explained \(describe(explained.result))", source)
    }
    // The text decision records print, read back; a text cut at the limit cannot be.
    let printed = explained.trace.text
    guard !printed.hasSuffix(" …") else { return }
    switch Result(catching: { () throws(CompileError) in try Program(printed) }) {
    case .failure(let error):
        // Parentheses the printer adds can cross the nesting limit.
        if !error.message.contains("nests deeper") {
            report("printed as \(printed.debugDescription): \(error)", source)
        }
    case .success(let reparsed):
        let again = reparsed.evaluate(context)
        if !sameResult(value, again) { report("printed as \(printed.debugDescription): \(describe(again))", source) }
    }
}

func fuzzRegex(_ bytes: UnsafeBufferPointer<UInt8>) {
    let split = bytes.firstIndex(of: 0) ?? bytes.count
    let pattern = String(decoding: UnsafeBufferPointer(rebasing: bytes[..<split]), as: UTF8.self)
    var text =
        split < bytes.count ? String(decoding: UnsafeBufferPointer(rebasing: bytes[(split + 1)...]), as: UTF8.self) : ""
    // A last byte with its top bit set repeats the text, to reach the step bound.
    if let last = bytes.last, last & 0x80 != 0, !text.isEmpty {
        text = String(repeating: text, count: max(1, min(Int(last & 0x7F) * 64, 20_000 / max(text.utf8.count, 1))))
    }
    guard let regex = try? RegularExpression(pattern) else { return }
    _ = try? regex.matches(text)
    var quoted = "'"
    for scalar in pattern.unicodeScalars {
        if scalar == "\\" || scalar == "'" { quoted += "\\" }
        quoted.unicodeScalars.append(scalar)
    }
    _ = ProgramCache(capacity: 4).evaluate("user.name.matches(\(quoted)')", context)
}

/// Any JSON value, through the `Decodable` path.
indirect enum AnyJSON: Decodable {
    case null
    case bool(Bool)
    case int(Int64)
    case double(Double)
    case string(String)
    case array([AnyJSON])
    case object([String: AnyJSON])

    init(from decoder: any Decoder) throws {
        if let container = try? decoder.container(keyedBy: TapeKey.self) {
            var object: [String: AnyJSON] = [:]
            for key in container.allKeys { object[key.stringValue] = try container.decode(AnyJSON.self, forKey: key) }
            self = .object(object)
            return
        }
        if var container = try? decoder.unkeyedContainer() {
            var array: [AnyJSON] = []
            while !container.isAtEnd { array.append(try container.decode(AnyJSON.self)) }
            self = .array(array)
            return
        }
        let single = try decoder.singleValueContainer()
        if single.decodeNil() {
            self = .null
        } else if let flag = try? single.decode(Bool.self) {
            self = .bool(flag)
        } else if let number = try? single.decode(Int64.self) {
            self = .int(number)
        } else if let number = try? single.decode(Double.self) {
            self = .double(number)
        } else {
            self = .string(try single.decode(String.self))
        }
    }
}

func fuzzJSON(_ bytes: UnsafeRawBufferPointer) {
    _ = try? JSONTextDecoder().decode(AnyJSON.self, from: bytes)
    _ = try? JSONTextDecoder().decode(EvaluationContext.self, from: bytes)
    _ = try? JSONTextDecoder().decode([String: Value].self, from: bytes)
    // The stream reader, walked as the config loader walks a document.
    guard var stream = try? JSONStream(bytes) else { return }
    struct Stop: Error {}
    var budget = 10_000
    func walk(_ stream: inout JSONStream) throws {
        budget -= 1
        guard budget > 0, let kind = stream.nextKind else { throw Stop() }
        switch kind {
        case .object:
            try stream.open(.object)
            while try stream.nextMember() != nil { try walk(&stream) }
        case .array:
            try stream.open(.array)
            while try stream.nextElement() { try walk(&stream) }
        default:
            try stream.skipValue()
        }
    }
    if (try? walk(&stream)) != nil { try? stream.finish() }
}

func fuzzFraming(_ bytes: UnsafeBufferPointer<UInt8>) {
    guard bytes.count >= 2 else { return }
    let limit = Int(bytes[0] & 0x3F) + 1
    let framing: Framing? = bytes[0] & 0x80 != 0 ? nil : (bytes[0] & 0x40 != 0 ? .contentLength : .newlineDelimited)
    let stream = Array(bytes[2...])
    var whole = FrameDecoder(maximumMessageSize: limit, framing: framing)
    let all = whole.consume(stream) + whole.finish()
    var decoder = FrameDecoder(maximumMessageSize: limit, framing: framing)
    var pieces: [FrameEvent] = []
    var index = 0
    var seed = UInt32(bytes[1]) | 1
    while index < stream.count {
        seed = seed &* 1_103_515_245 &+ 12_345
        let end = min(stream.count, index + Int((seed >> 16) % 7) + 1)
        pieces += decoder.consume(stream[index..<end])
        index = end
    }
    pieces += decoder.finish()
    let input = String(decoding: stream, as: UTF8.self)
    for case .message(let body) in all + pieces where body.count > limit {
        report("a message of \(body.count) bytes over the limit \(limit)", input)
    }
    // Content-Length framing resumes after a malformed header within a window that reads
    // split: only its well-framed streams are compared.
    let malformed = (all + pieces).contains { if case .malformedHeader = $0 { true } else { false } }
    if all != pieces, framing == .newlineDelimited || (decoder.framing == .newlineDelimited) || !malformed {
        report("limit \(limit), \(String(describing: framing)): whole \(all), in pieces \(pieces)", input)
    }
}

@_cdecl("LLVMFuzzerInitialize")
public func initialize(
    _ argc: UnsafeMutablePointer<Int32>,
    _ argv: UnsafeMutablePointer<UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?>
) -> Int32 {
    if let name = getenv("FUZZ_TARGET") { target = String(cString: name) }
    context = try! JSONTextDecoder().decode(EvaluationContext.self, from: Array(contextJSON.utf8))
    return 0
}

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzOne(_ data: UnsafePointer<UInt8>, _ size: Int) -> Int32 {
    let bytes = UnsafeBufferPointer(start: data, count: size)
    switch target {
    case "regex": fuzzRegex(bytes)
    case "json": fuzzJSON(UnsafeRawBufferPointer(bytes))
    case "framing": fuzzFraming(bytes)
    default:
        guard size <= 4096 else { return 0 }
        fuzzRule(String(decoding: bytes, as: UTF8.self))
    }
    return 0
}
