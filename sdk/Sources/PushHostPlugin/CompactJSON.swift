/// Reads the compact, valid JSON the host hands out (`message_json`, the
/// objects of `message_get`, report lines), without Foundation: one value by
/// dotted path, an object's members, or an array's elements, as text the way
/// `message_get` gives it; and writes the one value a plugin hands the host
/// as text, a JSON string (`quoted`).
///
/// It is not the host's reader, on purpose: that one validates hostile input
/// into a tape, with a C vector step, and is tuned to the instruction count
/// of each message; sharing it would make it a module with a public API
/// across which the host's calls are no longer inlined, and every plugin
/// would carry a validator for text the host already validated. This one
/// only walks text the host wrote.
enum CompactJSON {
    /// The value at the dotted `path` in `json` (object members by key,
    /// array elements by position): a string unescaped, JSON null as nil,
    /// any other value as its JSON text.
    static func value(at path: UnsafeRawBufferPointer, in json: String) -> String? {
        var json = json
        return json.withUTF8 { text in
            var at = 0
            for segment in path.split(separator: UInt8(ascii: "."), omittingEmptySubsequences: false) {
                guard let child = child(text, at, segment) else { return nil }
                at = child
            }
            return value(text, &at)
        }
    }

    /// `value(at:in:)` for a static dotted `path`.
    static func value(at path: StaticString, in json: String) -> String? {
        value(at: UnsafeRawBufferPointer(start: path.utf8Start, count: path.utf8CodeUnitCount), in: json)
    }

    /// The members of the object `json` in order, each value as `value(at:in:)`
    /// gives it; members that are null are left out.
    static func members(of json: String) -> [(key: String, value: String)] {
        var json = json
        return json.withUTF8 { text in
            var members: [(key: String, value: String)] = []
            guard text.first == UInt8(ascii: "{") else { return members }
            var at = 1
            while at < text.count, text[at] != UInt8(ascii: "}") {
                let key = String(decoding: string(text, &at), as: UTF8.self)
                at += 1  // ':'
                if let value = value(text, &at) { members.append((key, value)) }
                if at < text.count, text[at] == UInt8(ascii: ",") { at += 1 }
            }
            return members
        }
    }

    /// The elements of the array `json` in order, each as `value(at:in:)`
    /// gives it (an object as its compact JSON); null elements are left out,
    /// and anything but an array has none.
    static func elements(of json: String) -> [String] {
        var json = json
        return json.withUTF8 { text in
            var elements: [String] = []
            guard text.first == UInt8(ascii: "[") else { return elements }
            var at = 1
            while at < text.count, text[at] != UInt8(ascii: "]") {
                if let value = value(text, &at) { elements.append(value) }
                if at < text.count, text[at] == UInt8(ascii: ",") { at += 1 }
            }
            return elements
        }
    }

    /// `text` as a JSON string: quoted, with `"`, `\` and control
    /// characters escaped.
    static func quoted(_ text: String) -> String {
        var json = "\""
        for scalar in text.unicodeScalars {
            switch scalar {
            case "\"": json += "\\\""
            case "\\": json += "\\\\"
            case "\n": json += "\\n"
            case "\r": json += "\\r"
            case "\t": json += "\\t"
            case "\u{00}"..."\u{1F}":
                let hex = String(scalar.value, radix: 16)
                json += "\\u" + String(repeating: "0", count: 4 - hex.count) + hex
            default: json.unicodeScalars.append(scalar)
            }
        }
        return json + "\""
    }

