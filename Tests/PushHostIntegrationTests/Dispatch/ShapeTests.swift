import Foundation
import Testing

/// Every payload shape normalizes into one message, as plugins read it
/// through `message_json`, `message_get`, `message_id` and `message_target`.
@Suite struct ShapeTests {
    struct Case: Sendable, CustomTestStringConvertible {
        let label: String
        let platform: String?
        let payload: String
        /// The normalized message without `source` (always line 1 here).
        let expected: String
        var testDescription: String { label }
    }

    /// An FCM HTTP v1 message with a block for every platform.
    static let v1 = #"""
        {"message":{"name":"projects/p/messages/7","topic":"news",\#
        "data":{"rx_gcm_key_target":"a","k":"common"},\#
        "notification":{"title":"T","body":"B","image":"https://x/i.png"},\#
        "android":{"priority":"HIGH","collapse_key":"ck","data":{"rx_gcm_key_target":"b","k":"android"},\#
        "notification":{"title":"AT","channel_id":"c1"}},\#
        "apns":{"headers":{"apns-priority":"10","apns-collapse-id":"ac"},\#
        "payload":{"aps":{"alert":{"title":"IT","subtitle":"IS"},"badge":3,"sound":"ping.caf","content-available":1},"extra":"ios"}},\#
        "webpush":{"headers":{"Urgency":"high","Topic":"wt"},"data":{"k":"web"},"notification":{"body":"WB","icon":"i.png"}}}}
        """#

    static let cases: [Case] = [
        Case(label: "GCM legacy", platform: nil, payload: #"""
            {"to":"/topics/news","message_id":"g-1","priority":"high","content_available":true,"mutable_content":true,\#
            "collapse_key":"score","time_to_live":60,"notification":{"title":"Goal","body":"1-0","sound":"default"},\#
            "data":{"rx_gcm_key_target":"a","minute":"12"}}
            """#, expected: #"""
            {"id":"g-1","target":"a","format":"gcm","priority":"high","content_available":true,\#
            "notification":{"title":"Goal","body":"1-0","sound":"default","style":"default"},"data":{"rx_gcm_key_target":"a","minute":"12"},\#
            "topic":"news","collapse_key":"score"}
            """#),
        Case(label: "GCM legacy data to one device", platform: nil,
             payload: #"{"to":"device-token","priority":"normal","data":{"k":"v"}}"#,
             expected: #"""
                {"id":"stdin-1","target":null,"format":"gcm","priority":"normal","content_available":false,\#
                "notification":null,"data":{"k":"v"},"topic":null,"collapse_key":null}
                """#),
        Case(label: "GCM legacy, priority not stated", platform: nil,
             payload: #"{"notification":{"title":"T"}}"#,
             expected: #"""
                {"id":"stdin-1","target":null,"format":"gcm","priority":"high","content_available":false,\#
                "notification":{"title":"T","style":"default"},"data":{},"topic":null,"collapse_key":null}
                """#),
        Case(label: "GCM legacy numeric message_id", platform: nil,
             payload: #"{"message_id":42,"priority":"normal","notification":{"title":"T"},"data":{"rx_gcm_key_target":"a"}}"#,
             expected: #"""
                {"id":"42","target":"a","format":"gcm","priority":"normal","content_available":false,\#
                "notification":{"title":"T","style":"default"},"data":{"rx_gcm_key_target":"a"},"topic":null,"collapse_key":null}
                """#),
        Case(label: "FCM v1, common fields", platform: nil, payload: v1, expected: #"""
            {"id":"projects/p/messages/7","target":"a","format":"fcm-v1","priority":"high","content_available":false,\#
            "notification":{"title":"T","body":"B","image":"https://x/i.png","style":"image"},"data":{"rx_gcm_key_target":"a","k":"common"},\#
            "topic":"news","collapse_key":null}
            """#),
        Case(label: "FCM v1, android", platform: "android", payload: v1, expected: #"""
            {"id":"projects/p/messages/7","target":"b","format":"fcm-v1","priority":"high","content_available":false,\#
            "notification":{"title":"AT","body":"B","image":"https://x/i.png","channel_id":"c1","style":"image"},\#
            "data":{"rx_gcm_key_target":"b","k":"android"},"topic":"news","collapse_key":"ck"}
            """#),
        Case(label: "FCM v1, apns", platform: "apns", payload: v1, expected: #"""
            {"id":"projects/p/messages/7","target":"a","format":"fcm-v1","priority":"high","content_available":true,\#
            "notification":{"title":"IT","body":"B","image":"https://x/i.png","subtitle":"IS","badge":3,"sound":"ping.caf","style":"image"},\#
            "data":{"rx_gcm_key_target":"a","k":"common","extra":"ios"},"topic":"news","collapse_key":"ac"}
            """#),
        Case(label: "FCM v1, webpush", platform: "webpush", payload: v1, expected: #"""
            {"id":"projects/p/messages/7","target":null,"format":"fcm-v1","priority":"high","content_available":false,\#
            "notification":{"title":"T","body":"WB","image":"https://x/i.png","icon":"i.png","style":"image"},\#
            "data":{"k":"web"},"topic":"news","collapse_key":"wt"}
            """#),
        Case(label: "FCM v1, android block without data", platform: "android",
             payload: #"{"message":{"token":"x","data":{"rx_gcm_key_target":"a"},"android":{"priority":"normal","notification":{"body":"AB"}}}}"#,
             expected: #"""
                {"id":"stdin-1","target":"a","format":"fcm-v1","priority":"normal","content_available":false,\#
                "notification":{"body":"AB","style":"default"},"data":{"rx_gcm_key_target":"a"},"topic":null,"collapse_key":null}
                """#),
        Case(label: "FCM v1, no block for the platform", platform: "apns",
             payload: #"{"message":{"topic":"t","data":{"k":"v"},"android":{"priority":"high"}}}"#,
             expected: #"""
                {"id":"stdin-1","target":null,"format":"fcm-v1","priority":"normal","content_available":false,\#
                "notification":null,"data":{"k":"v"},"topic":"t","collapse_key":null}
                """#),
        Case(label: "APNs, string alert", platform: nil,
             payload: #"{"aps":{"alert":"Hello","badge":2,"sound":"default","category":"MSG","thread-id":"t1"},"rx_gcm_key_target":"a","order":17}"#,
             expected: #"""
                {"id":"stdin-1","target":"a","format":"apns","priority":"high","content_available":false,\#
                "notification":{"body":"Hello","badge":2,"sound":"default","category":"MSG","thread-id":"t1","style":"default"},\#
                "data":{"rx_gcm_key_target":"a","order":17},"topic":null,"collapse_key":null}
                """#),
        Case(label: "APNs, object alert", platform: nil,
             payload: #"{"aps":{"alert":{"title":"T","subtitle":"S","body":"B"},"content-available":1,"mutable-content":1},"k":"v"}"#,
             expected: #"""
                {"id":"stdin-1","target":null,"format":"apns","priority":"high","content_available":true,\#
                "notification":{"title":"T","subtitle":"S","body":"B","style":"default"},"data":{"k":"v"},"topic":null,"collapse_key":null}
                """#),
        Case(label: "APNs, background only", platform: nil,
             payload: #"{"aps":{"content-available":1},"k":"v"}"#,
             expected: #"""
                {"id":"stdin-1","target":null,"format":"apns","priority":"normal","content_available":true,\#
                "notification":null,"data":{"k":"v"},"topic":null,"collapse_key":null}
                """#),
        Case(label: "bare data", platform: nil,
             payload: #"{"rx_gcm_key_target":"a","n":1.5,"nested":{"x":[1,true,null]},"message":"a string, not FCM v1"}"#,
             expected: #"""
                {"id":"stdin-1","target":"a","format":"bare","priority":"normal","content_available":false,"notification":null,\#
                "data":{"rx_gcm_key_target":"a","n":1.5,"nested":{"x":[1,true,null]},"message":"a string, not FCM v1"},\#
                "topic":null,"collapse_key":null}
                """#),
    ]

    @Test(arguments: cases)
    func normalizes(_ shape: Case) throws {
        let scratch = try Scratch()
        let plugins = try scratch.probe("sh", [.background], settings: ["json": "true"])
            + (shape.platform.map { ["--platform", $0] } ?? [])
        let result = try scratch.run(plugins, stdin: shape.payload + "\n")
        #expect(result.status == 0, "\(result.stderr)")
        let line = try #require(scratch.probeLines().first { $0.event == "background" })
        #expect(!line.rest.contains("LEN-MISMATCH"))
        var expected = try #require(try JSONSerialization.jsonObject(with: Data(shape.expected.utf8)) as? [String: Any])
        expected["source"] = ["kind": "stdin", "line": 1]
        #expect(try Self.canonical(line.json()) == Self.canonical(expected))
        // message_id and message_target agree with the JSON, and so does the report.
        #expect(line.id == expected["id"] as? String)
        #expect(line.target == (expected["target"] as? String ?? "-"))
        let report = try #require(try result.report().first)
        #expect(report["id"] as? String == expected["id"] as? String)
        #expect(try Self.canonical(report["target"] as Any) == Self.canonical(expected["target"] as Any))
    }

    /// The normalized JSON keeps its keys in the documented order.
    @Test func normalizedKeysComeInTheDocumentedOrder() throws {
        let scratch = try Scratch()
        let result = try scratch.run(try scratch.probe("sh", [.background], settings: ["json": "true"]),
                                     stdin: #"{"data":{"k":"v"},"notification":{"title":"T"}}"# + "\n")
        #expect(result.status == 0, "\(result.stderr)")
        let json = try #require(scratch.probeLines().first).rest
        let keys = ["id", "target", "format", "priority", "content_available", "notification", "data", "topic", "collapse_key", "source"]
        let positions = keys.map { json.range(of: "\"\($0)\":")?.lowerBound }
        #expect(positions.allSatisfy { $0 != nil }, "\(json)")
        #expect(positions.compactMap { $0 } == positions.compactMap { $0 }.sorted(), "\(json)")
    }

    /// Every message has data, empty when the payload has none (here a
    /// GCM notification without data); a data-only message has no notification.
    @Test func dataIsAnEmptyObjectWhenAbsent() throws {
        let scratch = try Scratch()
        let paths = ["data", "notification", "notification.title"]
        let plugins = try scratch.probe("sh", [.background], settings: ["get": paths.joined(separator: ",")])
        let result = try scratch.run(plugins, stdin: ndjson(#"{"notification":{"title":"T"}}"#, #"{"data":{"k":"v"}}"#))
        #expect(result.status == 0, "\(result.stderr)")
        let lines = scratch.probeLines().filter { $0.event == "background" }
        try #require(lines.count == 2)
        #expect(lines[0].values(paths) == ["data": "{}", "notification": #"{"title":"T","style":"default"}"#, "notification.title": "T"])
        #expect(lines[1].values(paths) == ["data": #"{"k":"v"}"#, "notification": "NULL", "notification.title": "NULL"])
    }

    @Test func messageGetAnswersEveryKindOfValue() throws {
        let scratch = try Scratch()
        let paths = [
            "data.s", "data.n", "data.t", "data.f", "data.z", "data.o", "data.o.x.1.y", "data.arr", "data.absent", "data",
            "notification.title", "notification.body", "priority", "content_available", "format", "id", "target",
            "topic", "collapse_key", "source", "source.kind", "source.line", "nothing", "data.s.deeper",
            "data.arr.2", "data.arr.2.y", "data.o.x.9.y",
        ]
        let plugins = try scratch.probe("sh", [.background], settings: ["get": paths.joined(separator: ",")])
        let payload = #"""
            {"message_id":"m1","data":{"rx_gcm_key_target":"a","s":"a\"b\u00e9","n":12.5e1,"t":true,"f":false,"z":null,\#
            "o":{"x":[1, {"y": "deep"}]},"arr":[1,"two"]},"notification":{"title":"T"}}
            """#
        let result = try scratch.run(plugins, stdin: payload + "\n")
        #expect(result.status == 0, "\(result.stderr)")
        let line = try #require(scratch.probeLines().first)
        #expect(line.values(paths) == [
            "data.s": "a\"bé",
            "data.n": "12.5e1",
            "data.t": "true",
            "data.f": "false",
            "data.z": "NULL",
            "data.o": #"{"x":[1,{"y":"deep"}]}"#,
            "data.o.x.1.y": "deep",
            "data.arr": #"[1,"two"]"#,
            "data.absent": "NULL",
            "data": #"{"rx_gcm_key_target":"a","s":"a\"b\u00e9","n":12.5e1,"t":true,"f":false,"z":null,"o":{"x":[1,{"y":"deep"}]},"arr":[1,"two"]}"#,
            "notification.title": "T",
            "notification.body": "NULL",
            "priority": "high",
            "content_available": "false",
            "format": "gcm",
            "id": "m1",
            "target": "a",
            "topic": "NULL",
            "collapse_key": "NULL",
            "source": #"{"kind":"stdin","line":1}"#,
            "source.kind": "stdin",
            "source.line": "1",
            "nothing": "NULL",
            "data.s.deeper": "NULL",
            "data.arr.2": "NULL",
            "data.arr.2.y": "NULL",
            "data.o.x.9.y": "NULL",
        ], "\(line)")
    }

    @Test func dataOnlyMessageHasNoNotificationAtAll() throws {
        let scratch = try Scratch()
        let paths = ["notification", "notification.title", "data.k"]
        let plugins = try scratch.probe("sh", [.background], settings: ["get": paths.joined(separator: ",")])
            + scratch.probe("sj", [.background], settings: ["json": "true"])
        let result = try scratch.run(plugins, stdin: #"{"data":{"k":"v"}}"# + "\n")
        #expect(result.status == 0, "\(result.stderr)")
        let lines = scratch.probeLines().filter { $0.event == "background" }
        try #require(lines.count == 2)
        #expect(lines[0].values(paths) == ["notification": "NULL", "notification.title": "NULL", "data.k": "v"])
        #expect(try lines[1].json()["notification"] is NSNull)
    }

    @Test func missingTargetIsNull() throws {
        let scratch = try Scratch()
        let plugins = try scratch.probe("sh", [.background], settings: ["json": "true"])
        let result = try scratch.run(plugins, stdin: ndjson(
            #"{"message_id":"m1","data":{"title":"no target here"}}"#,
            #"{"message_id":"m2","data":{"rx_gcm_key_target":null}}"#))
        #expect(result.status == 0, "\(result.stderr)")
        let lines = scratch.probeLines().filter { $0.event == "background" }
        try #require(lines.count == 2)
        for line in lines {
            #expect(line.target == "-")
            #expect(try line.json()["target"] is NSNull)
        }
        let report = try result.report()
        #expect(report.count == 2)
        #expect(report.allSatisfy { $0["target"] is NSNull && $0["status"] as? String == "delivered" })
    }

    @Test func targetKeyChoosesTheDataKey() throws {
        let scratch = try Scratch()
        let plugins = try scratch.probe("s1", [.foreground], targets: ["a"]) + scratch.probe("sh", [.background])
        let input = ndjson(
            #"{"pushhost":"foreground","screen":"s1"}"#,
            #"{"message_id":"m1","data":{"other":"a","rx_gcm_key_target":"b"}}"#,
            #"{"message_id":"m2","data":{"rx_gcm_key_target":"a"}}"#)
        let result = try scratch.run(plugins + ["--target-key", "other"], stdin: input)
        #expect(result.status == 0, "\(result.stderr)")
        #expect(scratch.probeCalls() == ["s1 target m1", "s1 mismatch m2"])
        let report = try result.report()
        #expect(report.dropFirst().map { $0["target"] as? String } == ["a", nil])
        #expect(report.dropFirst().map { $0["route"] as? String } == ["target", "mismatch"])
    }

    @Test func generatedIDsNameTheLineAndSourceSaysWhere() throws {
        let scratch = try Scratch()
        let paths = ["id", "source.kind", "source.line"]
        let plugins = try scratch.probe("sh", [.background], settings: ["get": paths.joined(separator: ",")])
        let result = try scratch.run(plugins, stdin: "{\"pushhost\":\"background\"}\n\n{\"data\":{}}\n{\"k\":1}\n")
        #expect(result.status == 0, "\(result.stderr)")
        let lines = scratch.probeLines().filter { $0.event == "background" }
        #expect(lines.map(\.id) == ["stdin-3", "stdin-4"])
        #expect(lines.map { $0.values(paths) } == [
            ["id": "stdin-3", "source.kind": "stdin", "source.line": "3"],
            ["id": "stdin-4", "source.kind": "stdin", "source.line": "4"],
        ])
        let report = try result.report()
        try #require(report.count == 3)
        #expect(report.map { ($0["source"] as? [String: Any])?["line"] as? Int } == [1, 3, 4])
        #expect(report.map { ($0["source"] as? [String: Any])?["kind"] as? String } == ["stdin", "stdin", "stdin"])
        #expect(report.dropFirst().map { $0["id"] as? String } == ["stdin-3", "stdin-4"])
    }

    static func canonical(_ value: Any) throws -> String {
        String(decoding: try JSONSerialization.data(withJSONObject: value, options: [.sortedKeys, .fragmentsAllowed]), as: UTF8.self)
    }
}
