import CJSONScan

/// Lexical scanning over the raw bytes of one input: whitespace, strings, numbers, literals.
///
/// Every scan takes a pointer inside `base..<end` and returns the pointer just past what
/// it consumed, or throws the ``JSONError`` for the first offending byte. The error
/// builders used by ``JSONReader`` live here too, since they only need the bytes.
struct JSONScanner {
    /// First byte of the input.
    let base: UnsafePointer<UInt8>
    /// One past the last byte of the input.
    let end: UnsafePointer<UInt8>

    /// The 32-bit tape offset of `p` (the reader guarantees the input fits).
    func offset(_ p: UnsafePointer<UInt8>) -> UInt32 {
        UInt32(truncatingIfNeeded: p - base)
    }

    /// An error with `reason` at `p`.
    /// The error `reason` at `p`; a byte there that does not start valid
    /// UTF-8 is reported as such, since that is what a user must fix.
    func error(_ reason: String, at p: UnsafePointer<UInt8>) -> JSONError {
        if p < end, p.pointee >= 0x80, reason != JSONError.invalidUTF8, (try? utf8Sequence(at: p)) == nil {
            return JSONError(offset: p - base, reason: JSONError.invalidUTF8)
        }
        return JSONError(offset: p - base, reason: reason)
    }

    /// Skips space, tab, line feed and carriage return.
    func skipWhitespace(_ start: UnsafePointer<UInt8>) -> UnsafePointer<UInt8> {
        var p = start
        while p < end {
            let c = p.pointee
            guard c <= 0x20, c == 0x20 || c == 0x0A || c == 0x0D || c == 0x09 else { break }
            p += 1
        }
        return p
    }

    // MARK: Strings

    /// Validates a string body that starts at `start`, just after the opening quote.
    /// - Returns: the position of the closing quote and whether the body contains an escape.
    ///
    /// Inlined where strings are read: a plain ASCII string, the common
    /// case, costs no call; anything else goes on in ``stringRest(from:)``.
    @inline(__always)
    func string(from start: UnsafePointer<UInt8>) throws(JSONError) -> (close: UnsafePointer<UInt8>, isEscaped: Bool) {
        let p = plainRun(from: start)
        if p < end && p.pointee == UInt8(ascii: "\"") { return (p, false) }
        return try stringRest(from: p)
    }

    /// ``string(from:)`` from `start`, inside a string whose bytes before
    /// `start` are plain ASCII.
    func stringRest(from start: UnsafePointer<UInt8>) throws(JSONError) -> (close: UnsafePointer<UInt8>, isEscaped: Bool) {
        var p = start
        var isEscaped = false
        while true {
            p = plainRun(from: p)
            guard p < end else { throw error(JSONError.unterminatedString, at: end) }
            switch p.pointee {
            case UInt8(ascii: "\""):
                return (p, isEscaped)
            case UInt8(ascii: "\\"):
                isEscaped = true
                p = try escape(at: p)
            case 0..<0x20:
                throw error(JSONError.controlCharacter, at: p)
            default:
                p = try utf8Sequence(at: p)
            }
        }
    }

    /// The first byte from `start` on that ends a plain ASCII run inside a
    /// string (`"`, `\`, a control character, a non-ASCII byte), or `end`:
    /// 16 bytes a step (`json_scan_special16`), then one at a time.
    @inline(__always)
    func plainRun(from start: UnsafePointer<UInt8>) -> UnsafePointer<UInt8> {
        var p = start
        while end - p >= 16 {
            let special = json_scan_special16(p)
            if special != 0 { return p + special.trailingZeroBitCount }
            p += 16
        }
        while p < end {
            let c = p.pointee
            guard c >= 0x20, c < 0x80, c != UInt8(ascii: "\""), c != UInt8(ascii: "\\") else { break }
            p += 1
        }
        return p
    }