    /// Where the member `segment` of the object at `at` starts, or the
    /// element at position `segment` of the array at `at`; nil when there
    /// is none, or the value at `at` is neither.
    private static func child(_ text: UnsafeBufferPointer<UInt8>, _ at: Int, _ segment: Slice<UnsafeRawBufferPointer>) -> Int? {
        guard at < text.count else { return nil }
        var at = at
        switch text[at] {
        case UInt8(ascii: "{"):
            at += 1
            while at < text.count, text[at] != UInt8(ascii: "}") {
                let matches = string(text, &at).elementsEqual(segment)
                at += 1  // ':'
                if matches { return at }
                skipValue(text, &at)
                if at < text.count, text[at] == UInt8(ascii: ",") { at += 1 }
            }
        case UInt8(ascii: "["):
            guard let position = Int(String(decoding: segment, as: UTF8.self)), position >= 0 else { return nil }
            at += 1
            var index = 0
            while at < text.count, text[at] != UInt8(ascii: "]") {
                if index == position { return at }
                skipValue(text, &at)
                if at < text.count, text[at] == UInt8(ascii: ",") { at += 1 }
                index += 1
            }
        default:
            break
        }
        return nil
    }

    /// The value at `at` as text (nil for null); `at` moves past it.
    private static func value(_ text: UnsafeBufferPointer<UInt8>, _ at: inout Int) -> String? {
        guard at < text.count else { return nil }
        let start = at
        if text[start] == UInt8(ascii: "\"") { return String(decoding: string(text, &at), as: UTF8.self) }
        skipValue(text, &at)
        return text[start] == UInt8(ascii: "n") ? nil : String(decoding: UnsafeBufferPointer(rebasing: text[start..<at]), as: UTF8.self)
    }

    /// The string starting at the quote at `at`, unescaped; `at` moves past it.
    private static func string(_ text: UnsafeBufferPointer<UInt8>, _ at: inout Int) -> [UInt8] {
        var bytes: [UInt8] = []
        at += 1
        while at < text.count, text[at] != UInt8(ascii: "\"") {
            guard text[at] == UInt8(ascii: "\\"), at + 1 < text.count else {
                bytes.append(text[at])
                at += 1
                continue
            }
            let escaped = text[at + 1]
            at += 2
            switch escaped {
            case UInt8(ascii: "b"): bytes.append(0x08)
            case UInt8(ascii: "f"): bytes.append(0x0C)
            case UInt8(ascii: "n"): bytes.append(0x0A)
            case UInt8(ascii: "r"): bytes.append(0x0D)
            case UInt8(ascii: "t"): bytes.append(0x09)
            case UInt8(ascii: "u"):
                var scalar = hex(text, &at)
                if scalar >= 0xD800 && scalar < 0xDC00, at + 1 < text.count, text[at] == UInt8(ascii: "\\") {
                    at += 2
                    scalar = 0x10000 + ((scalar - 0xD800) << 10) + (hex(text, &at) &- 0xDC00)
                }
                bytes += String(Unicode.Scalar(scalar).map(Character.init) ?? "\u{FFFD}").utf8
            default: bytes.append(escaped)
            }
        }
        at += 1
        return bytes
    }

    /// The four hex digits at `at`; `at` moves past them.
    private static func hex(_ text: UnsafeBufferPointer<UInt8>, _ at: inout Int) -> UInt32 {
        var value: UInt32 = 0
        for _ in 0..<4 where at < text.count {
            let digit = text[at]
            value = value << 4 | UInt32(digit <= UInt8(ascii: "9") ? digit &- 48 : (digit | 0x20) &- 87)
            at += 1
        }
        return value
    }

    /// Moves `at` past the value that starts there.
    private static func skipValue(_ text: UnsafeBufferPointer<UInt8>, _ at: inout Int) {
        var depth = 0
        var inString = false
        while at < text.count {
            let byte = text[at]
            if inString {
                if byte == UInt8(ascii: "\\") { at += 1 } else if byte == UInt8(ascii: "\"") { inString = false }
                at += 1
                if !inString && depth == 0 { return }
                continue
            }
            switch byte {
            case UInt8(ascii: "\""): inString = true
            case UInt8(ascii: "{"), UInt8(ascii: "["): depth += 1
            case UInt8(ascii: "}"), UInt8(ascii: "]"):
                if depth == 0 { return }
                depth -= 1
                if depth == 0 { at += 1; return }
            case UInt8(ascii: ","): if depth == 0 { return }
            default: break
            }
            at += 1
        }
    }
}
