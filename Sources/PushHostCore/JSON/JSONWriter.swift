/// Writes JSON string literals for output lines.
package enum JSONWriter {
    /// Appends `string` as a quoted, escaped JSON string literal to `out`.
    /// `string` as a JSON string, quotes included.
    package static func quoted(_ string: String) -> String {
        var bytes: [UInt8] = []
        appendString(string, to: &bytes)
        return String(decoding: bytes, as: UTF8.self)
    }

    static func appendString(_ string: String, to out: inout [UInt8]) {
        var string = string
        string.withUTF8 { appendString(UnsafeRawBufferPointer($0), to: &out) }
    }

    /// Appends the UTF-8 bytes `utf8` as a quoted, escaped JSON string literal to `out`.
    ///
    /// `"` and `\` are escaped with a backslash; control characters as `\b \f \n \r \t`
    /// or `\u00XX` (lower case hex); every other byte, non-ASCII UTF-8 included, is copied
    /// as is, so `utf8` must be valid UTF-8 for the result to be valid JSON.
    static func appendString(_ utf8: UnsafeRawBufferPointer, to out: inout [UInt8]) {
        out.append(UInt8(ascii: "\""))
        var run = 0
        for (offset, byte) in utf8.enumerated() where byte < 0x20 || byte == UInt8(ascii: "\"") || byte == UInt8(ascii: "\\") {
            out.append(contentsOf: utf8[run ..< offset])
            run = offset + 1
            out.append(UInt8(ascii: "\\"))
            switch byte {
            case UInt8(ascii: "\""), UInt8(ascii: "\\"): out.append(byte)
            case 0x08: out.append(UInt8(ascii: "b"))
            case 0x0C: out.append(UInt8(ascii: "f"))
            case 0x0A: out.append(UInt8(ascii: "n"))
            case 0x0D: out.append(UInt8(ascii: "r"))
            case 0x09: out.append(UInt8(ascii: "t"))
            default:
                let hex: StaticString = "0123456789abcdef"
                out.append(contentsOf: [
                    UInt8(ascii: "u"), UInt8(ascii: "0"), UInt8(ascii: "0"),
                    hex.utf8Start[Int(byte &>> 4)], hex.utf8Start[Int(byte & 0x0F)],
                ])
            }
        }
        out.append(contentsOf: utf8[run...])
        out.append(UInt8(ascii: "\""))
    }
}
