import PushHostJSON

/// One `set` of an interceptor on a normalized message: a dotted path and
/// a JSON value (or none, to remove the field), checked so that the edited
/// message is still a normalized message, and written into a copy of it.
///
/// What may change: `target`, `priority`, `content_available`, `topic`,
/// `collapse_key`, `notification` and `data`, whole or below; `id`,
/// `format` and `source` say where the message came from and are read-only.
/// A value keeps its field's type: `target`, `topic` and `collapse_key` a
/// string or null, `priority` `"high"` or `"normal"`, `content_available` a
/// boolean, `notification` an object or null, `data` an object; the
/// notification's `title`, `body`, `image`, `icon` and `click` strings,
/// `style` one of `default`, `image`, `bigtext`, and `actions` an array of
/// `{"id","title"}` (with `"input": true` for a reply). Nothing else is
/// derived again: setting an image leaves `style` as it was.
package struct MessageEdit {
    /// The path's segments, as UTF-8.
    let path: [[UInt8]]
    /// The new value, as compact JSON text; nil removes the field.
    let value: [UInt8]?

    /// A refused edit, with why.
    package struct Refusal: Error {
        package let reason: String
    }

    /// The top-level fields `set` may change, and how their removal reads.
    private static let editable: [String: Removal] = [
        "target": .null, "topic": .null, "collapse_key": .null, "notification": .null,
        "priority": .refused, "content_available": .refused, "data": .refused,
    ]

    private enum Removal {
        /// Removing the field sets it to null.
        case null
        /// The field cannot be removed.
        case refused
    }

    /// Checks `path` and `json` (the text of one JSON value, or nil).
    package init(path: String, json: UnsafeRawBufferPointer?) throws(Refusal) {
        let segments = path.utf8.split(separator: UInt8(ascii: "."), omittingEmptySubsequences: false).map(Array.init)
        guard !path.isEmpty, segments.allSatisfy({ !$0.isEmpty }), segments.count <= 64 else {
            throw Refusal(reason: "bad path \"\(path)\" (dotted names such as notification.image; none empty)")
        }
        let top = String(decoding: segments[0], as: UTF8.self)
        guard let removal = Self.editable[top] else {
            let readOnly = ["id", "format", "source"].contains(top)
            throw Refusal(reason: readOnly
                ? "\(top) is read-only"
                : "no field \(top) in a normalized message (fields: \(Self.editable.keys.sorted().joined(separator: ", ")))")
        }
        self.path = segments
        guard let json else {
            guard segments.count > 1 || removal == .null else { throw Refusal(reason: "\(path) cannot be removed") }
            value = segments.count == 1 ? Array("null".utf8) : nil
            return
        }
        var reader = JSONReader(maxDepth: 64)
        let document: JSONDocument
        do {
            document = try reader.parse(json)
        } catch {
            throw Refusal(reason: "the value for \(path) is not JSON: \(error.reason) at byte \(error.offset)")
        }
        if let problem = Self.problem(with: document.root, at: segments) {
            throw Refusal(reason: "the value for \(path) \(problem)")
        }
        var compact: [UInt8] = []
        document.root.appendCompact(to: &compact)
        value = compact
    }

    // MARK: Keeping the message normalized

    /// What is wrong with `value` at `path`, or nil when it fits.
    private static func problem(with value: JSONValue, at path: [[UInt8]]) -> String? {
        let names = path.map { String(decoding: $0, as: UTF8.self) }
        switch (names[0], names.count) {
        case ("target", 1), ("topic", 1), ("collapse_key", 1):
            return value.kind == .string || value.kind == .null ? nil : "must be a string or null, not \(value.kind.withArticle)"
        case ("priority", 1):
            return value.isString("high") || value.isString("normal") ? nil : "must be \"high\" or \"normal\""
        case ("content_available", 1):
            return value.kind == .true || value.kind == .false ? nil : "must be a boolean, not \(value.kind.withArticle)"
        case ("data", 1):
            return value.kind == .object ? nil : "must be an object, not \(value.kind.withArticle)"
        case ("notification", 1):
            guard value.kind != .null else { return nil }
            guard value.kind == .object else { return "must be an object or null, not \(value.kind.withArticle)" }
            for (key, member) in value.members {
                if let problem = notificationProblem(member, field: String(decoding: key.textBytes, as: UTF8.self)) {
                    return "has \(String(decoding: key.textBytes, as: UTF8.self)) that \(problem)"
                }
            }
            return nil
        case ("notification", 2):
            return notificationProblem(value, field: names[1])
        case ("notification", _) where names[1] == "actions" || textFields.contains(names[1]):
            return "cannot be set below \(names[0]).\(names[1]): set \(names[0]).\(names[1]) whole"
        case ("target", _), ("topic", _), ("collapse_key", _), ("priority", _), ("content_available", _):
            return "cannot be set: \(names[0]) holds no fields"
        default:
            return nil
        }
    }

    /// The notification's fields that hold text.
    private static let textFields: Set<String> = ["title", "body", "image", "icon", "click", "style"]

    /// What is wrong with `value` as the notification's `field`, or nil.
    private static func notificationProblem(_ value: JSONValue, field: String) -> String? {
        if field == "actions" { return actionsProblem(value) }
        guard textFields.contains(field) else { return nil }
        guard value.kind == .string else { return "must be a string, not \(value.kind.withArticle)" }
        guard field != "style" || value.isString("default") || value.isString("image") || value.isString("bigtext") else {
            return "must be \"default\", \"image\" or \"bigtext\""
        }
        return nil
    }

    /// What is wrong with `value` as the notification's actions, or nil.
    private static func actionsProblem(_ value: JSONValue) -> String? {
        guard value.kind == .array else { return "must be an array of {\"id\",\"title\"}, not \(value.kind.withArticle)" }
        for (position, action) in value.elements.enumerated() {
            guard action.kind == .object,
                  action.member(named: "id")?.kind == .string,
                  action.member(named: "title")?.kind == .string
            else { return "must be an array of {\"id\",\"title\"}: element \(position) is not" }
            if let input = action.member(named: "input"), input.kind != .true && input.kind != .false {
                return "must be an array of {\"id\",\"title\"}: element \(position) has an input that is not a boolean"
            }
        }
        return nil
    }

    // MARK: Writing

    /// Appends `root` (a normalized message) with the edit applied.
    ///
    /// - Throws: when a segment of the path before the last names a member
    ///   that is not an object (an absent or null one becomes one).
    func apply(to root: JSONValue, into out: inout [UInt8]) throws(Refusal) {
        try write(root, depth: 0, into: &out)
    }

    private func write(_ object: JSONValue?, depth: Int, into out: inout [UInt8]) throws(Refusal) {
        let name = path[depth]
        out.append(UInt8(ascii: "{"))
        var first = true
        var found = false
        if let object {
            for (key, member) in object.members {
                guard key.textBytes == name else {
                    Self.appendMember(key: { key.appendCompact(to: &$0) }, first: &first, into: &out) { member.appendCompact(to: &$0) }
                    continue
                }
                found = true
                try writeMember(existing: member, depth: depth, first: &first, into: &out)
            }
        }
        if !found { try writeMember(existing: nil, depth: depth, first: &first, into: &out) }
        out.append(UInt8(ascii: "}"))
    }

    /// Writes the member the path names at `depth`, which was `existing`:
    /// the new value, or the object below with the edit applied (an absent
    /// or null one made an object); nothing when it is removed.
    private func writeMember(existing: JSONValue?, depth: Int, first: inout Bool, into out: inout [UInt8]) throws(Refusal) {
        let key = { (out: inout [UInt8]) in path[depth].withUnsafeBytes { JSONWriter.appendString($0, to: &out) } }
        if depth == path.count - 1 {
            guard let value else { return }
            return Self.appendMember(key: key, first: &first, into: &out) { $0.append(contentsOf: value) }
        }
        if let existing, existing.kind == .object {
            return try Self.appendMember(key: key, first: &first, into: &out) { out throws(Refusal) in
                try write(existing, depth: depth + 1, into: &out)
            }
        }
        if let existing, existing.kind != .null {
            let place = path[...depth].map { String(decoding: $0, as: UTF8.self) }.joined(separator: ".")
            throw Refusal(reason: "\(place) is \(existing.kind.withArticle), not an object")
        }
        guard value != nil else {
            // Nothing below to remove: a null member stays as it was.
            if existing != nil { Self.appendMember(key: key, first: &first, into: &out) { $0.append(contentsOf: "null".utf8) } }
            return
        }
        try Self.appendMember(key: key, first: &first, into: &out) { out throws(Refusal) in
            try write(nil, depth: depth + 1, into: &out)
        }
    }

    /// Appends `"key":value` to an object being written, after a comma
    /// unless it is the first member.
    private static func appendMember<E: Error>(
        key: (inout [UInt8]) -> Void, first: inout Bool, into out: inout [UInt8], value: (inout [UInt8]) throws(E) -> Void
    ) throws(E) {
        if !first { out.append(UInt8(ascii: ",")) }
        first = false
        key(&out)
        out.append(UInt8(ascii: ":"))
        try value(&out)
    }
}
