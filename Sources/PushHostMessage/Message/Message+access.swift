#if canImport(Glibc)
import Glibc
#endif
import PushHostJSON
import PushHostRecords

/// The normalized fields as plugins read them, from any thread, through a
/// handle (`message_id`, `message_target`, `message_get`, `message_json`).
///
/// A path is walked by its bytes, and a value is handed out as a copy in
/// the message's arena: its input bytes as they are, or, for a string with
/// escapes, an object or an array, built in the arena's scratch buffer
/// first. No Swift `String` is made and, once the arena has a chunk, nothing
/// is allocated.
extension Message {
    /// `message_id`; "" when the handle names no message.
    @inlinable package static func idText(_ handle: OpaquePointer) -> UnsafePointer<CChar> {
        messageIDText(handle)
    }

    /// `message_target`: NULL when the message has none, or the handle names no message.
    @inlinable package static func targetText(_ handle: OpaquePointer) -> UnsafePointer<CChar>? {
        messageTargetText(handle)
    }

    /// `message_get`: the value at a dotted path, as text; NULL when absent
    /// or null, or when the handle names no message.
    @inlinable package static func value(_ handle: OpaquePointer, atPath path: UnsafePointer<CChar>) -> UnsafePointer<CChar>? {
        messageValueText(handle, atPath: path)
    }

    /// `message_get_many`: the value at each of the `count` paths into
    /// `values` (nil when absent), under one lock; how many were found.
    @inlinable package static func values(
        _ handle: OpaquePointer, atPaths paths: UnsafePointer<UnsafePointer<CChar>>, count: Int,
        into values: UnsafeMutablePointer<UnsafePointer<CChar>?>
    ) -> Int {
        messageValueTexts(handle, atPaths: paths, count: count, into: values)
    }

    /// `value(_:atPath:)` with the value's length in bytes (a string's
    /// unescaped text may hold a NUL) and whether it is a JSON string, not
    /// a number, a literal or compact JSON: for an ffi parameter.
    @inlinable package static func value(
        _ handle: OpaquePointer, atPath path: UnsafePointer<CChar>, count: inout Int, isString: inout Bool
    ) -> UnsafePointer<CChar>? {
        messageValueText(handle, atPath: path, count: &count, isString: &isString)
    }

    /// `message_json`: the normalized message as compact JSON, built once
    /// per message; "" when the handle names no message.
    @inlinable package static func jsonText(_ handle: OpaquePointer) -> (text: UnsafePointer<CChar>, count: Int) {
        messageJSONText(handle)
    }

    /// The empty C string, for a handle that names no message.
    nonisolated(unsafe) static let noText: UnsafePointer<CChar> = {
        let text = UnsafeMutablePointer<CChar>.allocate(capacity: 1)
        text.initialize(to: 0)
        return UnsafePointer(text)
    }()

    // MARK: Values, into the arena

    /// The text at `path` (dotted: `data.title`, `notification.body`,
    /// `source.file`, `data.list.0`), or nil when there is none or it is null.
    ///
    /// The top-level word is matched where it lies, by its first byte, and
    /// only the segments below it are measured.
    func value(atPath path: UnsafePointer<CChar>, into arena: inout MessageArena) -> UnsafePointer<CChar>? {
        let bytes = UnsafeRawPointer(path).assumingMemoryBound(to: UInt8.self)
        switch bytes[0] {
        case UInt8(ascii: "t"):
            if Self.path(bytes, is: "target") { return target >= 0 ? hand(value(target), &arena) : nil }
            if Self.path(bytes, is: "topic") { return handTopic(&arena) }
        case UInt8(ascii: "p") where Self.path(bytes, is: "priority"):
            return arena.copy(layout.priority.word)
        case UInt8(ascii: "i") where Self.path(bytes, is: "id"):
            return handID(&arena)
        case UInt8(ascii: "d"):
            guard var segments = Self.segments(bytes, below: "data") else { break }
            // One data object (the common case): the key read in it directly.
            if dataObject >= 0, let key = segments.next() {
                return hand(value(dataObject).member(named: key), following: &segments, &arena)
            }
            return value(of: layout.data, none: "{}", &segments, &arena)
        case UInt8(ascii: "n"):
            guard var segments = Self.segments(bytes, below: "notification") else { break }
            return value(of: layout.notification, none: nil, &segments, &arena)
        case UInt8(ascii: "s"):
            guard var segments = Self.segments(bytes, below: "source") else { break }
            return sourceValue(&segments, &arena)
        case UInt8(ascii: "f") where Self.path(bytes, is: "format"):
            return arena.copy(layout.format.word)
        case UInt8(ascii: "c"):
            if Self.path(bytes, is: "content_available") { return arena.copy(layout.contentAvailable ? "true" : "false") }
            if Self.path(bytes, is: "collapse_key") { return layout.collapseKey >= 0 ? hand(value(layout.collapseKey), &arena) : nil }
        default:
            break
        }
        return nil
    }

