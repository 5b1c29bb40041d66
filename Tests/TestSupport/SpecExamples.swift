import Foundation
import JSONRPC

/// The JSON-RPC 2.0 specification's examples (`Fixtures/jsonrpc-spec-examples.json`, copied
/// from the shared conformance data), and the comparison rules that come with them.
public struct SpecExample: Sendable {
    public let name: String
    public let send: String
    public let expect: JSONValue
    public let expectIfMethodsAbsent: JSONValue?

    public static func all() throws -> [SpecExample] {
        guard
            let url = Bundle.module.url(
                forResource: "jsonrpc-spec-examples",
                withExtension: "json",
                subdirectory: "Fixtures"
            )
        else {
            throw CocoaError(.fileNoSuchFile)
        }
        let cases = try JSONDecoding.decode(Array(Data(contentsOf: url)))
        return (cases.arrayValue ?? []).map { entry in
            SpecExample(
                name: entry["name"]?.stringValue ?? "?",
                send: entry["send"]?.stringValue ?? "",
                expect: entry["expect"] ?? .null,
                expectIfMethodsAbsent: entry["expect_if_methods_absent"]
            )
        }
    }

    /// Sends the example and checks the reply: `nil` when it matches, or what went wrong.
    /// "No reply" is checked by sending a sentinel `$/ping` afterwards, whose reply must be
    /// the next to arrive.
    public func check(against peer: FramedPeer, methodsPresent: Bool) async -> String? {
        let expected = methodsPresent ? expect : (expectIfMethodsAbsent ?? expect)
        peer.send(send)
        if expected.isNull {
            try? await Task.sleep(for: .milliseconds(50))
            let sentinel = JSONValue.string("sentinel-\(name)")
            peer.request(sentinel, "$/ping")
            guard let reply = await peer.next() else { return "no reply to the sentinel" }
            return reply["id"] == sentinel ? nil : "expected no reply, got \(reply)"
        }
        guard let reply = await peer.next() else { return "no reply" }
        return Self.mismatch(expected: expected, actual: reply)
    }

    /// Compares on `jsonrpc`, `id`, `result` and `error.code`; batches as multisets.
    public static func mismatch(expected: JSONValue, actual: JSONValue) -> String? {
        if case .array(let expectedItems) = expected {
            guard case .array(var actualItems) = actual, actualItems.count == expectedItems.count else {
                return "expected a batch of \(expectedItems.count), got \(actual)"
            }
            for item in expectedItems {
                guard let match = actualItems.firstIndex(where: { mismatch(expected: item, actual: $0) == nil }) else {
                    return "no reply in \(actual) matches \(item)"
                }
                actualItems.remove(at: match)
            }
            return nil
        }
        guard actual["jsonrpc"] == "2.0" else { return "jsonrpc is not \"2.0\" in \(actual)" }
        guard actual["id"] == expected["id"] else { return "id: expected \(expected["id"] ?? .null), got \(actual)" }
        if let error = expected["error"] {
            return actual["error"]?["code"] == error["code"]
                ? nil : "error code: expected \(error["code"] ?? .null), got \(actual)"
        }
        return actual["result"] == expected["result"]
            ? nil : "result: expected \(expected["result"] ?? .null), got \(actual)"
    }
}
