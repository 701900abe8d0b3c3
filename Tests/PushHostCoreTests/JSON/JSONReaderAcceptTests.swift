import Testing
@testable import PushHostSystem
@testable import PushHostJSON

/// A document the reader must accept, with the root kind and tape length it must produce.
struct AcceptCase: Sendable, CustomTestStringConvertible {
    let input: [UInt8]
    let kind: JSONKind
    let tokens: Int
    let maxDepth: Int

    init(_ text: String, _ kind: JSONKind, tokens: Int = 1, maxDepth: Int = 64) {
        input = Array(text.utf8)
        self.kind = kind
        self.tokens = tokens
        self.maxDepth = maxDepth
    }

    var testDescription: String {
        let text = String(decoding: input, as: UTF8.self)
        return text.count > 60 ? String(text.prefix(57)) + "..." : text
    }
}

let acceptCases: [AcceptCase] = [
    // Every kind at top level, empty containers and strings.
    AcceptCase("{}", .object),
    AcceptCase("[]", .array),
    AcceptCase("\"\"", .string),
    AcceptCase("true", .true),
    AcceptCase("false", .false),
    AcceptCase("null", .null),
    AcceptCase("[1,\"a\",true,false,null,{},[]]", .array, tokens: 8),
    AcceptCase("{\"a\":1,\"b\":\"x\",\"c\":true,\"d\":false,\"e\":null,\"f\":{},\"g\":[]}", .object, tokens: 15),
    AcceptCase("[[],{},[[]],{\"\":{}}]", .array, tokens: 8),
    // Numbers.
    AcceptCase("0", .number),
    AcceptCase("-0", .number),
    AcceptCase("7", .number),
    AcceptCase("-123", .number),
    AcceptCase("1.5", .number),
    AcceptCase("-0.0", .number),
    AcceptCase("0.000001", .number),
    AcceptCase("1e10", .number),
    AcceptCase("1E10", .number),
    AcceptCase("1e+10", .number),
    AcceptCase("1e-10", .number),
    AcceptCase("-1.5E-3", .number),
    AcceptCase("0e0", .number),
    AcceptCase("10E007", .number),
    AcceptCase("123456789012345678901234567890123456789", .number),
    AcceptCase("-1.7976931348623157e308", .number),
    AcceptCase("1e400", .number),
    AcceptCase("[0,-0,1,-1,0.5,-0.5e-5]", .array, tokens: 7),
    // Strings: escapes, surrogate pairs, raw multibyte UTF-8 of 2, 3 and 4 bytes.
    AcceptCase(#""\" \\ \/ \b \f \n \r \t""#, .string),
    AcceptCase(#""\u0000\u001f\u0041\u00e9\u20AC\uFFFF""#, .string),
    AcceptCase(#""\uD83D\uDE00 \ud83d\ude00 \uDBFF\uDFFF \uD800\uDC00""#, .string),
    AcceptCase("\"é ß €  😀 𝄞\"", .string),
    AcceptCase("\"\u{80}\u{7FF}\u{800}\u{D7FF}\u{E000}\u{FFFD}\u{FFFF}\u{10000}\u{10FFFF}\"", .string),
    AcceptCase("\"\u{7F} DEL is not a control character\"", .string),
    AcceptCase("\"a long ASCII string that spans several eight byte words\"", .string),
    AcceptCase("\"0123456\\\"01234567\\\\0123456é01234567😀\"", .string),
    AcceptCase("[\"é\",\"€\",\"😀\"]", .array, tokens: 4),
    // Whitespace everywhere it is allowed.
    AcceptCase(" \t\n\r{ \"a\" \t:\n[ 1 , 2 ,{ } , [ ] ] ,\r\"b\" : null }\r\n \t", .object, tokens: 9),
    AcceptCase("\n\n 42 \n", .number),
    AcceptCase("[ ]", .array),
    AcceptCase("{\r\n}", .object),
    // Nesting exactly at the limit.
    AcceptCase(String(repeating: "[", count: 64) + String(repeating: "]", count: 64), .array, tokens: 64),
    AcceptCase(String(repeating: "{\"a\":", count: 63) + "[1]" + String(repeating: "}", count: 63), .object, tokens: 128),
    AcceptCase("[[1]]", .array, tokens: 3, maxDepth: 2),
    AcceptCase("1", .number, maxDepth: 0),
]

@Suite("JSONReader accepts RFC 8259 documents")
struct JSONReaderAcceptTests {
    @Test("accepted document", arguments: acceptCases)
    func accepts(_ testCase: AcceptCase) throws {
        var reader = JSONReader(maxDepth: testCase.maxDepth)
        let (kind, tokens, length, inputCount) = try reader.parse(testCase.input) { document in
            (document.root.kind, document.tape.count, document.root.subtreeEnd, document.input.count)
        }
        #expect(kind == testCase.kind)
        #expect(tokens == testCase.tokens)
        #expect(length == testCase.tokens)
        #expect(inputCount == testCase.input.count)
    }

    @Test("compact form re-parses to the same tape shape", arguments: acceptCases)
    func compactRoundTrip(_ testCase: AcceptCase) throws {
        var reader = JSONReader(maxDepth: testCase.maxDepth)
        let (compact, shape) = try reader.parse(testCase.input) { document in
            var out: [UInt8] = []
            document.root.appendCompact(to: &out)
            return (out, document.tape.map { [$0.kind.rawValue, UInt8($0.count), $0.isEscaped ? 1 : 0] })
        }
        let reparsed = try reader.parse(compact) { document in
            document.tape.map { [$0.kind.rawValue, UInt8($0.count), $0.isEscaped ? 1 : 0] }
        }
        #expect(reparsed == shape)
        #expect(!compact.contains(UInt8(ascii: "\n")))
    }

    @Test("tape layout of a small document")
    func tapeLayout() throws {
        var reader = JSONReader()
        let tape = try reader.parse(#"{"a":[1,true],"b":"x\n"}"#) { Array($0.tape) }
        #expect(tape == [
            JSONToken(start: 0, end: 24, next: 7, count: 2, kind: .object, isEscaped: false),
            JSONToken(start: 2, end: 3, next: 2, count: 0, kind: .string, isEscaped: false),
            JSONToken(start: 5, end: 13, next: 5, count: 2, kind: .array, isEscaped: false),
            JSONToken(start: 6, end: 7, next: 4, count: 0, kind: .number, isEscaped: false),
            JSONToken(start: 8, end: 12, next: 5, count: 0, kind: .true, isEscaped: false),
            JSONToken(start: 15, end: 16, next: 6, count: 0, kind: .string, isEscaped: false),
            JSONToken(start: 19, end: 22, next: 7, count: 0, kind: .string, isEscaped: true),
        ])
    }
}
