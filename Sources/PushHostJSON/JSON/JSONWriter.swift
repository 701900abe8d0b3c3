import PushHostSystem

/// Writes JSON string literals for output lines.
@usableFromInline package enum JSONWriter {
    /// `string` as a JSON string, quotes included.
    package static func quoted(_ string: String) -> String {
        var bytes: [UInt8] = []
        appendString(string, to: &bytes)
        return String(decoding: bytes, as: UTF8.self)
    }

    /// Appends `string` as a quoted, escaped JSON string literal to `out`.
    @usableFromInline package static func appendString<Sink: ByteSink & ~Copyable>(_ string: String, to out: inout Sink) {
        var string = string
        string.withUTF8 { appendString(UnsafeRawBufferPointer($0), to: &out) }
    }

    /// Appends `strings` as a JSON array of strings: `["a","b"]`.
    package static func appendStrings<Sink: ByteSink & ~Copyable>(_ strings: [String], to out: inout Sink) {
        out.append(UInt8(ascii: "["))
        for (index, string) in strings.enumerated() {
            if index > 0 { out.append(UInt8(ascii: ",")) }
            appendString(string, to: &out)
        }
        out.append(UInt8(ascii: "]"))
    }

    /// Appends the UTF-8 bytes `utf8` as a quoted, escaped JSON string literal to `out`.
    ///
    /// `"` and `\` are escaped with a backslash; control characters as `\b \f \n \r \t`
    /// or `\u00XX` (lower case hex); every other byte, non-ASCII UTF-8 included, is copied
    /// as is, so `utf8` must be valid UTF-8 for the result to be valid JSON. The runs
    /// between escapes are copied whole.
    @usableFromInline package static func appendString<Sink: ByteSink & ~Copyable>(_ utf8: UnsafeRawBufferPointer, to out: inout Sink) {
        out.append(UInt8(ascii: "\""))
        var run = 0
        var offset = 0
        let count = utf8.count
        while offset < count {
            // Eight bytes at a time while none of them needs escaping.
            if offset &+ 8 <= count, !needsEscape(utf8.loadUnaligned(fromByteOffset: offset, as: UInt64.self)) {
                offset &+= 8
                continue
            }
            let byte = utf8[offset]
            guard byte < 0x20 || byte == UInt8(ascii: "\"") || byte == UInt8(ascii: "\\") else {
                offset += 1
                continue
            }
            out.append(bytes: UnsafeRawBufferPointer(rebasing: utf8[run ..< offset]))
            offset += 1
            run = offset
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
                out.append(ascii: "u00")
                out.append(hex.utf8Start[Int(byte &>> 4)])
                out.append(hex.utf8Start[Int(byte & 0x0F)])
            }
        }
        out.append(bytes: UnsafeRawBufferPointer(rebasing: utf8[run ..< count]))
        out.append(UInt8(ascii: "\""))
    }

    /// Whether any of the eight bytes of `word` is a control character, `"`
    /// or `\` (bit tricks on the whole word: a byte below 0x20 or equal to
    /// one of the two sets the high bit of its place; one of 0x80 or more never does).
    @inline(__always)
    private static func needsEscape(_ word: UInt64) -> Bool {
        let ones: UInt64 = 0x0101_0101_0101_0101, highs: UInt64 = 0x8080_8080_8080_8080
        let control = (word &- 0x2020_2020_2020_2020) & ~word
        let quote = word ^ 0x2222_2222_2222_2222, backslash = word ^ 0x5C5C_5C5C_5C5C_5C5C
        let equal = ((quote &- ones) & ~quote) | ((backslash &- ones) & ~backslash)
        return (control | equal) & highs != 0
    }
}
