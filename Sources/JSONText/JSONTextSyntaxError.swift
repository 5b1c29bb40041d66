/// Where and why text is not JSON. The parser throws this small error of its own rather than
/// a `DecodingError`, whose layout is not known where it is compiled and costs each function
/// that can throw it a lookup on entry.
struct SyntaxFault: Error {
    var what: StaticString
    var offset: Int

    var error: DecodingError {
        .dataCorrupted(
            .init(
                codingPath: [],
                debugDescription: "The given data was not valid JSON: \(what) at byte \(offset).",
                underlyingError: JSONTextSyntaxError(reason: "\(what)", offset: offset)
            )
        )
    }
}

/// Why and where text is not JSON, as the `underlyingError` of the `DecodingError` a parse
/// throws: `offset` counts bytes from the start of the text parsed.
public struct JSONTextSyntaxError: Error, Sendable, Equatable {
    public let reason: String
    public let offset: Int
}
