import Testing
@testable import PushHostMessage

/// `message_get` matches a path's top-level word where it lies, by its first
/// byte, and measures only the segments below it. A path that only starts
/// like a word, goes on past it, or names a key with a dot in it must get
/// what the segments give, and a path shorter than the word it resembles
/// must not be read past its end.
@Suite struct PathMatchTests {
    static let payload = #"""
        {"message_id":"m1","priority":"high","data":{"rx_gcm_key_target":"chat","title":"T","":"empty",\#
        "ti.tle":"dotted","ti":{"tle":"nested"},"n":null,"obj":{"a":1},"e\u0073c":"E"}}
        """#

    static let cases: [(path: String, value: String?)] = [
        ("target", "chat"), ("targetx", nil), ("target.", nil), ("tar", nil), ("t", nil), ("", nil),
        ("priority", "high"), ("priority.", nil), ("priorit", nil), ("priorityx", nil),
        ("id", "m1"), ("id.", nil), ("i", nil), ("idx", nil),
        ("data.title", "T"), ("data.rx_gcm_key_target", "chat"), ("data.", "empty"),
        // A dot always ends a segment: the key "ti.tle" is out of a path's reach.
        ("data.ti.tle", "nested"), ("data.ti", #"{"tle":"nested"}"#),
        ("data.n", nil), ("data.obj.a", "1"), ("data.obj.b", nil), ("data.missing", nil), ("data.missing.x", nil),
        ("data.esc", "E"), ("data.title.x", nil), ("data..", nil), ("dat", nil), ("datax", nil), ("d", nil),
    ]

    @Test func eachPathGetsWhatTheWalkGives() throws {
        try Self.expect(Self.cases, from: Self.payload)
    }

    /// Every other top-level word, and paths that resemble them.
    static let otherPayload = #"""
        {"to":"/topics/news","collapse_key":"ck","content_available":true,\#
        "notification":{"title":"N","o":{"a":1}},"data":{"k":"v"}}
        """#

    static let otherCases: [(path: String, value: String?)] = [
        ("topic", "news"), ("topicx", nil), ("topic.", nil), ("top", nil), ("to", nil),
        ("collapse_key", "ck"), ("collapse_key.x", nil), ("collapse_keyx", nil), ("collapse", nil), ("c", nil),
        ("content_available", "true"), ("content_available.", nil), ("content_availabl", nil),
        ("format", "gcm"), ("formatx", nil), ("format.", nil), ("f", nil),
        ("notification", #"{"title":"N","o":{"a":1},"style":"default"}"#), ("notification.title", "N"), ("notification.o.a", "1"),
        ("notification.title.x", nil), ("notification.", nil), ("notificationx", nil), ("notif", nil), ("n", nil),
        ("source", #"{"kind":"stdin","line":1}"#), ("source.kind", "stdin"), ("source.line", "1"),
        ("source.kind.x", nil), ("source.", nil), ("source.file", nil), ("sourcex", nil), ("s", nil),
        ("data", #"{"k":"v"}"#), ("data.k", "v"), ("datak", nil),
        ("x", nil), (".", nil), ("..", nil),
    ]

    @Test func everyTopLevelWordIsMatchedAlike() throws {
        try Self.expect(Self.otherCases, from: Self.otherPayload)
    }

    /// A data-only message has no notification, and an empty data object is `{}`.
    @Test func whatAMessageLacks() throws {
        try Self.expect([("notification", nil), ("notification.title", nil), ("data", "{}"), ("data.k", nil),
                         ("topic", nil), ("collapse_key", nil), ("content_available", "false")],
                        from: #"{"data":{}}"#)
    }

    static func expect(_ cases: [(path: String, value: String?)], from payload: String) throws {
        let (_, values) = try normalize(payload, paths: cases.map(\.path))
        for (index, (path, expected)) in cases.enumerated() {
            #expect(values[index] == expected, "path \"\(path)\"")
        }
    }

    /// APNs: the data are the keys beside `aps`, not one object, so `data.`
    /// paths take the general walk over the merged members.
    @Test func dataOfManyPartsTakesTheWalk() throws {
        let payload = #"{"aps":{"alert":"hi"},"title":"T","ti":{"tle":"nested"}}"#
        let (_, values) = try normalize(payload, platform: .apns, paths: ["data.title", "data.ti.tle", "data.none", "priority", "id"])
        #expect(values == ["T", "nested", nil, "high", "stdin-1"])
    }
}