    /// Whether the C string at `path` is `word`, compared byte by byte: a
    /// shorter path differs at its NUL, so nothing past it is read.
    @inline(__always)
    private static func path(_ path: UnsafePointer<UInt8>, is word: StaticString) -> Bool {
        Self.path(path, startsWith: word) && path[word.utf8CodeUnitCount] == 0
    }

    /// The segments after `word` when the path is `word` (none) or goes on
    /// below it (`word.`…); nil when it is another path.
    @inline(__always)
    private static func segments(_ path: UnsafePointer<UInt8>, below word: StaticString) -> PathSegments? {
        guard Self.path(path, startsWith: word) else { return nil }
        switch path[word.utf8CodeUnitCount] {
        case 0: return PathSegments(startingAt: nil)
        case UInt8(ascii: "."): return PathSegments(startingAt: path + word.utf8CodeUnitCount + 1)
        default: return nil
        }
    }

    /// Whether the C string at `path` starts with `prefix` (which holds no NUL).
    @inline(__always)
    private static func path(_ path: UnsafePointer<UInt8>, startsWith prefix: StaticString) -> Bool {
        let word = prefix.utf8Start
        for index in 0..<prefix.utf8CodeUnitCount where path[index] != word[index] { return false }
        return true
    }

    /// `data` or `notification` (their parts) whole, or what lies below
    /// them; `none` is the whole of a message without them. A message's data
    /// may be empty (`{}`); a data-only message has no notification (nil).
    private func value<let capacity: Int>(
        of parts: MessageLayout.Parts<capacity>, none: StaticString?, _ segments: inout PathSegments, _ arena: inout MessageArena
    ) -> UnsafePointer<CChar>? {
        guard !parts.isEmpty else { return segments.isAtEnd ? none.map { arena.copy($0) } : nil }
        guard let key = segments.next() else {
            arena.scratch.removeAll(keepingCapacity: true)
            appendMerged(parts, to: &arena.scratch)
            return arena.copyScratch()
        }
        return hand(parts.member(key, in: root), following: &segments, &arena)
    }

    /// `source` as JSON, or one of its fields.
    private func sourceValue(_ segments: inout PathSegments, _ arena: inout MessageArena) -> UnsafePointer<CChar>? {
        arena.scratch.removeAll(keepingCapacity: true)
        guard let key = segments.next() else {
            source.appendJSON(to: &arena.scratch)
            return arena.copyScratch()
        }
        guard segments.isAtEnd, source.append(key, to: &arena.scratch) else { return nil }
        return arena.copyScratch()
    }

    /// What `found` leads to along the rest of `segments`, handed out; nil
    /// when that is nothing, or null.
    @inline(__always)
    private func hand(_ found: JSONValue?, following segments: inout PathSegments, _ arena: inout MessageArena) -> UnsafePointer<CChar>? {
        var found = found
        while let segment = segments.next() { found = found?.child(segment) }
        guard let found, found.kind != .null else { return nil }
        return hand(found, &arena)
    }

    /// The topic, less the `/topics/` a GCM `to` starts with.
    private func handTopic(_ arena: inout MessageArena) -> UnsafePointer<CChar>? {
        guard layout.topic >= 0 else { return nil }
        guard layout.topicHasPrefix else { return hand(value(layout.topic), &arena) }
        arena.scratch.removeAll(keepingCapacity: true)
        appendTopic(to: &arena.scratch)
        return arena.copyScratch()
    }

