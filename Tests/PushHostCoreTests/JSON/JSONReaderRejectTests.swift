import Testing
@testable import PushHostSystem
@testable import PushHostJSON

/// A document the reader must reject with exactly this error.
struct RejectCase: Sendable, CustomTestStringConvertible {
    let input: [UInt8]
    let error: JSONError
    let maxDepth: Int

    init(_ text: String, _ offset: Int, _ reason: String, maxDepth: Int = 64) {
        self.init(bytes: Array(text.utf8), offset, reason, maxDepth: maxDepth)
    }

    init(bytes: [UInt8], _ offset: Int, _ reason: String, maxDepth: Int = 64) {
        input = bytes
        error = JSONError(offset: offset, reason: reason)
        self.maxDepth = maxDepth
    }

    var testDescription: String {
        let text = input.map { $0 >= 0x20 && $0 < 0x7F ? String(UnicodeScalar($0)) : "<\(String($0, radix: 16))>" }.joined()
        return "\(text.count > 50 ? String(text.prefix(47)) + "..." : text) -> \(error)"
    }
}

/// `"` as a byte, for building strings that hold invalid UTF-8.
private let quote = UInt8(ascii: "\"")

let rejectCases: [RejectCase] = [
    // Empty input and values that never start.
    RejectCase("", 0, "expected a value"),
    RejectCase("   ", 3, "expected a value"),
    RejectCase("[", 1, "expected a value"),
    RejectCase("[1,", 3, "expected a value"),
    RejectCase("[1,,2]", 3, "expected a value"),
    RejectCase("[,]", 1, "expected a value"),
    RejectCase("]", 0, "expected a value"),
    RejectCase("}", 0, "expected a value"),
    RejectCase("[}", 1, "expected a value"),
    RejectCase("{\"a\":}", 5, "expected a value"),
    RejectCase("True", 0, "expected a value"),
    RejectCase("[/x]", 1, "expected a value"),
    RejectCase("[é]", 1, "expected a value"),
    // Whitespace is only space, tab, LF and CR.
    RejectCase("\u{0C}1", 0, "expected a value"),
    RejectCase("[1,\u{0B}2]", 3, "expected a value"),
    RejectCase("\u{A0}1", 0, "expected a value"),
    RejectCase("1\u{0C}", 1, "unexpected data after the value"),
    // Byte order mark.
    RejectCase(bytes: [0xEF, 0xBB, 0xBF, 0x7B, 0x7D], 0, "byte order mark is not allowed"),
    RejectCase(bytes: [0xEF, 0xBB], 0, "invalid UTF-8"),
    // Bytes that are not UTF-8 where a value, key or separator should be.
    RejectCase(bytes: [0xFF, 0x7B, 0x7D], 0, "invalid UTF-8"),
    RejectCase(bytes: [0x7B, 0xC3, 0x28, 0x7D], 1, "invalid UTF-8"),
    RejectCase(bytes: [0x5B, 0x31, 0x80, 0x5D], 2, "invalid UTF-8"),
    // Valid UTF-8 outside a string is still not JSON.
    RejectCase(bytes: [0xC3, 0xA9], 0, "expected a value"),
    // Trailing commas.
    RejectCase("[1,2,]", 5, "trailing comma"),
    RejectCase("[1, ]", 4, "trailing comma"),
    RejectCase("{\"a\":1,}", 7, "trailing comma"),
    RejectCase("{\"a\":1 , }", 9, "trailing comma"),
    RejectCase("[{\"a\":[1,],\"b\":2}]", 9, "trailing comma"),
    // Comments.
    RejectCase("// c\n1", 0, "comments are not allowed"),
    RejectCase("[1/*x*/]", 2, "comments are not allowed"),
    RejectCase("1 // x", 2, "comments are not allowed"),
    RejectCase("{/*x*/\"a\":1}", 1, "comments are not allowed"),
    RejectCase("{\"a\"/**/:1}", 4, "comments are not allowed"),
    RejectCase("{\"a\":1/**/}", 6, "comments are not allowed"),
    // NaN, Infinity, single quotes.
    RejectCase("NaN", 0, "NaN and Infinity are not allowed"),
    RejectCase("Infinity", 0, "NaN and Infinity are not allowed"),
    RejectCase("-Infinity", 1, "NaN and Infinity are not allowed"),
    RejectCase("[1,NaN]", 3, "NaN and Infinity are not allowed"),
    RejectCase("'a'", 0, "single quotes are not allowed"),
    RejectCase("{'a':1}", 1, "single quotes are not allowed"),
    RejectCase("{\"a\":1,'b':2}", 7, "single quotes are not allowed"),
    // Numbers.
    RejectCase("01", 1, "leading zero in number"),
    RejectCase("-01", 2, "leading zero in number"),
    RejectCase("00", 1, "leading zero in number"),
    RejectCase("[0123]", 2, "leading zero in number"),
    RejectCase("1.", 2, "invalid number"),
    RejectCase("[1.]", 3, "invalid number"),
    RejectCase("1.e5", 2, "invalid number"),
    RejectCase(".5", 0, "invalid number"),
    RejectCase("[.5]", 1, "invalid number"),
    RejectCase("+1", 0, "invalid number"),
    RejectCase("-", 1, "invalid number"),
    RejectCase("[-]", 2, "invalid number"),
    RejectCase("-a", 1, "invalid number"),
    RejectCase("--1", 1, "invalid number"),
    RejectCase("1e", 2, "invalid number"),
    RejectCase("1E+", 3, "invalid number"),
    RejectCase("1e-x", 3, "invalid number"),
    RejectCase("0x1F", 1, "unexpected data after the value"),
    RejectCase("1.5.3", 3, "unexpected data after the value"),
    // Literals.
    RejectCase("tru", 3, "invalid literal"),
    RejectCase("trux", 3, "invalid literal"),
    RejectCase("nul", 3, "invalid literal"),
    RejectCase("nan", 1, "invalid literal"),
    RejectCase("fals e", 4, "invalid literal"),
    RejectCase("[truE]", 4, "invalid literal"),
    RejectCase("truex", 4, "unexpected data after the value"),
    // Extra data after the value.
    RejectCase("1 2", 2, "unexpected data after the value"),
    RejectCase("{} {}", 3, "unexpected data after the value"),
    RejectCase("\"a\"\"b\"", 3, "unexpected data after the value"),
    RejectCase("[1]]", 3, "unexpected data after the value"),
    // Missing separators, unterminated containers.
    RejectCase("{\"a\" 1}", 5, "expected ':' after object key"),
    RejectCase("{\"a\"", 4, "expected ':' after object key"),
    RejectCase("{\"a\",1}", 4, "expected ':' after object key"),
    RejectCase("{\"a\":1 \"b\":2}", 7, "expected ',' or '}'"),
    RejectCase("{\"a\":1", 6, "expected ',' or '}'"),
    RejectCase("{\"a\":{}", 7, "expected ',' or '}'"),
    RejectCase("{\"a\":1]", 6, "expected ',' or '}'"),
    RejectCase("[1 2]", 3, "expected ',' or ']'"),
    RejectCase("[1", 2, "expected ',' or ']'"),
    RejectCase("[[1]", 4, "expected ',' or ']'"),
    RejectCase("[1}", 2, "expected ',' or ']'"),
    RejectCase("[true false]", 6, "expected ',' or ']'"),
    RejectCase("[1:2]", 2, "expected ',' or ']'"),
    RejectCase("{", 1, "expected a string key"),
    RejectCase("{1:2}", 1, "expected a string key"),
    RejectCase("{,}", 1, "expected a string key"),
    RejectCase("{\"a\":1,2}", 7, "expected a string key"),
    RejectCase("{\"a\":1,", 7, "expected a string key"),
    // Strings: termination, control characters, escapes.
    RejectCase("\"abc", 4, "unterminated string"),
    RejectCase("[\"abc", 5, "unterminated string"),
    RejectCase("\"abc\\", 5, "unterminated string"),
    RejectCase("\"\\u12", 5, "unterminated string"),
    RejectCase("\"\\uD800", 7, "unterminated string"),
    RejectCase("\"\\uD800\\", 8, "unterminated string"),
    RejectCase("\"\\uD83D\\uDE00", 13, "unterminated string"),
    RejectCase("\"a long string without its closing quote", 40, "unterminated string"),
    RejectCase("\"a\tb\"", 2, "control character in string"),
    RejectCase("\"\u{00}\"", 1, "control character in string"),
    RejectCase("\"\u{1F}\"", 1, "control character in string"),
    RejectCase("\"0123456789\nabc\"", 11, "control character in string"),
    RejectCase("{\"a\nb\":1}", 3, "control character in string"),
    RejectCase("\"abcdefgh\u{01}ijklmnopqrstuvwxyz\"", 9, "control character in string"),
    RejectCase("\"abcdefghijklmnopqrstuvwxyz\u{1F}0123456789\"", 27, "control character in string"),
    RejectCase("[\"abcdefghijklmnopq\u{7F}\u{0A}rstuvwxyz\"]", 20, "control character in string"),
    RejectCase(#""\x""#, 1, "invalid escape"),
    RejectCase(#""\'""#, 1, "invalid escape"),
    RejectCase(#""\U0041""#, 1, "invalid escape"),
    RejectCase(#""\u12G4""#, 1, "invalid escape"),
    RejectCase(#""\u12""#, 1, "invalid escape"),
    RejectCase(#""abcdefghij\a""#, 11, "invalid escape"),
    RejectCase(#""\uD800\x""#, 7, "invalid escape"),
    RejectCase(#""\uD800\u12""#, 7, "invalid escape"),
    // Lone surrogates in escapes.
    RejectCase(#""\uD800""#, 1, "lone surrogate \\uD800"),
    RejectCase(#""\uDC00""#, 1, "lone surrogate \\uDC00"),
    RejectCase(#""\udfff""#, 1, "lone surrogate \\uDFFF"),
    RejectCase(#""x\uDBFFx""#, 2, "lone surrogate \\uDBFF"),
    RejectCase(#""\uD800\u0041""#, 1, "lone surrogate \\uD800"),
    RejectCase(#""\uD800\uD800""#, 1, "lone surrogate \\uD800"),
    RejectCase(#""\uD800\n""#, 1, "lone surrogate \\uD800"),
    RejectCase(#""\uDE00\uD83D""#, 1, "lone surrogate \\uDE00"),
    RejectCase(#"{"\uD800":1}"#, 2, "lone surrogate \\uD800"),
    // Invalid UTF-8 inside strings.
    RejectCase(bytes: [quote, 0xC0, 0x80, quote], 1, "invalid UTF-8"),
    RejectCase(bytes: [quote, 0xC1, 0xBF, quote], 1, "invalid UTF-8"),
    RejectCase(bytes: [quote, 0xE0, 0x80, 0x80, quote], 1, "invalid UTF-8"),
    RejectCase(bytes: [quote, 0xE0, 0x9F, 0xBF, quote], 1, "invalid UTF-8"),
    RejectCase(bytes: [quote, 0xF0, 0x80, 0x80, 0x80, quote], 1, "invalid UTF-8"),
    RejectCase(bytes: [quote, 0xF0, 0x8F, 0xBF, 0xBF, quote], 1, "invalid UTF-8"),
    RejectCase(bytes: [quote, 0xED, 0xA0, 0x80, quote], 1, "invalid UTF-8"),
    RejectCase(bytes: [quote, 0xED, 0xBF, 0xBF, quote], 1, "invalid UTF-8"),
    RejectCase(bytes: [quote, 0xF4, 0x90, 0x80, 0x80, quote], 1, "invalid UTF-8"),
    RejectCase(bytes: [quote, 0xF5, 0x80, 0x80, 0x80, quote], 1, "invalid UTF-8"),
    RejectCase(bytes: [quote, 0xF8, 0x88, 0x80, 0x80, 0x80, quote], 1, "invalid UTF-8"),
    RejectCase(bytes: [quote, 0xFF, quote], 1, "invalid UTF-8"),
    RejectCase(bytes: [quote, 0x80, quote], 1, "invalid UTF-8"),
    RejectCase(bytes: [quote, 0x61, 0x62, 0xBF, quote], 3, "invalid UTF-8"),
    RejectCase(bytes: [quote, 0xC3, 0xA9, 0xA9, quote], 3, "invalid UTF-8"),
    RejectCase(bytes: [quote, 0xC3, quote], 1, "invalid UTF-8"),
    RejectCase(bytes: [quote, 0xE2, 0x82, quote], 1, "invalid UTF-8"),
    RejectCase(bytes: [quote, 0xF0, 0x9F, 0x98, quote], 1, "invalid UTF-8"),
    RejectCase(bytes: [quote, 0xE2, 0x28, 0xA1, quote], 1, "invalid UTF-8"),
    RejectCase(bytes: [quote] + Array("abcdefghij".utf8) + [0xC3, 0x28, quote], 11, "invalid UTF-8"),
    RejectCase(bytes: [0x7B, quote, 0xC0, 0xAF, quote, 0x3A, 0x31, 0x7D], 2, "invalid UTF-8"),
    RejectCase(bytes: [quote, 0xC3], 2, "unterminated string"),
    RejectCase(bytes: [quote, 0xF0, 0x9F, 0x98], 4, "unterminated string"),
    // Nesting limit.
    RejectCase(String(repeating: "[", count: 65), 64, "nesting deeper than 64 levels"),
    RejectCase(String(repeating: "[", count: 65) + String(repeating: "]", count: 65), 64, "nesting deeper than 64 levels"),
    RejectCase(String(repeating: "[", count: 64) + "{\"a\":1}" + String(repeating: "]", count: 64), 64, "nesting deeper than 64 levels"),
    RejectCase(String(repeating: "{\"a\":", count: 64) + "[]" + String(repeating: "}", count: 64), 320, "nesting deeper than 64 levels"),
    RejectCase("[[[]]]", 2, "nesting deeper than 2 levels", maxDepth: 2),
    RejectCase("[{}]", 1, "nesting deeper than 1 levels", maxDepth: 1),
    RejectCase("[]", 0, "nesting deeper than 0 levels", maxDepth: 0),
]

@Suite("JSONReader rejects invalid documents with exact errors")
struct JSONReaderRejectTests {
    @Test("rejected document", arguments: rejectCases)
    func rejects(_ testCase: RejectCase) {
        var reader = JSONReader(maxDepth: testCase.maxDepth)
        do {
            let kind = try reader.parse(testCase.input) { $0.root.kind }
            Issue.record("accepted as \(kind)")
        } catch let error as JSONError {
            #expect(error == testCase.error)
        } catch {
            Issue.record("unexpected error type \(error)")
        }
    }

    @Test("the error describes itself with reason and offset")
    func description() {
        #expect(JSONError(offset: 3, reason: "trailing comma").description == "trailing comma at byte 3")
    }
}
