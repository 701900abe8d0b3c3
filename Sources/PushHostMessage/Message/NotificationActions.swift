import PushHostJSON

/// `notification.actions` in normalized form: an array of
/// `{"id":string,"title":string}`, with `"input":true` for an action that
/// takes text (a reply).
///
/// ```
/// [{"action":"open","title":"Open"}]             (Web Push)
/// [{"action":"view","label":"View"}]             (ntfy)
/// "[{\"action\":\"open\",\"title\":\"Open\"}]"   (JSON in a string, FCM v1 android data)
/// ["later", {"id":"r","title":"Reply","type":"text"}, 5]
///   ->  [{"id":"later","title":"later"},{"id":"r","title":"Reply","input":true}]
/// ```
///
/// An element's id is its `id`, else its `action`; its title its `title`,
/// else its `label` (string values only); one of them missing, the other
/// serves as both; a bare string is both. An element with neither, or that
/// is not an object or a string, is left out. `"input":true` or
/// `"type":"text"` marks a text input.
enum NotificationActions {
    /// Whether `value` is an array of actions already in normalized form,
    /// member for member (`id`, `title`, then maybe `"input":true`, keys
    /// spelt without escapes), so the message can show it as it is.
    static func isNormalized(_ value: JSONValue) -> Bool {
        guard value.kind == .array else { return false }
        for element in value.elements {
            guard element.kind == .object, element.count == 2 || element.count == 3 else { return false }
            var position = 0
            for (key, member) in element.members {
                guard !key.isEscaped else { return false }
                let expected: Bool = switch position {
                case 0: key.rawBytes.equals("id") && member.kind == .string
                case 1: key.rawBytes.equals("title") && member.kind == .string
                default: key.rawBytes.equals("input") && member.kind == .true
                }
                guard expected else { return false }
                position += 1
            }
        }
        return true
    }

    /// The normalized array of the actions `value` states (an array, or a
    /// string holding a JSON array), as compact JSON; nil when it is neither.
    static func normalized(_ value: JSONValue) -> [UInt8]? {
        switch value.kind {
        case .array:
            var bytes: [UInt8] = []
            append(value, to: &bytes)
            return bytes
        case .string:
            var text: [UInt8] = []
            value.appendUnescaped(to: &text)
            var reader = JSONReader()
            return text.withUnsafeBytes { text -> [UInt8]? in
                guard let document = try? reader.parse(text), document.root.kind == .array else { return nil }
                var bytes: [UInt8] = []
                append(document.root, to: &bytes)
                return bytes
            }
        default:
            return nil
        }
    }

    /// Appends the normalized array of the elements of `array`.
    private static func append(_ array: JSONValue, to bytes: inout [UInt8]) {
        bytes.append(UInt8(ascii: "["))
        var first = true
        for element in array.elements {
            let start = bytes.count
            if !first { bytes.append(UInt8(ascii: ",")) }
            if appendAction(element, to: &bytes) {
                first = false
            } else {
                bytes.removeSubrange(start...)
            }
        }
        bytes.append(UInt8(ascii: "]"))
    }

    /// Appends one action in normalized form; false (and maybe some bytes,
    /// for the caller to drop) when `element` is none.
    private static func appendAction(_ element: JSONValue, to bytes: inout [UInt8]) -> Bool {
        var id: JSONValue?
        var title: JSONValue?
        var input = false
        switch element.kind {
        case .string:
            id = element
            title = element
        case .object:
            id = element.member(named: "id", kind: .string) ?? element.member(named: "action", kind: .string)
            title = element.member(named: "title", kind: .string) ?? element.member(named: "label", kind: .string)
            input = element.member(named: "input")?.kind == .true || element.member(named: "type")?.isString("text") == true
        default:
            return false
        }
        guard let id = id ?? title, let title = title ?? .some(id) else { return false }
        bytes.append(contentsOf: #"{"id":"#.utf8)
        id.appendCompact(to: &bytes)
        bytes.append(contentsOf: #","title":"#.utf8)
        title.appendCompact(to: &bytes)
        if input { bytes.append(contentsOf: #","input":true"#.utf8) }
        bytes.append(UInt8(ascii: "}"))
        return true
    }
}
