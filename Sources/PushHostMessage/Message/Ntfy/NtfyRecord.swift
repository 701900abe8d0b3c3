import PushHostJSON
import PushHostRecords

/// A record of an ntfy stream (https://ntfy.sh), as `curl -sN
/// https://ntfy.sh/TOPIC/json` prints one a line: an object with a string
/// `event`, a string `topic`, a number `time` and a string `id` (see
/// ``RootMembers/isNtfy(_:)``).
///
/// ```
/// {"id":"hwQ2YpKdmg","time":1700000000,"event":"open","topic":"alerts"}
///   ->  skipped (open)
/// {"id":"sPs7wRhyS4","time":1700000001,"event":"message","topic":"alerts","title":"Door","message":"Back entrance open"}
///   ->  a message, read where it stands
/// {"id":"aHc9Bx2d","time":1700000002,"event":"message","topic":"alerts","message":"SGVsbG8=","encoding":"base64"}
///   ->  a message, rewritten: {"id":"aHc9Bx2d","time":1700000002,"event":"message","topic":"alerts","message":"Hello"}
/// ```
///
/// A message is read where it stands (``MessageLayout``), except one whose
/// `message` is base64 (`"encoding":"base64"`). Its text is not in the
/// record, and a message only ever points into the bytes it reads;
/// so the record is rewritten first, into the record ntfy would have sent
/// for that text (`message` decoded, `encoding` left out), and the message
/// is loaded from the rewrite. Every later reader of the message (a worker,
/// the store of delivered messages) then reads plain text, and the decoding
/// happens once, before any layout is built.
package enum NtfyRecord {
    /// A message, to load from the record as it is.
    case message
    /// A message whose base64 `message` was decoded: this record, to load instead.
    case rewritten([UInt8])
    /// One of the stream's own events: not a message, no plugin is called.
    case skipped(NtfyEvent)

    /// What `root` is, an ntfy record whose telling members are `members`.
    ///
    /// - Throws: for an unknown `event` or `encoding`, and for a base64
    ///   `message` that is not base64, or whose bytes are not UTF-8.
    package init(_ root: JSONValue, members: RootMembers) throws(RecordError) {
        let event = root.at(members.event)
        guard event.isString("message") else {
            guard let skipped = NtfyEvent(event) else {
                throw RecordError(reason: "unknown ntfy event \"\(event.text)\" (known: message, open, keepalive, poll_request)")
            }
            self = .skipped(skipped)
            return
        }
        guard let encoding = root.member(named: "encoding"), !encoding.isString("") else {
            self = .message
            return
        }
        guard encoding.isString("base64") else {
            var shown: [UInt8] = []
            encoding.appendCompact(to: &shown)
            throw RecordError(reason: "unknown ntfy encoding \(String(decoding: shown, as: UTF8.self)) (known: base64)")
        }
        self = .rewritten(try Self.decoded(root, message: members.message))
    }

    /// `root` with its base64 `message` (at tape index `message`) decoded
    /// and without `encoding`, as compact JSON.
    private static func decoded(_ root: JSONValue, message: Int32) throws(RecordError) -> [UInt8] {
        guard message >= 0, case let value = root.at(message), value.kind == .string else {
            throw RecordError(reason: "\"message\" must be a string (encoding is base64)")
        }
        let place = Int(value.token.start) - 1
        guard let bytes = Base64.decode(value.textBytes) else {
            throw RecordError(offset: place, reason: "\"message\" is not valid base64 (encoding is base64)")
        }
        guard let text = String(validating: bytes, as: UTF8.self) else {
            throw RecordError(offset: place, reason: "\"message\" decoded from base64 is not UTF-8 text")
        }
        var record: [UInt8] = [UInt8(ascii: "{")]
        for (key, member) in root.members where !key.isString("encoding") {
            if record.count > 1 { record.append(UInt8(ascii: ",")) }
            key.appendCompact(to: &record)
            record.append(UInt8(ascii: ":"))
            if member.index == value.index {
                JSONWriter.appendString(text, to: &record)
            } else {
                member.appendCompact(to: &record)
            }
        }
        record.append(UInt8(ascii: "}"))
        return record
    }
}

/// An event of an ntfy stream that is not a message, by the word ntfy gives it.
package enum NtfyEvent: String {
    /// The first line of a stream: the subscription is open.
    case open
    /// A line that keeps the connection alive.
    case keepalive
    /// A request to poll the server (iOS), with no message in it.
    case pollRequest = "poll_request"

    /// The event `value` names, or nil when it is none of these.
    init?(_ value: JSONValue) {
        guard let event = [NtfyEvent.open, .keepalive, .pollRequest].first(where: { value.isString($0.word) }) else { return nil }
        self = event
    }

    /// `rawValue`, to compare without a `String`.
    var word: StaticString {
        switch self {
        case .open: "open"
        case .keepalive: "keepalive"
        case .pollRequest: "poll_request"
        }
    }
}
