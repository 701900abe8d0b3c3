import Testing
@testable import PushHostPipeline
@testable import PushHostSystem
@testable import PushHostJSON
@testable import PushHostMessage

/// Rich notifications (docs/running.md, rich notifications): `actions`, `image`, `icon`,
/// `click` and `style` in the normalized notification, from every shape
/// that states them, and the rewrite of a message whose actions are not in
/// normalized form.
@Suite struct RichNotificationTests {
    /// A payload, how the host reads it, the normalized notification it
    /// gives (nil: `null`), and whether the message rewrote itself.
    struct Case: Sendable, CustomTestStringConvertible {
        let label: String
        let platform: Platform?
        let payload: String
        let notification: String?
        let rewritten: Bool
        var testDescription: String { label }

        init(_ label: String, platform: Platform? = nil, _ payload: String, _ notification: String?, rewritten: Bool = false) {
            self.label = label
            self.platform = platform
            self.payload = payload
            self.notification = notification
            self.rewritten = rewritten
        }
    }

    /// The `notification` member of a normalized message's JSON, as written.
    static func notificationJSON(of message: Message) throws -> String? {
        let json = message.normalizedJSON()
        return try json.withUnsafeBytes { bytes in
            var reader = JSONReader(maxDepth: Message.normalizedMaxDepth)
            let value = try #require(try reader.parse(bytes).root.member(named: "notification"))
            return value.kind == .null ? nil : value.textBytes.withUnsafeBytes { String(decoding: $0, as: UTF8.self) }
        }
    }

    func check(_ shape: Case) throws {
        try withLoadedMessage(shape.payload, platform: shape.platform) { message in
            let notification = try Self.notificationJSON(of: message)
            #expect(notification == shape.notification)
            #expect(message.isNormalizedForm == shape.rewritten)
            // The bytes it reads: the record, or its normalized rewrite.
            let read = Array(message.recordBytes)
            #expect(read == (shape.rewritten ? message.normalizedJSON() : Array(shape.payload.utf8)))
        }
    }

    // MARK: Actions