    /// Validates the escape whose backslash is at `p`, including surrogate pairing.
    func escape(at p: UnsafePointer<UInt8>) throws(JSONError) -> UnsafePointer<UInt8> {
        guard end - p >= 2 else { throw error(JSONError.unterminatedString, at: end) }
        if p[1] != UInt8(ascii: "u") {
            guard Self.isSimpleEscape(p[1]) else { throw error(JSONError.invalidEscape, at: p) }
            return p + 2
        }
        let unit = try hexUnit(at: p)
        switch unit {
        case 0xD800...0xDBFF:
            let low = p + 6
            guard low < end else { throw error(JSONError.unterminatedString, at: end) }
            guard low.pointee == UInt8(ascii: "\\") else {
                throw error(JSONError.loneSurrogate(unit), at: p)
            }
            guard low + 1 < end else { throw error(JSONError.unterminatedString, at: end) }
            guard low[1] == UInt8(ascii: "u") else {
                // `\uD800\n` leaves the surrogate alone; `\uD800\x` is an invalid escape first.
                throw Self.isSimpleEscape(low[1])
                    ? error(JSONError.loneSurrogate(unit), at: p)
                    : error(JSONError.invalidEscape, at: low)
            }
            let lowUnit = try hexUnit(at: low)
            guard 0xDC00...0xDFFF ~= lowUnit else { throw error(JSONError.loneSurrogate(unit), at: p) }
            return low + 6
        case 0xDC00...0xDFFF:
            throw error(JSONError.loneSurrogate(unit), at: p)
        default:
            return p + 6
        }
    }

    /// Whether `c` may follow a backslash as a one-character escape.
    static func isSimpleEscape(_ c: UInt8) -> Bool {
        switch c {
        case UInt8(ascii: "\""), UInt8(ascii: "\\"), UInt8(ascii: "/"), UInt8(ascii: "b"),
             UInt8(ascii: "f"), UInt8(ascii: "n"), UInt8(ascii: "r"), UInt8(ascii: "t"):
            return true
        default:
            return false
        }
    }

    /// Reads the code unit of the `\uXXXX` escape whose backslash is at `p`.
    func hexUnit(at p: UnsafePointer<UInt8>) throws(JSONError) -> UInt32 {
        var unit: UInt32 = 0
        for i in 2..<6 {
            guard p + i < end else { throw error(JSONError.unterminatedString, at: end) }
            guard JSONEscape.isHexDigit(p[i]) else { throw error(JSONError.invalidEscape, at: p) }
            unit = unit &<< 4 | JSONEscape.hexValue(p[i])
        }
        return unit
    }

    /// Validates the multi-byte UTF-8 sequence whose lead byte (>= 0x80) is at `p`
    /// (Unicode table 3-7: no overlongs, no surrogates, nothing above U+10FFFF).
    func utf8Sequence(at p: UnsafePointer<UInt8>) throws(JSONError) -> UnsafePointer<UInt8> {
        let length: Int
        let secondRange: ClosedRange<UInt8>
        switch p.pointee {
        case 0xC2...0xDF: (length, secondRange) = (2, 0x80...0xBF)
        case 0xE0: (length, secondRange) = (3, 0xA0...0xBF)
        case 0xE1...0xEC, 0xEE...0xEF: (length, secondRange) = (3, 0x80...0xBF)
        case 0xED: (length, secondRange) = (3, 0x80...0x9F)
        case 0xF0: (length, secondRange) = (4, 0x90...0xBF)
        case 0xF1...0xF3: (length, secondRange) = (4, 0x80...0xBF)
        case 0xF4: (length, secondRange) = (4, 0x80...0x8F)
        default: throw error(JSONError.invalidUTF8, at: p)
        }
        for i in 1..<length {
            guard p + i < end else { throw error(JSONError.unterminatedString, at: end) }
            let valid = i == 1 ? secondRange ~= p[i] : p[i] & 0xC0 == 0x80
            guard valid else { throw error(JSONError.invalidUTF8, at: p) }
        }
        return p + length
    }

    // MARK: Numbers and literals

