/// Makes any text safe inside one log line, so that what a message, a file
/// name or a plugin says can never forge a line of its own or drive the
/// terminal.
///
/// Each character that could break or disguise a line becomes a visible
/// escape; everything else passes as it is:
///
/// | character                               | written as            |
/// |-----------------------------------------|-----------------------|
/// | newline, carriage return, tab           | `\n` `\r` `\t`        |
/// | other C0 controls (ESC...) and DEL      | `\x1b` `\x7f`         |
/// | C1 controls U+0080-U+009F               | `\u{85}`              |
/// | line and paragraph separators           | `\u{2028}` `\u{2029}` |
///
/// A backslash passes as it is, so quoted JSON in a message reads as it was
/// written (`lone surrogate \uD800`); the escapes are there to keep every
/// record on its line and the terminal inert, not to be decoded back.
/// Text reaches the log as a Swift `String`, which holds no invalid UTF-8:
/// where the host makes text from bytes (a plugin's log text, a spool file's
/// name) invalid sequences have already become U+FFFD, printed as it is.
package enum LogEscape {
    /// `text` with every character of the table above escaped.
    package static func escaped(_ text: String) -> String {
        // The bytes that start every character escaped; most lines have none.
        guard text.utf8.contains(where: { $0 < 0x20 || $0 == 0x7f || $0 == 0xc2 || $0 == 0xe2 }) else {
            return text
        }
        var result = ""
        result.reserveCapacity(text.utf8.count + 16)
        for scalar in text.unicodeScalars {
            switch scalar.value {
            case 0x0a: result += "\\n"
            case 0x0d: result += "\\r"
            case 0x09: result += "\\t"
            case 0x00..<0x20, 0x7f:
                result += "\\x" + (scalar.value < 0x10 ? "0" : "") + String(scalar.value, radix: 16)
            case 0x80...0x9f, 0x2028, 0x2029:
                result += "\\u{" + String(scalar.value, radix: 16) + "}"
            default:
                result.unicodeScalars.append(scalar)
            }
        }
        return result
    }
}