    /// The id: the payload's own, or the one the host made.
    func handID(_ arena: inout MessageArena) -> UnsafePointer<CChar> {
        if layout.id >= 0 { return hand(value(layout.id), &arena) }
        arena.scratch.removeAll(keepingCapacity: true)
        source.appendDefaultID(to: &arena.scratch)
        return arena.copyScratch()
    }

    /// A value's text: a string unescaped, a number or literal as it is, an
    /// object or array as compact JSON.
    @inline(__always)
    func hand(_ value: JSONValue, _ arena: inout MessageArena) -> UnsafePointer<CChar> {
        defer { arena.handedString = value.kind == .string }
        if !value.kind.isContainer && !value.isEscaped { return arena.copy(value.rawBytes) }
        arena.scratch.removeAll(keepingCapacity: true)
        value.appendText(to: &arena.scratch)
        return arena.copyScratch()
    }
}

/// The segments of a dotted C string path, as views into its bytes: `a.b`
/// gives `a` and `b`, `a.` gives `a` and an empty one.
struct PathSegments {
    /// Where the next segment starts; nil once every segment was taken.
    private var rest: UnsafePointer<UInt8>?

    /// The segments of the path at `start`; none when it is nil.
    init(startingAt start: UnsafePointer<UInt8>?) {
        rest = start
    }

    /// Whether every segment was taken.
    var isAtEnd: Bool { rest == nil }

    @inline(__always)
    mutating func next() -> UnsafeRawBufferPointer? {
        guard let start = rest else { return nil }
        var length = 0
        var byte = start[0]
        while byte != 0 && byte != UInt8(ascii: ".") {
            length &+= 1
            byte = start[length]
        }
        rest = byte == 0 ? nil : start + length + 1
        return UnsafeRawBufferPointer(start: start, count: length)
    }
}


// The bodies of the accessors above, as functions of no type: a static
// method called from another target is passed `Message`'s metadata, which
// costs a call to fetch on every `message_get`; these are called instead.

@usableFromInline func messageIDText(_ handle: OpaquePointer) -> UnsafePointer<CChar> {
    Message.handOut(handle) { message, arena in message.handID(&arena) } ?? Message.noText
}

@usableFromInline func messageTargetText(_ handle: OpaquePointer) -> UnsafePointer<CChar>? {
    Message.handOut(handle) { message, arena in message.target >= 0 ? message.hand(message.value(message.target), &arena) : nil }
}

@usableFromInline func messageValueText(_ handle: OpaquePointer, atPath path: UnsafePointer<CChar>) -> UnsafePointer<CChar>? {
    Message.handOut(handle) { message, arena in message.value(atPath: path, into: &arena) }
}

@usableFromInline func messageValueTexts(
    _ handle: OpaquePointer, atPaths paths: UnsafePointer<UnsafePointer<CChar>>, count: Int,
    into values: UnsafeMutablePointer<UnsafePointer<CChar>?>
) -> Int {
    // A C count past Int.max comes here negative: no array is that long,
    // so it names no path.
    guard count > 0 else { return 0 }
    var found = 0
    let message = Message.handOut(handle) { message, arena in
        for index in 0..<count {
            let value = message.value(atPath: paths[index], into: &arena)
            values[index] = value
            if value != nil { found &+= 1 }
        }
        return Message.noText
    }
    // A handle that names no message (any more): nothing.
    if message == nil { values.update(repeating: nil, count: count) }
    return found
}

@usableFromInline func messageValueText(
    _ handle: OpaquePointer, atPath path: UnsafePointer<CChar>, count: inout Int, isString: inout Bool
) -> UnsafePointer<CChar>? {
    Message.handOut(handle) { message, arena in
        let text = message.value(atPath: path, into: &arena)
        count = arena.handedCount
        isString = arena.handedString
        return text
    }
}

@usableFromInline func messageJSONText(_ handle: OpaquePointer) -> (text: UnsafePointer<CChar>, count: Int) {
    var count = 0
    let text = Message.handOut(handle) { message, arena in
        if let json = arena.json {
            count = json.count
            return json.text
        }
        arena.scratch.removeAll(keepingCapacity: true)
        message.appendNormalizedJSON(to: &arena.scratch)
        count = arena.scratch.count
        let text = arena.copyScratch()
        arena.json = (text, count)
        return text
    }
    return (text ?? Message.noText, count)
}
