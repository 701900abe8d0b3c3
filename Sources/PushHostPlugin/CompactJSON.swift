/// Reads the members of the compact, valid JSON objects the host hands out
/// (`message_get(m, "data")`), without Foundation.
enum CompactJSON {
    /// Each member's key and value as text: strings unescaped, any other
    /// value as its JSON text.
    static func members(of text: [UInt8]) -> [String: String] {
        var members: [String: String] = [:]
        var at = 0
        guard text.first == UInt8(ascii: "{") else { return members }
        at += 1
        while at < text.count, text[at] != UInt8(ascii: "}") {
            let key = string(text, &at)
            at += 1  // ':'
            let start = at
            skipValue(text, &at)
            members[key] = text[start] == UInt8(ascii: "\"")
                ? { var position = start; return string(text, &position) }()
                : String(decoding: text[start..<at], as: UTF8.self)
            if at < text.count, text[at] == UInt8(ascii: ",") { at += 1 }
        }
        return members
    }

    /// The string starting at the quote at `at`, unescaped; `at` moves past it.
    private static func string(_ text: [UInt8], _ at: inout Int) -> String {
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
                    scalar = 0x10000 + ((scalar - 0xD800) << 10) + (hex(text, &at) - 0xDC00)
                }
                bytes += Array(String(Unicode.Scalar(scalar).map(Character.init) ?? "\u{FFFD}").utf8)
            default: bytes.append(escaped)
            }
        }
        at += 1
        return String(decoding: bytes, as: UTF8.self)
    }

    /// The four hex digits at `at`; `at` moves past them.
    private static func hex(_ text: [UInt8], _ at: inout Int) -> UInt32 {
        var value: UInt32 = 0
        for _ in 0..<4 where at < text.count {
            let digit = text[at]
            value = value << 4 | UInt32(digit <= UInt8(ascii: "9") ? digit - 48 : (digit | 0x20) - 87)
            at += 1
        }
        return value
    }

    /// Moves `at` past the value that starts there.
    private static func skipValue(_ text: [UInt8], _ at: inout Int) {
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
