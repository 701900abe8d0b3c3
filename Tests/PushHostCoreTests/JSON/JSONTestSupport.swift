@testable import PushHostMessage
@testable import PushHostSystem
@testable import PushHostJSON

extension JSONReader {
    /// Parses `bytes` and hands the document to `body` while the bytes are alive.
    mutating func parse<R>(_ bytes: [UInt8], _ body: (JSONDocument) throws -> R) throws -> R {
        try bytes.withUnsafeBytes { buffer in try body(try parse(buffer)) }
    }

    /// Parses `text` and hands the document to `body` while the bytes are alive.
    mutating func parse<R>(_ text: String, _ body: (JSONDocument) throws -> R) throws -> R {
        try parse(Array(text.utf8), body)
    }
}

extension JSONValue {
    /// The raw bytes as a String, for readable expectations.
    var rawText: String { String(decoding: rawBytes, as: UTF8.self) }

    /// The unescaped string value.
    var unescaped: [UInt8] {
        var out: [UInt8] = []
        appendUnescaped(to: &out)
        return out
    }

    /// The compact JSON text.
    var compact: String {
        var out: [UInt8] = []
        appendCompact(to: &out)
        return String(decoding: out, as: UTF8.self)
    }
}
