import Foundation
import JSONRPC
import TestSupport
import Testing

func initializedServer(
    _ handler: TestHandler = TestHandler(),
    options: Connection.Options = Connection.Options(),
    framing: Framing = .newlineDelimited
) async -> InProcessServer {
    let server = InProcessServer(handler: handler, options: options, framing: framing)
    await server.initialize()
    return server
}

func errorCode(_ reply: JSONValue?) -> Int64? { reply?["error"]?["code"]?.int64Value }
func errorKind(_ reply: JSONValue?) -> String? { reply?["error"]?["data"]?["kind"]?.stringValue }
