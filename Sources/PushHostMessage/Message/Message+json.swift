#if canImport(Glibc)
import Glibc
#endif
import PushHostSystem
import PushHostJSON
import PushHostRecords

/// The normalized fields written as JSON: the message `message_json` hands
/// out, and the id and target the report writes (`Message+access` reads
/// single fields for plugins).
extension Message {
    // MARK: For the host (dispatch thread)

    /// The id, for log lines.
    package var idString: String {
        String(decoding: idBytes(), as: UTF8.self)
    }

    /// Calls `body` with the target's UTF-8 bytes, or nil when there is none.
    @inlinable package func withTarget<R>(_ body: (UnsafeRawBufferPointer?) -> R) -> R {
        guard targetIndex >= 0 else { return body(nil) }
        let value = value(targetIndex)
        guard value.isEscaped else { return body(value.rawBytes) }
        return value.textBytes.withUnsafeBytes { body($0) }
    }

    /// Appends the id as a JSON string.
    @inlinable package func appendIDJSON<Sink: ByteSink & ~Copyable>(to bytes: inout Sink) {
        guard idIndex >= 0 else { return source.appendDefaultIDJSON(to: &bytes) }
        Self.appendAsString(value(idIndex), to: &bytes)
    }

    /// Appends the target as a JSON string, or null.
    @inlinable package func appendTargetJSON<Sink: ByteSink & ~Copyable>(to bytes: inout Sink) {
        guard targetIndex >= 0 else { return bytes.append(ascii: "null") }
        Self.appendAsString(value(targetIndex), to: &bytes)
    }

    /// The tape index of the payload's own id, and of the target, or -1:
    /// what the two above read, inlined in other targets for their sink.
    @usableFromInline var idIndex: Int32 { layout.id }
    @usableFromInline var targetIndex: Int32 { target }

    /// The whole normalized message:
    /// `{"id","target","format","priority","content_available","notification","data","topic","collapse_key","source"}`.
    func normalizedJSON() -> [UInt8] {
        var bytes: [UInt8] = []
        appendNormalizedJSON(to: &bytes)
        return bytes
    }

    /// Appends `normalizedJSON()`.
    func appendNormalizedJSON(to bytes: inout [UInt8]) {
        appendNormalizedJSON(to: &bytes, actions: nil)
    }

    /// Appends `normalizedJSON()`, with `actions` in place of the
    /// notification's when given.
    func appendNormalizedJSON(to bytes: inout [UInt8], actions: ActionsOverride?) {
        appendFields(to: &bytes, actions: actions, compact: false)
    }

    /// Appends the message a process plugin's call carries: the normalized
    /// message without its null members and without its source.
    package func appendCompactJSON(to bytes: inout ByteBuffer) {
        if appendCompactPlainJSON(to: &bytes) { return }
        appendFields(to: &bytes, actions: nil, compact: true)
    }

