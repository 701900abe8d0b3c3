import Testing
@testable import PushHostCore
@testable import PushHostPipeline
@testable import PushHostSystem
@testable import PushHostJSON
@testable import PushHostMessage
@testable import PushHostRecords

/// ntfy records (`curl -sN https://ntfy.sh/TOPIC/json`): which ones are
/// messages, how a message normalizes (its base64 `message` decoded first,
/// see ``NtfyRecord``), and which are rejected, with why.
@Suite struct NtfyTests {
    /// What the host makes of one record: the normalized JSON of a message
    /// (without `source`), the event of a skipped record, or the error of a
    /// rejected one, as the report gives it.
    enum Outcome: Equatable, CustomStringConvertible {
        case message(String)
        case skipped(String)
        case rejected(String)

        var description: String {
            switch self {
            case .message(let json): "message \(json)"
            case .skipped(let event): "skipped \(event)"
            case .rejected(let error): "rejected: \(error)"
            }
        }
    }

    /// A record and what the host makes of it.
    struct Case: Sendable, CustomTestStringConvertible {
        let label: String
        let record: String
        let outcome: Outcome
        var testDescription: String { label }

        init(_ label: String, _ record: String, _ outcome: Outcome) {
            self.label = label
            self.record = record
            self.outcome = outcome
        }
    }

    /// The head every case's record starts with.
    static let head = #"{"id":"n1","time":1700000000,"event":"message","topic":"alerts""#

