import Foundation
import Testing

/// What a Swift plugin reads of a message: the same values during its
/// handler, from a copy made with `Message(json:)`, and after the handler
/// returned (from another task, or at shutdown), for every payload shape.
@Suite struct SwiftPluginsMessageTests {
    /// The keys `keeper` reads with `data[KEY]`, and the paths it reads with `value(at:)`.
    static let keys = ["minute", "n", "nested", "a.b", "q", "none", "k", "order", "title", "missing"]
    static let paths = [
        "data.nested.x.0", "data.nested.x.1", "data.nested.x.2", "notification.badge", "notification.image",
        "format", "content_available", "source.line", "topic", "notification", "data.a",
    ]

    /// One GCM message with a notification, one GCM data message whose data
    /// handler suspends first, one FCM v1 and one APNs message.
    static let payloads = [
        #"{"message_id":"g1","priority":"normal","to":"/topics/news","notification":{"title":"Goal","body":"1-0","badge":2},"#
            + #""data":{"rx_gcm_key_target":"scores","minute":"12","n":7,"nested":{"x":[1,true,null]},"a.b":"dotted","q":"say \"hi\" \u00e9","none":null}}"#,
        #"{"message_id":"g2","data":{"title":"From data","body":"data body","sleep_ms":"30","nested":{"x":[5]}}}"#,
        #"{"message":{"name":"projects/p/messages/7","data":{"rx_gcm_key_target":"orders","k":"common"},"notification":{"title":"T","body":"B","image":"https://x/i.png"}}}"#,
        #"{"aps":{"alert":{"title":"Tea","body":"is back"},"badge":3},"rx_gcm_key_target":"shelf","order":17}"#,
    ]

    /// What `keeper` writes for each payload, json aside: id, target,
    /// priority, title, body, then `data[KEY]` for `keys`, `value(at:)` for
    /// `paths`, the data members and the notification members (`-` for nil),
    /// then the data's count, its dictionary's count and whether the
    /// notification is empty.
    /// Strings come unescaped, other values as their JSON text, null as nil.
    static let expected: [[String]] = [
        ["g1", "scores", "normal", "Goal", "1-0"]
            + ["12", "7", #"{"x":[1,true,null]}"#, "dotted", #"say "hi" é"#, "-", "-", "-", "-", "-"]
            + ["1", "true", "-", "2", "-", "gcm", "false", "1", "news", #"{"title":"Goal","body":"1-0","badge":2,"style":"default"}"#, "-"]
            + [#"rx_gcm_key_target=scores,minute=12,n=7,nested={"x":[1,true,null]},a.b=dotted,q=say "hi" é"#, "title=Goal,body=1-0,badge=2,style=default", "6/6/false"],
        ["g2", "-", "normal", "From data", "data body"]
            + ["-", "-", #"{"x":[5]}"#, "-", "-", "-", "-", "-", "From data", "-"]
            + ["5", "-", "-", "-", "-", "gcm", "false", "2", "-", "-", "-"]
            + [#"title=From data,body=data body,sleep_ms=30,nested={"x":[5]}"#, "", "4/4/true"],
        ["projects/p/messages/7", "orders", "high", "T", "B"]
            + ["-", "-", "-", "-", "-", "-", "common", "-", "-", "-"]
            + ["-", "-", "-", "-", "https://x/i.png", "fcm-v1", "false", "3", "-", #"{"title":"T","body":"B","image":"https://x/i.png","style":"image"}"#, "-"]
            + ["rx_gcm_key_target=orders,k=common", "title=T,body=B,image=https://x/i.png,style=image", "2/2/false"],
        ["stdin-4", "shelf", "high", "Tea", "is back"]
            + ["-", "-", "-", "-", "-", "-", "-", "17", "-", "-"]
            + ["-", "-", "-", "3", "-", "apns", "false", "4", "-", #"{"title":"Tea","body":"is back","badge":3,"style":"default"}"#, "-"]
            + ["rx_gcm_key_target=shelf,order=17", "title=Tea,body=is back,badge=3,style=default", "2/2/false"],
    ]

    /// Every message is read five ways: in its data handler (the second
    /// after the handler suspended), from a detached task after the data
    /// handler continued, in its background handler, from `Message(json:)`,
    /// and at shutdown; all five give the expected values, and the JSON the
    /// host gives a C plugin.
    @Test func keptMessagesReadTheSameFieldsAfterTheirHandlers() throws {
        let package = try PluginPackage.shared()
        let scratch = try Scratch()
        let plugins = loading(package.library("keeper"), as: "keeper", [
            "log": scratch.file("keeper.log"), "keys": Self.keys.joined(separator: ","), "paths": Self.paths.joined(separator: ","),
        ]) + (try scratch.probe("bg", [.background], settings: ["json": "true"]))
        let result = try scratch.run(plugins, stdin: ndjson(Self.payloads.joined(separator: "\n")))
        #expect(result.status == 0, "\(result.stderr)")
        #expect(try result.report().map { $0["status"] as? String } == ["delivered", "delivered", "delivered", "delivered"])

        let lines = scratch.lines("keeper.log")
        let hostJSON = Dictionary(uniqueKeysWithValues: scratch.probeLines().map { ($0.id, $0.rest) })
        for expected in Self.expected {
            let id = expected[0]
            let reads = Dictionary(grouping: lines.filter { $0.count > 1 && $0[1] == id }, by: { $0[0] })
            #expect(reads.keys.sorted() == ["background", "background-later", "copy", "data", "data-later"], "\(id)")
            #expect(reads.values.allSatisfy { $0.count == 1 }, "\(id): \(reads)")
            #expect(reads["background-later"]?.first?.last == "equal", "\(id)")
            for (event, read) in reads {
                let fields = Array(read[0].dropFirst().prefix(expected.count + 1))
                #expect(Array(fields.prefix(expected.count)) == expected, "\(id) \(event)")
                #expect(fields.last == hostJSON[id], "\(id) \(event)")
            }
        }
    }
}