    /// ``appendCompactJSON(to:)`` for the common message, with one
    /// reservation and no check between writes: no notification, topic or
    /// collapse key, a flat compact data object, an id and a target (when
    /// it has one) that are strings or numbers, or the id of a line of
    /// standard input. False, with nothing written, for any other message.
    private func appendCompactPlainJSON(to bytes: inout ByteBuffer) -> Bool {
        let object = layout.data.singleObject
        guard object >= 0, layout.notification.isEmpty, layout.topic < 0, layout.collapseKey < 0 else { return false }
        let data = value(object)
        guard data.isFlatCompactObject else { return false }
        // A string's text as written, a number's digits: both go between quotes as they are.
        var id: UnsafeRawBufferPointer?
        var line = 0
        if idIndex >= 0 {
            guard case let value = value(idIndex), value.kind == .string || value.kind == .number else { return false }
            id = value.rawBytes
        } else {
            guard case .stdin(let number) = source else { return false }
            line = number
        }
        var target: UnsafeRawBufferPointer?
        if targetIndex >= 0 {
            // The target is a string or a number (see `load`).
            target = value(targetIndex).rawBytes
        }
        let text = data.rawBytes
        // The words between the values, the format's and priority's, "stdin-" and its decimal: under 160 bytes.
        bytes.reserve(160 + (id?.count ?? 0) + (target?.count ?? 0) + text.count)
        bytes.write(#"{"id":""#)
        if let id {
            bytes.write(id)
        } else {
            bytes.write("stdin-")
            bytes.write(decimal: line)
        }
        if let target {
            bytes.write(#"","target":""#)
            bytes.write(target)
        }
        bytes.write(#"","format":""#)
        bytes.write(layout.format.word)
        bytes.write(#"","priority":""#)
        bytes.write(layout.priority.word)
        bytes.write(layout.contentAvailable ? #"","content_available":true,"data":"# : #"","content_available":false,"data":"#)
        bytes.write(text)
        bytes.write(UInt8(ascii: "}"))
        return true
    }

    /// ``appendCompactJSON(to:)``, into an array.
    package func appendCompactJSON(to bytes: inout [UInt8]) {
        appendFields(to: &bytes, actions: nil, compact: true)
    }

    /// The normalized fields as one object; `compact`: a null member and
    /// the source left out.
    private func appendFields<Sink: ByteSink & ~Copyable>(to bytes: inout Sink, actions: ActionsOverride?, compact: Bool) {
        var line = JSONLine(appendingTo: &bytes)
        line.key("id")
        appendIDJSON(to: &line.bytes)
        if !compact || targetIndex >= 0 {
            line.key("target")
            appendTargetJSON(to: &line.bytes)
        }
        // Words of no escape: written as they are.
        line.key("format")
        line.bytes.append(UInt8(ascii: "\""))
        line.bytes.append(ascii: layout.format.word)
        line.bytes.append(UInt8(ascii: "\""))
        line.key("priority")
        line.bytes.append(UInt8(ascii: "\""))
        line.bytes.append(ascii: layout.priority.word)
        line.bytes.append(UInt8(ascii: "\""))
        line.key("content_available")
        line.bytes.append(ascii: layout.contentAvailable ? "true" : "false")
        if !compact || !layout.notification.isEmpty {
            line.key("notification")
            if layout.notification.isEmpty {
                line.bytes.append(ascii: "null")
            } else {
                var merged: [UInt8] = []
                appendMerged(layout.notification, to: &merged, actions: actions)
                merged.withUnsafeBytes { line.bytes.append(bytes: $0) }
            }
        }
        line.key("data")
        let data = layout.data.singleObject
        if compact, data >= 0, value(data).isFlatCompactObject {
            // Its bytes as written are its compact text and its merge.
            line.bytes.append(bytes: value(data).rawBytes)
        } else if compact, data >= 0, Self.hasDistinctPlainKeys(value(data)) {
            // As written: the merge would give the same members, in the same order.
            value(data).appendCompact(to: &line.bytes)
        } else {
            var merged: [UInt8] = []
            appendMerged(layout.data, to: &merged)
            merged.withUnsafeBytes { line.bytes.append(bytes: $0) }
        }
        if !compact || layout.topic >= 0 {
            line.key("topic")
            if layout.topic >= 0 {
                var topic: [UInt8] = []
                appendTopic(to: &topic)
                topic.withUnsafeBytes { JSONWriter.appendString($0, to: &line.bytes) }
            } else {
                line.bytes.append(ascii: "null")
            }
        }
        if !compact || layout.collapseKey >= 0 {
            line.key("collapse_key")
            if layout.collapseKey >= 0 {
                Self.appendAsString(value(layout.collapseKey), to: &line.bytes)
            } else {
                line.bytes.append(ascii: "null")
            }
        }
        if !compact {
            line.key("source")
            source.appendJSON(to: &line.bytes)
        }
        bytes = line.closed()
    }

    /// Whether the keys of `object` are few (at most 16), none escaped and
    /// none twice: its compact text is then what a merge of it writes.
    static func hasDistinctPlainKeys(_ object: JSONValue) -> Bool {
        guard object.count <= 16 else { return false }
        return withUnsafeTemporaryAllocation(of: UnsafeRawBufferPointer.self, capacity: 16) { seen in
            var count = 0
            return object.allPlainKeys { bytes in
                for earlier in seen[..<count]
                where earlier.count == bytes.count && (bytes.isEmpty || memcmp(earlier.baseAddress!, bytes.baseAddress!, bytes.count) == 0) {
                    return false
                }
                seen[count] = bytes
                count += 1
                return true
            }
        }
    }

    // MARK: Field values

    func idBytes() -> [UInt8] {
        layout.id >= 0 ? value(layout.id).textBytes : Array(source.defaultID.utf8)
    }

    /// Appends the topic's text (the message has one), less the `/topics/`
    /// a GCM `to` starts with.
    func appendTopic(to bytes: inout [UInt8]) {
        let start = bytes.count
        value(layout.topic).appendUnescaped(to: &bytes)
        if layout.topicHasPrefix { bytes.removeSubrange(start..<min(bytes.count, start + "/topics/".utf8.count)) }
    }

    /// What the normalized JSON shows for the notification's actions, in
    /// place of the members named `actions` its parts give.
    enum ActionsOverride {
        /// This value (of another document).
        case replace(JSONValue)
        /// None: the member is left out.
        case remove
    }

    /// Appends the object merged from `parts` (a later part's member
    /// replacing an earlier one of the same key, in first-seen order), with
    /// `actions` in place of any member named `actions` when given.
    func appendMerged<let capacity: Int>(
        _ parts: MessageLayout.Parts<capacity>, to bytes: inout [UInt8], actions: ActionsOverride? = nil
    ) {
        var members = MergedMembers(expected: parts.reduce(0) { total, part in
            if case .object(let index, _) = part { total + value(index).count } else { total + 1 }
        })
        for part in parts {
            switch part {
            case .object(let index, let withoutAPS):
                for (key, value) in self.value(index).members {
                    if withoutAPS && key.isString("aps") { continue }
                    if let actions, key.isString("actions") {
                        if case .replace(let replacement) = actions { members.add(key: key, value: replacement) }
                        continue
                    }
                    members.add(key: key, value: value)
                }
            case .member(let field, let index):
                var value = value(index)
                if let actions, field == .actions {
                    guard case .replace(let replacement) = actions else { continue }
                    value = replacement
                }
                members.add(UnsafeRawBufferPointer(start: field.name.utf8Start, count: field.name.utf8CodeUnitCount), value)
            case .constant(let field, let index):
                members.add(UnsafeRawBufferPointer(start: field.name.utf8Start, count: field.name.utf8CodeUnitCount), LayoutConstants.value(index))
            }
        }
        members.append(to: &bytes)
    }

    /// Appends a string value as it is, and any other scalar's text as a JSON string.
    @inlinable static func appendAsString<Sink: ByteSink & ~Copyable>(_ value: JSONValue, to bytes: inout Sink) {
        if value.kind == .string {
            bytes.append(UInt8(ascii: "\""))
            bytes.append(bytes: value.rawBytes)
            bytes.append(UInt8(ascii: "\""))
        } else {
            JSONWriter.appendString(value.rawBytes, to: &bytes)
        }
    }
}

extension Message {
    /// Appends the compact JSON (``appendCompactJSON(to:)``) of the message
    /// `opaque` names; false when it names none. [dispatch thread] Without
    /// the accessors' lock, as ``image(of:)`` reads it.
    package static func appendCompactJSON(of opaque: OpaquePointer, to bytes: inout ByteBuffer) -> Bool {
        guard let slot = handles.slot(at: UInt(bitPattern: UnsafeRawPointer(opaque))) else { return false }
        let bits = slot.pointee.load(ordering: .acquiring)
        guard bits >= Handles.firstObject, let object = UnsafeRawPointer(bitPattern: bits) else { return false }
        // Never freed (see the type): no reference count is taken.
        return Unmanaged<Message>.fromOpaque(object)._withUnsafeGuaranteedRef { message in
            guard message.handle == slot else { return false }
            message.appendCompactJSON(to: &bytes)
            return true
        }
    }
}
