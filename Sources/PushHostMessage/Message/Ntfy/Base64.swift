/// Decoding base64 text (RFC 4648, section 4: the standard alphabet, `+`
/// and `/`), as ntfy sends a message that is not UTF-8 text:
///
/// ```
/// "SGVsbG8="  ->  Hello
/// "SGVsbG8"   ->  Hello   (the padding may be left out)
/// "SGVsbG8*"  ->  nil     (a byte outside the alphabet)
/// ```
enum Base64 {
    /// The bytes `text` encodes; nil when it is not base64: a byte outside
    /// the alphabet (whitespace included), `=` anywhere but in the padding,
    /// or a length that leaves one character over.
    static func decode(_ text: [UInt8]) -> [UInt8]? {
        var end = text.count
        if end % 4 == 0 {
            // At most two `=` of padding, which then must be there.
            for _ in 0..<2 where end > 0 && text[end - 1] == UInt8(ascii: "=") { end -= 1 }
        }
        guard end % 4 != 1 else { return nil }
        var bytes: [UInt8] = []
        bytes.reserveCapacity(end / 4 * 3 + 2)
        var bits: UInt32 = 0
        var count = 0
        for character in text[..<end] {
            guard let value = sextet(character) else { return nil }
            bits = bits << 6 | UInt32(value)
            count += 6
            if count >= 8 {
                count -= 8
                bytes.append(UInt8(truncatingIfNeeded: bits >> UInt32(count)))
            }
        }
        return bytes
    }

    /// The six bits `character` stands for, or nil when it is not in the alphabet.
    private static func sextet(_ character: UInt8) -> UInt8? {
        switch character {
        case UInt8(ascii: "A")...UInt8(ascii: "Z"): character - UInt8(ascii: "A")
        case UInt8(ascii: "a")...UInt8(ascii: "z"): character - UInt8(ascii: "a") + 26
        case UInt8(ascii: "0")...UInt8(ascii: "9"): character - UInt8(ascii: "0") + 52
        case UInt8(ascii: "+"): 62
        case UInt8(ascii: "/"): 63
        default: nil
        }
    }
}
