/// A rejected JSON text: the byte offset of the problem and a short plain English reason.
///
/// `offset` is the 0-based offset of the first byte at which the input can no longer be
/// the beginning of a valid JSON text, or the input length when the input ends too early.
/// Three kinds of error point somewhere more useful instead, as noted in the list below:
/// escape errors point at the escape's backslash, UTF-8 errors at the first byte of the
/// bad sequence, and nesting errors at the bracket that is one level too deep.
///
/// Reasons (`reason` is always exactly one of these):
/// - "expected a value": a value should start here (also for empty input).
/// - "expected a string key": an object key should start here (after `{` or `,`).
/// - "expected ':' after object key": the key is not followed by a colon.
/// - "expected ',' or ']'": an array element is followed by something else.
/// - "expected ',' or '}'": an object member is followed by something else.
/// - "unexpected data after the value": non-whitespace follows the top-level value.
/// - "trailing comma": a `]` or `}` right after a comma; points at the bracket.
/// - "comments are not allowed": `//` or `/*` where whitespace could be; points at the `/`.
/// - "single quotes are not allowed": a `'` where a value or key should start.
/// - "NaN and Infinity are not allowed": an `N` or `I` where a value or number digit should start.
/// - "invalid literal": a misspelled or truncated `true`, `false` or `null`.
/// - "invalid number": a number breaks the RFC 8259 grammar here (`+1`, `.5`, `-`, `1.`, `1e`).
/// - "leading zero in number": a digit follows a leading `0` (`01`, `-01`); points at that digit.
/// - "unterminated string": the input ends inside a string (offset is the input length).
/// - "control character in string": a raw byte below 0x20 inside a string.
/// - "invalid escape": a backslash not followed by one of `"\/bfnrt` or by `u` and 4 hex digits.
/// - "lone surrogate \uXXXX": a `\u` high surrogate not followed by a `\u` low surrogate,
///   or a low surrogate on its own; XXXX is the escape's value in upper case hex.
/// - "invalid UTF-8": a malformed, overlong, surrogate (ED A0..BF), out of range or
///   truncated UTF-8 sequence, or a stray continuation byte, inside a string (outside
///   strings every non-ASCII byte already gets one of the structural reasons).
/// - "byte order mark is not allowed": a UTF-8 BOM (EF BB BF) where a value should start.
/// - "nesting deeper than N levels": the bracket that opens level N + 1 (N is the reader's limit).
/// - "input larger than 4 GiB": the input does not fit the tape's 32-bit offsets;
///   points at the first byte that cannot be addressed.
@usableFromInline package struct JSONError: Error, Equatable, CustomStringConvertible {
    /// Byte offset of the offending byte, or the input length for an unexpected end.
    package let offset: Int
    /// Short plain English description, one of the reasons listed on the type.
    package let reason: String

    @usableFromInline package var description: String { "\(reason) at byte \(offset)" }

    static let expectedValue = "expected a value"
    static let expectedKey = "expected a string key"
    static let expectedColon = "expected ':' after object key"
    static let expectedArraySeparator = "expected ',' or ']'"
    static let expectedObjectSeparator = "expected ',' or '}'"
    static let dataAfterValue = "unexpected data after the value"
    static let trailingComma = "trailing comma"
    static let comment = "comments are not allowed"
    static let singleQuote = "single quotes are not allowed"
    static let nanOrInfinity = "NaN and Infinity are not allowed"
    static let invalidLiteral = "invalid literal"
    static let invalidNumber = "invalid number"
    static let leadingZero = "leading zero in number"
    static let unterminatedString = "unterminated string"
    static let controlCharacter = "control character in string"
    static let invalidEscape = "invalid escape"
    static let invalidUTF8 = "invalid UTF-8"
    static let byteOrderMark = "byte order mark is not allowed"
    static let inputTooLarge = "input larger than 4 GiB"

    /// The reason for a `\u` escape with surrogate value `unit` that has no partner.
    static func loneSurrogate(_ unit: UInt32) -> String {
        "lone surrogate \\u" + String(unit, radix: 16, uppercase: true)
    }

    /// The reason for an opening bracket beyond the nesting limit `maxDepth`.
    static func tooDeep(_ maxDepth: Int) -> String {
        "nesting deeper than \(maxDepth) levels"
    }
}
