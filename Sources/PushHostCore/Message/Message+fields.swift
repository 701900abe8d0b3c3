/// The normalized fields, as plugins read them (`message_id`,
/// `message_target`, `message_get`, `message_json`) and as the report
/// writes them.
extension Message {
    // MARK: For plugins (any thread), through a handle

    /// `message_id`; "" when the handle names no message.
    static func idText(_ handle: OpaquePointer) -> UnsafePointer<CChar> {
        handOut(handle) { $0.idBytes() } ?? noText
    }

    /// `message_target`: NULL when the message has none, or the handle names no message.
    static func targetText(_ handle: OpaquePointer) -> UnsafePointer<CChar>? {
        handOut(handle) { $0.targetBytes() }
    }

    /// `message_get`: the value at a dotted path, as text; NULL when absent
    /// or null, or when the handle names no message.
    static func value(_ handle: OpaquePointer, atPath path: UnsafePointer<CChar>) -> UnsafePointer<CChar>? {
        let segments = String(cString: path).split(separator: ".", omittingEmptySubsequences: false).map(String.init)
        return handOut(handle) { $0.valueBytes(segments) }
    }

    /// `message_json`: the normalized message as compact JSON; "" when the
    /// handle names no message.
    static func jsonText(_ handle: OpaquePointer) -> (text: UnsafePointer<CChar>, count: Int) {
        var count = 0
        let text = handOut(handle) { message in
            let json = message.normalizedJSON()
            count = json.count
            return json
        }
        return (text ?? noText, count)
    }

    /// The empty C string, for a handle that names no message.
    nonisolated(unsafe) private static let noText: UnsafePointer<CChar> = {
        let text = UnsafeMutablePointer<CChar>.allocate(capacity: 1)
        text.initialize(to: 0)
        return UnsafePointer(text)
    }()

    // MARK: For the host (dispatch thread)

    /// The id, for log lines.
    var idString: String {
        String(decoding: idBytes(), as: UTF8.self)
    }

    /// Calls `body` with the target's UTF-8 bytes, or nil when there is none.
    func withTarget<R>(_ body: (UnsafeRawBufferPointer?) -> R) -> R {
        guard target >= 0 else { return body(nil) }
        let value = value(target)
        guard value.isEscaped else { return body(value.rawBytes) }
        return value.textBytes.withUnsafeBytes { body($0) }
    }

    /// Appends the id as a JSON string.
    func appendIDJSON(to bytes: inout [UInt8]) {
        guard layout.id >= 0 else { return JSONWriter.appendString(source.defaultID, to: &bytes) }
        Self.appendAsString(value(layout.id), to: &bytes)
    }

    /// Appends the target as a JSON string, or null.
    func appendTargetJSON(to bytes: inout [UInt8]) {
        guard target >= 0 else { return bytes.append(contentsOf: "null".utf8) }
        Self.appendAsString(value(target), to: &bytes)
    }

    /// The whole normalized message:
    /// `{"id","target","format","priority","content_available","notification","data","topic","collapse_key","source"}`.
    func normalizedJSON() -> [UInt8] {
        var line = JSONLine()
        line.key("id")
        appendIDJSON(to: &line.bytes)
        line.key("target")
        appendTargetJSON(to: &line.bytes)
        line.string("format", layout.format.rawValue)
        line.string("priority", layout.priority.rawValue)
        line.key("content_available")
        line.bytes.append(contentsOf: (layout.contentAvailable ? "true" : "false").utf8)
        line.key("notification")
        if layout.notification.isEmpty {
            line.bytes.append(contentsOf: "null".utf8)
        } else {
            appendMerged(layout.notification, to: &line.bytes)
        }
        line.key("data")
        appendMerged(layout.data, to: &line.bytes)
        line.key("topic")
        if let topic = topicBytes() {
            topic.withUnsafeBytes { JSONWriter.appendString($0, to: &line.bytes) }
        } else {
            line.bytes.append(contentsOf: "null".utf8)
        }
        line.key("collapse_key")
        if layout.collapseKey >= 0 {
            Self.appendAsString(value(layout.collapseKey), to: &line.bytes)
        } else {
            line.bytes.append(contentsOf: "null".utf8)
        }
        line.key("source")
        source.appendJSON(to: &line.bytes)
        return line.closed()
    }

