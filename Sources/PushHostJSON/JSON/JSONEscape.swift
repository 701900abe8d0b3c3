/// Helpers for the backslash escapes of JSON strings.
enum JSONEscape {
    /// Whether `c` is an ASCII hex digit.
    static func isHexDigit(_ c: UInt8) -> Bool {
        switch c {
        case UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "A")...UInt8(ascii: "F"),
             UInt8(ascii: "a")...UInt8(ascii: "f"):
            return true
        default:
            return false
        }
    }

    /// The value of the hex digit `c`, which must satisfy ``isHexDigit(_:)``.
    static func hexValue(_ c: UInt8) -> UInt32 {
        // Digits have bit 6 clear; letters have it set and their low nibble is 1...6.
        UInt32(c & 0x0F) + UInt32(c &>> 6) * 9
    }

    /// Decodes the escape whose backslash is at `p` in an already validated string.
    /// - Returns: the Unicode scalar value and the number of bytes consumed (2, 6 or 12).
    static func decode(at p: UnsafePointer<UInt8>) -> (scalar: UInt32, length: Int) {
        switch p[1] {
        case UInt8(ascii: "b"): return (0x08, 2)
        case UInt8(ascii: "f"): return (0x0C, 2)
        case UInt8(ascii: "n"): return (0x0A, 2)
        case UInt8(ascii: "r"): return (0x0D, 2)
        case UInt8(ascii: "t"): return (0x09, 2)
        case UInt8(ascii: "u"):
            let unit = hexUnit(at: p + 2)
            guard unit & 0xFC00 == 0xD800 else { return (unit, 6) }
            let low = hexUnit(at: p + 8)
            return (0x10000 + (unit - 0xD800) &<< 10 + (low - 0xDC00), 12)
        default:
            // `"`, `\` and `/` stand for themselves.
            return (UInt32(p[1]), 2)
        }
    }

    /// The value of the four validated hex digits at `p`.
    static func hexUnit(at p: UnsafePointer<UInt8>) -> UInt32 {
        hexValue(p[0]) &<< 12 | hexValue(p[1]) &<< 8 | hexValue(p[2]) &<< 4 | hexValue(p[3])
    }

    /// The UTF-8 encoding of `scalar`, packed with the first byte in the lowest 8 bits.
    static func utf8(_ scalar: UInt32) -> (bytes: UInt32, count: Int) {
        switch scalar {
        case 0..<0x80:
            return (scalar, 1)
        case 0x80..<0x800:
            return (0xC0 | scalar &>> 6 | (0x80 | scalar & 0x3F) &<< 8, 2)
        case 0x800..<0x10000:
            return (0xE0 | scalar &>> 12
                        | (0x80 | scalar &>> 6 & 0x3F) &<< 8
                        | (0x80 | scalar & 0x3F) &<< 16, 3)
        default:
            return (0xF0 | scalar &>> 18
                        | (0x80 | scalar &>> 12 & 0x3F) &<< 8
                        | (0x80 | scalar &>> 6 & 0x3F) &<< 16
                        | (0x80 | scalar & 0x3F) &<< 24, 4)
        }
    }
}
