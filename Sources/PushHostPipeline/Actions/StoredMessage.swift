import PushHostJSON
import PushHostRecords
import PushHostMessage

/// A delivered message as the store keeps it (one line of
/// ``DeliveredStore``): its id, its source, and its record as it came, with
/// the flags it was read under, or as the host rewrote it (normalized).
struct StoredMessage {
    /// The target key a line without `target_key` was read with (`--target-key`'s default).
    static let defaultTargetKey = "rx_gcm_key_target"

    /// The store's line, compact JSON without its newline.
    let line: [UInt8]
    let id: String
    let source: RecordSource
    private let platform: Platform?
    private let targetKey: String
    private let normalized: Bool
    /// Where the record's bytes sit in `line`.
    private let record: Range<Int>

    /// The entry on `line`, or nil when it is not one the store writes.
    init?(line: [UInt8]) {
        // The line nests the record one level deeper.
        var reader = JSONReader(maxDepth: Message.normalizedMaxDepth + 1)
        let fields: (String, RecordSource, Platform?, String, Bool, Range<Int>)? = line.withUnsafeBytes { bytes in
            guard let root = try? reader.parse(bytes).root, root.kind == .object,
                let id = root.member(named: "id"), id.kind == .string,
                let source = root.member(named: "source").flatMap(RecordSource.init(json:))
            else { return nil }
            let normalized = root.member(named: "normalized")
            guard let record = normalized ?? root.member(named: "record"), record.kind == .object else { return nil }
            let platform = root.member(named: "platform").flatMap { Platform(rawValue: $0.text) }
            let targetKey = root.member(named: "target_key")?.text ?? Self.defaultTargetKey
            let start = record.rawBytes.baseAddress! - bytes.baseAddress!
            return (id.text, source, platform, targetKey, normalized != nil, start..<start + record.rawBytes.count)
        }
        guard let fields else { return nil }
        self.line = line
        (id, source, platform, targetKey, normalized, record) = fields
    }

    /// Loads the message into `message` for the length of `body`, read as
    /// it was when it was delivered; nil when its record no longer reads
    /// (a store file edited by hand).
    func withMessage<R>(_ message: Message, _ body: (Message) -> R) -> R? {
        var reader = JSONReader(maxDepth: Message.normalizedMaxDepth)
        let bytes = Array(line[record])
        return bytes.withUnsafeBytes { bytes -> R? in
            guard let document = try? reader.parse(bytes), document.root.kind == .object else { return nil }
            if normalized {
                message.load(normalized: document, source: source)
            } else {
                targetKey.utf8CString.withUnsafeBytes { key in
                    message.load(
                        document, members: RootMembers(document.root), source: source, platform: platform,
                        targetKey: UnsafeRawBufferPointer(rebasing: key.dropLast()))
                }
            }
            defer { message.reset() }
            return body(message)
        }
    }
}

extension RecordSource {
    /// The source that `appendJSON` wrote as `json`, or nil.
    init?(json: JSONValue) {
        guard json.kind == .object, let kind = json.member(named: "kind"), kind.kind == .string else { return nil }
        func number(_ name: StaticString) -> Int? {
            guard let value = json.member(named: name), value.kind == .number else { return nil }
            return Int(value.text)
        }
        switch kind.text {
        case "stdin":
            guard let line = number("line") else { return nil }
            self = .stdin(line: line)
        case "spool":
            guard let file = json.member(named: "file"), file.kind == .string else { return nil }
            self = .spool(file: file.text, line: number("line"))
        case "plugin":
            guard let name = json.member(named: "plugin"), name.kind == .string, let record = number("record") else { return nil }
            self = .plugin(name: name.text, record: record)
        default:
            return nil
        }
    }
}
