import Testing
@testable import PushHostIsolation
@testable import PushHostPipeline
@testable import PushHostSystem
@testable import PushHostJSON
@testable import PushHostMessage

/// A normalized message read back with `load(normalized:)` answers as the
/// message it was written from: its normalized JSON byte for byte, and
/// every `message_get` path.
@Suite struct NormalizedFormTests {
    /// A payload to normalize, and how the host reads it.
    struct Payload: Sendable, CustomTestStringConvertible {
        let label: String
        let platform: Platform?
        let targetKey: String
        let text: String
        /// Whether the record repeats a key in data or the notification:
        /// `message_get` finds the first such member and the normalized JSON
        /// shows the last (pinned in NormalizationTests), so only the JSON
        /// can be compared.
        var repeatsKeys = false
        var testDescription: String { label }
    }

    /// Every payload of the normalization tests (each shape, escapes,
    /// custom target keys, repeated keys) and of the rich notification tests.
    static let payloads: [Payload] = {
        let shapes = NormalizationTests.gcm + NormalizationTests.fcmV1 + NormalizationTests.apns + NormalizationTests.bare
            + NormalizationTests.escapes + NormalizationTests.targetKeys
        let rich = RichNotificationTests.actions + RichNotificationTests.platforms + RichNotificationTests.clickAndStyle
        return shapes.map { Payload(label: $0.label, platform: $0.platform, targetKey: $0.targetKey, text: $0.payload) }
            + NormalizationTests.repeated.map {
                Payload(label: $0.label, platform: $0.platform, targetKey: $0.targetKey, text: $0.payload, repeatsKeys: true)
            }
            + rich.map { Payload(label: $0.label, platform: $0.platform, targetKey: "rx_gcm_key_target", text: $0.payload) }
    }()

    /// Paths that cover every field, with members likely to be there.
    static let paths = [
        "id", "target", "format", "priority", "content_available", "topic", "collapse_key", "source", "source.line",
        "notification", "notification.title", "notification.body", "notification.image", "notification.style",
        "notification.click", "notification.actions", "notification.actions.0.id", "notification.actions.0.title",
        "notification.badge", "notification.thread-id", "data", "data.k", "data.rx_gcm_key_target", "data.title",
        "data.actions", "data.aps", "data.nested.1.y", "nothing",
    ]

    /// The normalized JSON and the `message_get` answers of `message`.
    static func answers(_ message: Message) -> (json: [UInt8], values: [String?]) {
        var arena = MessageArena()
        defer { arena.free() }
        let values = paths.map { path in
            path.withCString { message.value(atPath: $0, into: &arena) }.map { String(cString: $0) }
        }
        return (message.normalizedJSON(), values)
    }

    @Test("load(normalized:) answers as the message it was written from", arguments: payloads)
    func roundTrip(_ payload: Payload) throws {
        let (json, values) = try withLoadedMessage(payload.text, platform: payload.platform, targetKey: payload.targetKey) { message in
            Self.answers(message)
        }
        try json.withUnsafeBytes { bytes in
            var reader = JSONReader(maxDepth: Message.normalizedMaxDepth)
            let document = try reader.parse(bytes)
            let message = Message()
            defer { message.reset() }
            message.load(normalized: document, source: .stdin(line: 1))
            #expect(message.isNormalizedForm)
            #expect(message.recordBytes.elementsEqual(json))
            let again = Self.answers(message)
            #expect(String(decoding: again.json, as: UTF8.self) == String(decoding: json, as: UTF8.self))
            for (path, (wanted, found)) in zip(Self.paths, zip(values, again.values)) where !payload.repeatsKeys {
                #expect(found == wanted, "\(path)")
            }
        }
    }

    @Test("the source is the one given, not the one written")
    func source() throws {
        let json = Array(#"{"id":"m","target":null,"format":"bare","priority":"normal","content_available":false,"notification":null,"data":{},"topic":null,"collapse_key":null,"source":{"kind":"stdin","line":7}}"#.utf8)
        try json.withUnsafeBytes { bytes in
            var reader = JSONReader()
            let document = try reader.parse(bytes)
            let message = Message()
            defer { message.reset() }
            message.load(normalized: document, source: .stdin(line: 9))
            var arena = MessageArena()
            defer { arena.free() }
            let line = "source.line".withCString { message.value(atPath: $0, into: &arena) }.map { String(cString: $0) }
            #expect(line == "9")
        }
    }

    @Test("a bare record nested 64 deep rewrites into a normalized message one deeper")
    func depth() throws {
        let nested = String(repeating: "[", count: 62) + String(repeating: "]", count: 62)
        let payload = #"{"actions":["a"],"deep":{"x":"# + nested + "}}"
        try withLoadedMessage(payload) { message in
            #expect(message.isNormalizedForm)
            var reader = JSONReader()
            #expect(throws: JSONError.self) { try message.normalizedJSON().withUnsafeBytes { _ = try reader.parse($0) } }
            var deeper = JSONReader(maxDepth: Message.normalizedMaxDepth)
            #expect(throws: Never.self) { try message.normalizedJSON().withUnsafeBytes { _ = try deeper.parse($0) } }
        }
    }
}