    // MARK: Field values

    func idBytes() -> [UInt8] {
        layout.id >= 0 ? value(layout.id).textBytes : Array(source.defaultID.utf8)
    }

    func targetBytes() -> [UInt8]? {
        target >= 0 ? value(target).textBytes : nil
    }

    func topicBytes() -> [UInt8]? {
        guard layout.topic >= 0 else { return nil }
        let text = value(layout.topic).textBytes
        return layout.topicHasPrefix ? Array(text.dropFirst("/topics/".utf8.count)) : text
    }

    /// The text of the value at `segments` (a dotted path, split), or nil.
    func valueBytes(_ segments: [String]) -> [UInt8]? {
        guard let first = segments.first else { return nil }
        let rest = segments.dropFirst()
        switch (first, rest.isEmpty) {
        case ("id", true): return idBytes()
        case ("target", true): return targetBytes()
        case ("format", true): return Array(layout.format.rawValue.utf8)
        case ("priority", true): return Array(layout.priority.rawValue.utf8)
        case ("content_available", true): return Array((layout.contentAvailable ? "true" : "false").utf8)
        case ("topic", true): return topicBytes()
        case ("collapse_key", true): return layout.collapseKey >= 0 ? value(layout.collapseKey).textBytes : nil
        case ("data", _), ("notification", _):
            let parts = first == "data" ? layout.data : layout.notification
            // A message always has data (maybe empty); a data-only one has no notification.
            guard !parts.isEmpty else { return first == "data" && rest.isEmpty ? Array("{}".utf8) : nil }
            guard let key = rest.first else {
                var bytes: [UInt8] = []
                appendMerged(parts, to: &bytes)
                return bytes
            }
            var found = key.utf8CString.withUnsafeBytes { key in
                Self.lookup(parts, key: UnsafeRawBufferPointer(rebasing: key.dropLast()), in: root)
            }
            for segment in rest.dropFirst() { found = found?.child(segment) }
            guard let found, found.kind != .null else { return nil }
            return found.textBytes
        case ("source", _):
            var bytes: [UInt8] = []
            source.appendJSON(to: &bytes)
            guard let key = rest.first, rest.count == 1 else { return rest.isEmpty ? bytes : nil }
            switch (key, source) {
            case ("kind", _): return Array(source.kind.utf8)
            case ("line", .stdin(let line)), ("line", .spool(_, let line?)): return Array(String(line).utf8)
            case ("file", .spool(let file, _)): return Array(file.utf8)
            case ("record", .plugin(_, let record)): return Array(String(record).utf8)
            case ("plugin", .plugin(let name, _)): return Array(name.utf8)
            default: return nil
            }
        default:
            return nil
        }
    }

    /// Appends the object merged from `parts` (a later part's member
    /// replacing an earlier one of the same key, in first-seen order).
    func appendMerged(_ parts: MessageLayout.Parts, to bytes: inout [UInt8]) {
        var members = MergedMembers(expected: parts.reduce(0) { total, part in
            if case .object(let index, _) = part { total + value(index).count } else { total + 1 }
        })
        for part in parts {
            switch part {
            case .object(let index, let withoutAPS):
                for (key, value) in self.value(index).members {
                    if !(withoutAPS && key.isString("aps")) { members.add(key: key, value: value) }
                }
            case .member(let field, let index):
                members.add(UnsafeRawBufferPointer(start: field.name.utf8Start, count: field.name.utf8CodeUnitCount), value(index))
            }
        }
        members.append(to: &bytes)
    }

    /// Appends a string value as it is, and any other scalar's text as a JSON string.
    static func appendAsString(_ value: JSONValue, to bytes: inout [UInt8]) {
        if value.kind == .string {
            bytes.append(UInt8(ascii: "\""))
            bytes.append(contentsOf: value.rawBytes)
            bytes.append(UInt8(ascii: "\""))
        } else {
            JSONWriter.appendString(value.rawBytes, to: &bytes)
        }
    }
}