    static let actions: [Case] = [
        Case("GCM notification with Web Push actions", #"""
            {"notification":{"title":"T","actions":[{"action":"open","title":"Open"},{"action":"no","title":"Dismiss","icon":"x.png"}]}}
            """#, #"""
            {"title":"T","actions":[{"id":"open","title":"Open"},{"id":"no","title":"Dismiss"}],"style":"default"}
            """#, rewritten: true),
        Case("bare ntfy message: top-level actions (action, label) and click", #"""
            {"topic":"door","title":"Door","message":"Back entrance open","click":"https://x/door",\#
            "actions":[{"action":"view","label":"Open camera","url":"https://x/cam"},{"action":"http","label":"Close","url":"https://x/close"}]}
            """#, #"""
            {"actions":[{"id":"view","title":"Open camera"},{"id":"http","title":"Close"}],"click":"https://x/door","style":"default"}
            """#, rewritten: true),
        Case("data.actions already normalized: referenced in place, no rewrite", #"""
            {"data":{"actions":[{"id":"a","title":"Accept"},{"id":"r","title":"Reply","input":true}],"k":"v"}}
            """#, #"""
            {"actions":[{"id":"a","title":"Accept"},{"id":"r","title":"Reply","input":true}],"style":"default"}
            """#),
        Case("notification actions already normalized: no rewrite", #"""
            {"notification":{"title":"T","actions":[{"id":"a","title":"A"}]}}
            """#, #"""
            {"title":"T","actions":[{"id":"a","title":"A"}],"style":"default"}
            """#),
        Case("APNs payload with data actions keeps category and alert", #"""
            {"aps":{"alert":{"title":"T","body":"B"},"category":"INVITE"},"actions":[{"id":"y","title":"Yes"}]}
            """#, #"""
            {"actions":[{"id":"y","title":"Yes"}],"title":"T","body":"B","category":"INVITE","style":"default"}
            """#),
        Case("malformed elements left out, the others converted", #"""
            {"notification":{"actions":["later",{"id":"x"},{"label":"L"},{"url":"u"},5,null,[1],\#
            {"id":3,"action":"a","title":"A"},{"action":"r","label":"Reply","type":"text"},{"id":"i","title":"I","input":true},\#
            {"id":"e","title":"E","input":false,"type":"button"}]}}
            """#, #"""
            {"actions":[{"id":"later","title":"later"},{"id":"x","title":"x"},{"id":"L","title":"L"},{"id":"a","title":"A"},\#
            {"id":"r","title":"Reply","input":true},{"id":"i","title":"I","input":true},{"id":"e","title":"E"}],"style":"default"}
            """#, rewritten: true),
        Case("normalized keys in another order are converted", #"""
            {"notification":{"actions":[{"title":"A","id":"a"}]}}
            """#, #"""
            {"actions":[{"id":"a","title":"A"}],"style":"default"}
            """#, rewritten: true),
        Case("JSON array inside a data string", #"""
            {"data":{"actions":"[{\"action\":\"ok\",\"title\":\"OK\"},\"later\"]"}}
            """#, #"""
            {"actions":[{"id":"ok","title":"OK"},{"id":"later","title":"later"}],"style":"default"}
            """#, rewritten: true),
        Case("data string that is not a JSON array: no actions, no notification", #"""
            {"data":{"actions":"open,close"}}
            """#, nil),
        Case("data string holding a JSON object: no actions", #"""
            {"data":{"actions":"{\"id\":\"a\"}"},"notification":{"title":"T"}}
            """#, #"""
            {"title":"T","style":"default"}
            """#),
        Case("data actions with no usable element: no notification", #"""
            {"data":{"actions":[1,{"url":"u"}]}}
            """#, nil),
        Case("empty data actions: no notification", #"{"data":{"actions":[]}}"#, nil),
        Case("notification actions that are no list are left out", #"""
            {"notification":{"title":"T","actions":"nope"}}
            """#, #"""
            {"title":"T","style":"default"}
            """#, rewritten: true),
        Case("notification actions that are no list give way to data's", #"""
            {"notification":{"title":"T","actions":5},"data":{"actions":[{"id":"a","title":"A"}]}}
            """#, #"""
            {"title":"T","actions":[{"id":"a","title":"A"}],"style":"default"}
            """#, rewritten: true),
        Case("the notification's own actions win over data's", #"""
            {"notification":{"actions":[{"action":"n","title":"N"}]},"data":{"actions":[{"id":"d","title":"D"}]}}
            """#, #"""
            {"actions":[{"id":"n","title":"N"}],"style":"default"}
            """#, rewritten: true),
    ]

    @Test("actions", arguments: actions)
    func actionLists(_ shape: Case) throws { try check(shape) }

    // MARK: FCM v1 platform blocks

    /// The seed's FCM v1 request: a data-only android message whose
    /// notification fields and actions (a JSON string) are in android.data.
    static let seed = #"""
        {"message":{"token":"device-1","android":{"priority":"high","data":{"rx_gcm_key_target":"issues",\#
        "title":"Printer jammed","body":"Tray 2, floor 3","imageUrl":"https://x/p.png","iconUrl":"https://x/i.png",\#
        "actions":"[{\"action\":\"fix\",\"title\":\"Mark fixed\"},{\"action\":\"reply\",\"title\":\"Reply\",\"type\":\"text\"}]"}}}}
        """#

    static let platforms: [Case] = [
        Case("seed: android.data with actions as a JSON string", platform: .android, seed, #"""
            {"title":"Printer jammed","body":"Tray 2, floor 3","image":"https://x/p.png","icon":"https://x/i.png",\#
            "actions":[{"id":"fix","title":"Mark fixed"},{"id":"reply","title":"Reply","input":true}],"style":"image"}
            """#, rewritten: true),
        Case("seed without --platform: common fields only, no notification", seed, nil),
        Case("explicit notification fields win over android data", platform: .android, #"""
            {"message":{"notification":{"title":"Common"},"android":{"notification":{"image":"https://x/n.png","click_action":"OPEN"},\#
            "data":{"title":"D","body":"DB","imageUrl":"https://x/d.png","iconUrl":"https://x/i.png","type":"big_text","click":"https://x/c"}}}}
            """#, #"""
            {"title":"Common","body":"DB","image":"https://x/n.png","icon":"https://x/i.png","click":"OPEN","click_action":"OPEN","style":"bigtext"}
            """#),
        Case("android data that is not text is left out", platform: .android, #"""
            {"message":{"android":{"data":{"title":5,"imageUrl":null}}}}
            """#, nil),
        Case("apns.fcm_options.image with --platform apns", platform: .apns, #"""
            {"message":{"notification":{"title":"T"},"apns":{"payload":{"aps":{"category":"C"}},"fcm_options":{"image":"https://x/a.png"}}}}
            """#, #"""
            {"image":"https://x/a.png","title":"T","category":"C","style":"image"}
            """#),
        Case("the notification's image wins over apns.fcm_options.image", platform: .apns, #"""
            {"message":{"notification":{"image":"https://x/n.png"},"apns":{"fcm_options":{"image":"https://x/a.png"}}}}
            """#, #"""
            {"image":"https://x/n.png","style":"image"}
            """#),
        Case("apns.fcm_options.image alone makes no notification", platform: .apns, #"""
            {"message":{"data":{"k":"v"},"apns":{"fcm_options":{"image":"https://x/a.png"}}}}
            """#, nil),
        Case("webpush.fcm_options.link with --platform webpush", platform: .webpush, #"""
            {"message":{"notification":{"title":"T"},"webpush":{"fcm_options":{"link":"https://x/l"},\#
            "notification":{"actions":[{"action":"a","title":"A"}]}}}}
            """#, #"""
            {"click":"https://x/l","title":"T","actions":[{"id":"a","title":"A"}],"style":"default"}
            """#, rewritten: true),
        Case("webpush.fcm_options.link without --platform: no click", #"""
            {"message":{"notification":{"title":"T"},"webpush":{"fcm_options":{"link":"https://x/l"}}}}
            """#, #"""
            {"title":"T","style":"default"}
            """#),
    ]

    @Test("FCM v1 platform blocks", arguments: platforms)
    func platformBlocks(_ shape: Case) throws { try check(shape) }

    // MARK: click, style

    static let clickAndStyle: [Case] = [
        Case("GCM click_action gives click", #"{"notification":{"title":"T","click_action":"OPEN"}}"#, #"""
            {"click":"OPEN","title":"T","click_action":"OPEN","style":"default"}
            """#),
        Case("an explicit click wins over click_action and data's", #"""
            {"notification":{"click":"A","click_action":"B"},"data":{"click":"C"}}
            """#, #"""
            {"click":"A","click_action":"B","style":"default"}
            """#),
        Case("data click fills a notification's", #"{"notification":{"title":"T"},"data":{"click":"https://x"}}"#, #"""
            {"click":"https://x","title":"T","style":"default"}
            """#),
        Case("data click alone makes no notification", #"{"data":{"click":"https://x"}}"#, nil),
        Case("image infers the image style", #"{"notification":{"image":"i.png"}}"#, #"{"image":"i.png","style":"image"}"#),
        Case("a null image infers nothing", #"{"notification":{"image":null}}"#, #"{"image":null,"style":"default"}"#),
        Case("stated style in any case keeps its place", #"{"notification":{"style":"BigText","title":"T"}}"#, #"""
            {"style":"bigtext","title":"T"}
            """#),
        Case("stated default wins over an image", #"{"notification":{"style":"default","image":"i.png"}}"#, #"""
            {"style":"default","image":"i.png"}
            """#),
        Case("Android big_picture is image", #"{"notification":{"style":"big_picture"}}"#, #"{"style":"image"}"#),
        Case("Android bigpicture is image", #"{"notification":{"style":"BIGPICTURE"}}"#, #"{"style":"image"}"#),
        Case("an unknown style word is inferred", #"{"notification":{"style":"fancy","image":"i.png"}}"#, #"""
            {"style":"image","image":"i.png"}
            """#),
        Case("a style that is not a string is inferred", #"{"notification":{"style":1}}"#, #"{"style":"default"}"#),
        Case("android data type names the style", platform: .android, #"""
            {"message":{"notification":{"title":"T"},"android":{"data":{"type":"bigtext"}}}}
            """#, #"{"title":"T","style":"bigtext"}"#),
        Case("android data type that is no style: inferred", platform: .android, #"""
            {"message":{"android":{"data":{"type":"promo","imageUrl":"https://x/p.png"}}}}
            """#, #"{"image":"https://x/p.png","style":"image"}"#),
        Case("the notification's style wins over android data type", platform: .android, #"""
            {"message":{"notification":{"style":"image"},"android":{"data":{"type":"big_text","title":"D"}}}}
            """#, #"{"title":"D","style":"image"}"#),
        Case("android data type alone makes no notification", platform: .android, #"""
            {"message":{"android":{"data":{"type":"bigtext"}}}}
            """#, nil),
        Case("data type outside FCM v1 android is data only", #"{"notification":{"title":"T"},"data":{"type":"bigtext","title":"D"}}"#, #"""
            {"title":"T","style":"default"}
            """#),
        Case("a data-only message keeps no notification", #"{"data":{"title":"t","body":"b","rx_gcm_key_target":"issues","id":"1"}}"#, nil),
    ]

    @Test("click and style", arguments: clickAndStyle)
    func clickStyle(_ shape: Case) throws { try check(shape) }

    // MARK: Whole messages

    @Test("the seed's message, whole: data keeps the string, priority from the block")
    func seedWhole() throws {
        let normalized = try normalize(Self.seed, platform: .android, paths: [
            "notification.actions.1.id", "notification.actions.1.input", "notification.actions.0.input",
            "notification.style", "notification.title", "notification.actions", "data.actions", "target", "priority",
        ])
        #expect(normalized.json == #"""
            {"id":"stdin-1","target":"issues","format":"fcm-v1","priority":"high","content_available":false,\#
            "notification":{"title":"Printer jammed","body":"Tray 2, floor 3","image":"https://x/p.png","icon":"https://x/i.png",\#
            "actions":[{"id":"fix","title":"Mark fixed"},{"id":"reply","title":"Reply","input":true}],"style":"image"},\#
            "data":{"rx_gcm_key_target":"issues","title":"Printer jammed","body":"Tray 2, floor 3","imageUrl":"https://x/p.png",\#
            "iconUrl":"https://x/i.png","actions":"[{\"action\":\"fix\",\"title\":\"Mark fixed\"},{\"action\":\"reply\",\#
            \"title\":\"Reply\",\"type\":\"text\"}]"},"topic":null,"collapse_key":null,"source":{"kind":"stdin","line":1}}
            """#)
        #expect(normalized.values == [
            "reply", "true", nil, "image", "Printer jammed",
            #"[{"id":"fix","title":"Mark fixed"},{"id":"reply","title":"Reply","input":true}]"#,
            #"[{"action":"fix","title":"Mark fixed"},{"action":"reply","title":"Reply","type":"text"}]"#,
            "issues", "high",
        ])
    }

    @Test("a notification made from data alone keeps a data message's priority")
    func dataMadePriority() throws {
        let plain = try normalize(#"{"data":{"actions":[{"id":"a","title":"A"}]}}"#, paths: ["priority", "notification.actions.0.id", "notification.style"])
        #expect(plain.values == ["normal", "a", "default"])
        let stated = try normalize(#"{"priority":"high","data":{"actions":["a"]}}"#, paths: ["priority", "notification.actions.0.title"])
        #expect(stated.values == ["high", "a"])
    }

    @Test("message_get in a rewritten message")
    func paths() throws {
        let normalized = try normalize(#"""
            {"message_id":"m1","to":"/topics/news","notification":{"title":"T","actions":[{"action":"a","title":"A"},{"action":"b","label":"B"}]},\#
            "data":{"rx_gcm_key_target":"issues","k":"v"}}
            """#, paths: [
                "notification.actions.1.id", "notification.actions.1.title", "notification.actions.2", "notification.style",
                "notification.title", "notification.actions.0", "data.k", "data", "target", "id", "topic", "priority", "format",
            ])
        #expect(normalized.values == [
            "b", "B", nil, "default", "T", #"{"id":"a","title":"A"}"#, "v", #"{"rx_gcm_key_target":"issues","k":"v"}"#,
            "issues", "m1", "news", "high", "gcm",
        ])
    }

    @Test("the style constants")
    func constants() {
        #expect(LayoutConstants.value(NotificationStyle.plain.rawValue).text == "default")
        #expect(LayoutConstants.value(NotificationStyle.image.rawValue).text == "image")
        #expect(LayoutConstants.value(NotificationStyle.bigText.rawValue).text == "bigtext")
    }
}