    /// `record` taken as the pipeline takes it: not ntfy (nil), skipped,
    /// rejected, or loaded (from the record, or from its rewrite).
    static func outcome(of record: String) throws -> Outcome? {
        let input = Array(record.utf8)
        return try input.withUnsafeBytes { bytes -> Outcome? in
            var reader = JSONReader()
            let document = try reader.parse(bytes)
            let members = RootMembers(document.root)
            guard members.isNtfy(document.root) else { return nil }
            let ntfy: NtfyRecord
            do throws(RecordError) {
                ntfy = try NtfyRecord(document.root, members: members)
            } catch {
                return .rejected(error.text)
            }
            let message = Message()
            defer { message.reset() }
            let key = Array("rx_gcm_key_target".utf8)
            key.withUnsafeBytes { key in
                switch ntfy {
                case .skipped: break
                case .message:
                    message.load(document, members: members, source: .stdin(line: 1), platform: nil, targetKey: key)
                case .rewritten(let rewrite):
                    message.load(rewritten: rewrite, source: .stdin(line: 1), platform: nil, targetKey: key)
                }
            }
            if case .skipped(let event) = ntfy { return .skipped(event.rawValue) }
            let json = String(decoding: message.normalizedJSON(), as: UTF8.self)
            return .message(String(json.dropLast(#","source":{"kind":"stdin","line":1}}"#.count)) + "}")
        }
    }

    func check(_ shape: Case) throws {
        #expect(try Self.outcome(of: shape.record) == shape.outcome)
    }

    // MARK: Messages

    static let messages: [Case] = [
        Case("every field", head + #"""
            ,"title":"Door","message":"Back entrance open","priority":4,"tags":["door","warning"],"click":"https://x/door",\#
            "icon":"https://x/i.png","actions":[{"action":"view","label":"Open camera","url":"https://x/cam"}],\#
            "attachment":{"name":"cam.jpg","type":"image/jpeg","size":1234,"expires":1700003600,"url":"https://x/cam.jpg"},\#
            "expires":1700043200}
            """#, .message(#"""
            {"id":"n1","target":null,"format":"ntfy","priority":"high","content_available":false,\#
            "notification":{"actions":[{"id":"view","title":"Open camera"}],"click":"https://x/door","title":"Door",\#
            "body":"Back entrance open","icon":"https://x/i.png","image":"https://x/cam.jpg","style":"image"},\#
            "data":{"id":"n1","time":1700000000,"event":"message","topic":"alerts","title":"Door","message":"Back entrance open",\#
            "priority":4,"tags":["door","warning"],"click":"https://x/door","icon":"https://x/i.png",\#
            "actions":[{"action":"view","label":"Open camera","url":"https://x/cam"}],\#
            "attachment":{"name":"cam.jpg","type":"image/jpeg","size":1234,"expires":1700003600,"url":"https://x/cam.jpg"},\#
            "expires":1700043200},"topic":"alerts","collapse_key":null}
            """#)),
        Case("a message alone: priority high, the body", head + #","message":"triggered"}"#, .message(#"""
            {"id":"n1","target":null,"format":"ntfy","priority":"high","content_available":false,\#
            "notification":{"body":"triggered","style":"default"},\#
            "data":{"id":"n1","time":1700000000,"event":"message","topic":"alerts","message":"triggered"},\#
            "topic":"alerts","collapse_key":null}
            """#)),
        Case("an attachment that is no image gives no image", head + #"""
            ,"message":"m","attachment":{"name":"a.pdf","type":"application/pdf","url":"https://x/a.pdf"}}
            """#, .message(#"""
            {"id":"n1","target":null,"format":"ntfy","priority":"high","content_available":false,\#
            "notification":{"body":"m","style":"default"},\#
            "data":{"id":"n1","time":1700000000,"event":"message","topic":"alerts","message":"m",\#
            "attachment":{"name":"a.pdf","type":"application/pdf","url":"https://x/a.pdf"}},\#
            "topic":"alerts","collapse_key":null}
            """#)),
        Case("an image attachment without a url gives no image", head + #"""
            ,"message":"m","attachment":{"name":"a.png","type":"image/png"}}
            """#, .message(#"""
            {"id":"n1","target":null,"format":"ntfy","priority":"high","content_available":false,\#
            "notification":{"body":"m","style":"default"},\#
            "data":{"id":"n1","time":1700000000,"event":"message","topic":"alerts","message":"m",\#
            "attachment":{"name":"a.png","type":"image/png"}},"topic":"alerts","collapse_key":null}
            """#)),
        Case("the target key in the record", head + #","message":"m","rx_gcm_key_target":"door"}"#, .message(#"""
            {"id":"n1","target":"door","format":"ntfy","priority":"high","content_available":false,\#
            "notification":{"body":"m","style":"default"},\#
            "data":{"id":"n1","time":1700000000,"event":"message","topic":"alerts","message":"m","rx_gcm_key_target":"door"},\#
            "topic":"alerts","collapse_key":null}
            """#)),
        Case("base64: the body and data's message decoded, encoding left out", head + #"""
            ,"title":"Caf\u00e9","message":"Q2Fmw6kgY2xvc2VzIGF0IDUKIm5vdyI=","encoding":"base64","priority":2}
            """#, .message(#"""
            {"id":"n1","target":null,"format":"ntfy","priority":"normal","content_available":false,\#
            "notification":{"title":"Caf\u00e9","body":"Café closes at 5\n\"now\"","style":"default"},\#
            "data":{"id":"n1","time":1700000000,"event":"message","topic":"alerts","title":"Caf\u00e9",\#
            "message":"Café closes at 5\n\"now\"","priority":2},"topic":"alerts","collapse_key":null}
            """#)),
        Case("an empty encoding is plain text", head + #","message":"SGk=","encoding":""}"#, .message(#"""
            {"id":"n1","target":null,"format":"ntfy","priority":"high","content_available":false,\#
            "notification":{"body":"SGk=","style":"default"},\#
            "data":{"id":"n1","time":1700000000,"event":"message","topic":"alerts","message":"SGk=","encoding":""},\#
            "topic":"alerts","collapse_key":null}
            """#)),
    ]

    @Test(arguments: messages)
    func message(_ shape: Case) throws { try check(shape) }

    /// ntfy's priorities 1 to 5: 1 and 2 are normal, the others high (3 is
    /// ntfy's default, and a record without one is high too).
    @Test(arguments: [("1", "normal"), ("2", "normal"), ("3", "high"), ("4", "high"), ("5", "high"), (nil, "high")])
    func priority(_ stated: String?, _ expected: String) throws {
        let record = Self.head + #","message":"m""# + (stated.map { #","priority":\#($0)"# } ?? "") + "}"
        let outcome = try #require(try Self.outcome(of: record))
        guard case .message(let json) = outcome else { Issue.record("not a message: \(outcome)"); return }
        #expect(json.contains(#""priority":"\#(expected)""#))
    }

    // MARK: Other events, bad records

    static let others: [Case] = [
        Case("open", #"{"id":"o1","time":1700000000,"event":"open","topic":"alerts"}"#, .skipped("open")),
        Case("keepalive", #"{"id":"k1","time":1700000000,"event":"keepalive","topic":"alerts"}"#, .skipped("keepalive")),
        Case("poll_request", #"{"id":"p1","time":1,"event":"poll_request","topic":"alerts","message":"New message"}"#,
             .skipped("poll_request")),
        Case("an unknown event", #"{"id":"x1","time":1,"event":"subscribe","topic":"alerts"}"#,
             .rejected(#"unknown ntfy event "subscribe" (known: message, open, keepalive, poll_request)"#)),
        Case("base64 that is not", head + #","message":"not base64!","encoding":"base64"}"#,
             .rejected(#"byte 74: "message" is not valid base64 (encoding is base64)"#)),
        Case("base64 of bytes that are not UTF-8", head + #","message":"/w==","encoding":"base64"}"#,
             .rejected(#"byte 74: "message" decoded from base64 is not UTF-8 text"#)),
        Case("base64 without a message", head + #","encoding":"base64"}"#,
             .rejected(#""message" must be a string (encoding is base64)"#)),
        Case("an unknown encoding", head + #","message":"m","encoding":"gzip"}"#,
             .rejected(#"unknown ntfy encoding "gzip" (known: base64)"#)),
    ]

    @Test(arguments: others)
    func other(_ shape: Case) throws { try check(shape) }

    /// Without all four telling members, of their kinds, a record is no ntfy record.
    @Test(arguments: [
        #"{"time":1,"event":"message","topic":"alerts","message":"m"}"#,
        #"{"id":"n1","event":"message","topic":"alerts","message":"m"}"#,
        #"{"id":"n1","time":"1","event":"message","topic":"alerts"}"#,
        #"{"id":1,"time":1,"event":"message","topic":"alerts"}"#,
        #"{"id":"n1","time":1,"event":{"name":"message"},"topic":"alerts"}"#,
        #"{"id":"n1","time":1,"event":"message","topic":["alerts"]}"#,
    ])
    func notNtfy(_ record: String) throws {
        #expect(try Self.outcome(of: record) == nil)
    }

    // MARK: Base64

    @Test(arguments: [
        ("", ""), ("SGk=", "Hi"), ("SGk", "Hi"), ("SGVsbG8=", "Hello"), ("SGVsbG8", "Hello"), ("SGVsbG8h", "Hello!"),
        ("Pz8+Pw==", "??>?"), ("Pz8-Pw==", nil), ("Pz8_Pw==", nil), ("SGVs bG8=", nil), ("SGVsb", nil),
        ("SG=k", nil), ("S===", nil), ("====", nil), ("SGk==", nil), ("SGVsbG8=\n", nil),
    ] as [(String, String?)])
    func base64(_ text: String, _ decoded: String?) {
        #expect(Base64.decode(Array(text.utf8)).map { String(decoding: $0, as: UTF8.self) } == decoded)
    }
}
