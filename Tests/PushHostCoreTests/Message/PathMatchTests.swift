import Testing
@testable import PushHostMessage

/// `message_get` matches the paths plugins read most (`target`, `priority`,
/// `id`, `data.` and a key of the data object taken whole) where they lie,
/// before the general walk measures any segment. A path that only starts
/// like one of them, goes on past it, or names a key with a dot in it must
/// get what the general walk gives, and a path shorter than the word it
/// resembles must not be read past its end.
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
        let paths = Self.cases.map(\.path)
        let (_, values) = try normalize(Self.payload, paths: paths)
        for (index, (path, expected)) in Self.cases.enumerated() {
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