    /// Validates a number starting at `start` (a `-` or a digit).
    func number(at start: UnsafePointer<UInt8>) throws(JSONError) -> UnsafePointer<UInt8> {
        var p = start
        if p.pointee == UInt8(ascii: "-") { p += 1 }
        guard p < end else { throw error(JSONError.invalidNumber, at: p) }
        let first = p.pointee
        if first == UInt8(ascii: "0") {
            p += 1
            if p < end && Self.isDigit(p.pointee) { throw error(JSONError.leadingZero, at: p) }
        } else if Self.isDigit(first) {
            p = digits(from: p + 1)
        } else {
            throw error(first == UInt8(ascii: "I") ? JSONError.nanOrInfinity : JSONError.invalidNumber, at: p)
        }
        if p < end && p.pointee == UInt8(ascii: ".") {
            p += 1
            guard p < end, Self.isDigit(p.pointee) else { throw error(JSONError.invalidNumber, at: p) }
            p = digits(from: p + 1)
        }
        if p < end && p.pointee | 0x20 == UInt8(ascii: "e") {
            p += 1
            if p < end && (p.pointee == UInt8(ascii: "+") || p.pointee == UInt8(ascii: "-")) { p += 1 }
            guard p < end, Self.isDigit(p.pointee) else { throw error(JSONError.invalidNumber, at: p) }
            p = digits(from: p + 1)
        }
        return p
    }

    /// Skips decimal digits.
    func digits(from start: UnsafePointer<UInt8>) -> UnsafePointer<UInt8> {
        var p = start
        while p < end && Self.isDigit(p.pointee) { p += 1 }
        return p
    }

    /// Whether `c` is an ASCII decimal digit.
    static func isDigit(_ c: UInt8) -> Bool {
        c &- UInt8(ascii: "0") < 10
    }

    /// Validates that the literal `text` (`true`, `false` or `null`) starts at `start`.
    func literal(_ text: StaticString, at start: UnsafePointer<UInt8>) throws(JSONError) -> UnsafePointer<UInt8> {
        let expected = text.utf8Start
        for i in 0..<text.utf8CodeUnitCount {
            guard start + i < end, start[i] == expected[i] else {
                throw error(JSONError.invalidLiteral, at: start + i)
            }
        }
        return start + text.utf8CodeUnitCount
    }

    // MARK: Errors for structural bytes

    /// Whether a `//` or `/*` comment starts at `p`.
    func isComment(at p: UnsafePointer<UInt8>) -> Bool {
        end - p >= 2 && p[0] == UInt8(ascii: "/") && (p[1] == UInt8(ascii: "/") || p[1] == UInt8(ascii: "*"))
    }

    /// The error for the byte at `p` (or the end) where a value should start.
    /// `inArray` tells whether this value position is an array element.
    func valueError(at p: UnsafePointer<UInt8>, inArray: Bool) -> JSONError {
        guard p < end else { return error(JSONError.expectedValue, at: p) }
        let reason: String
        switch p.pointee {
        // `[` followed by `]` is an empty array, so a `]` here always follows a comma.
        case UInt8(ascii: "]") where inArray: reason = JSONError.trailingComma
        case UInt8(ascii: "/") where isComment(at: p): reason = JSONError.comment
        case UInt8(ascii: "'"): reason = JSONError.singleQuote
        case UInt8(ascii: "N"), UInt8(ascii: "I"): reason = JSONError.nanOrInfinity
        case UInt8(ascii: "+"), UInt8(ascii: "."): reason = JSONError.invalidNumber
        case 0xEF where end - p >= 3 && p[1] == 0xBB && p[2] == 0xBF: reason = JSONError.byteOrderMark
        default: reason = JSONError.expectedValue
        }
        return error(reason, at: p)
    }

    /// The error for the byte at `p` (or the end) where an object key should start.
    func keyError(at p: UnsafePointer<UInt8>) -> JSONError {
        guard p < end else { return error(JSONError.expectedKey, at: p) }
        let reason: String
        switch p.pointee {
        // `{` followed by `}` is an empty object, so a `}` here always follows a comma.
        case UInt8(ascii: "}"): reason = JSONError.trailingComma
        case UInt8(ascii: "/") where isComment(at: p): reason = JSONError.comment
        case UInt8(ascii: "'"): reason = JSONError.singleQuote
        default: reason = JSONError.expectedKey
        }
        return error(reason, at: p)
    }

    /// The error for the byte at `p` (or the end) where only whitespace and then
    /// `expected` may appear; a comment gets its own reason.
    func structureError(_ expected: String, at p: UnsafePointer<UInt8>) -> JSONError {
        error(p < end && isComment(at: p) ? JSONError.comment : expected, at: p)
    }
}
