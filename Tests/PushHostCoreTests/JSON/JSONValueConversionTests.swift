import Testing
@testable import PushHostSystem
@testable import PushHostJSON

@Suite("JSONValue unescaping and compact output")
struct JSONValueConversionTests {
    /// A JSON string literal and the UTF-8 its value must unescape to.
    struct UnescapeCase: Sendable, CustomTestStringConvertible {
        let json: String
        let expected: [UInt8]
        init(_ json: String, _ expected: String) { self.init(json, Array(expected.utf8)) }
        init(_ json: String, _ expected: [UInt8]) {
            self.json = json
            self.expected = expected
        }
        var testDescription: String { json }
    }

    static let unescapeCases: [UnescapeCase] = [
        UnescapeCase(#""plain""#, "plain"),
        UnescapeCase(#""""#, ""),
        UnescapeCase(#""a\"b\\c\/d""#, "a\"b\\c/d"),
        UnescapeCase(#""\b\f\n\r\t""#, [0x08, 0x0C, 0x0A, 0x0D, 0x09]),
        UnescapeCase(#""\u0000""#, [0x00]),
        UnescapeCase(#""x\u0000y""#, [0x78, 0x00, 0x79]),
        UnescapeCase(#""\u0041\u00e9\u20AC\uFFFF""#, "Aé€\u{FFFF}"),
        UnescapeCase(#""\u07FF\u0800""#, "\u{7FF}\u{800}"),
        UnescapeCase(#""\uD83D\uDE00""#, [0xF0, 0x9F, 0x98, 0x80]),
        UnescapeCase(#""\uDBFF\uDFFF""#, [0xF4, 0x8F, 0xBF, 0xBF]),
        UnescapeCase(#""\uD800\uDC00""#, "\u{10000}"),
        UnescapeCase(#""é\n€😀 and more text after the escape""#, "é\n€😀 and more text after the escape"),
        UnescapeCase(#""\\\\""#, "\\\\"),
        UnescapeCase(#""\\u0041""#, "\\u0041"),
    ]

    @Test("unescape appends the decoded UTF-8", arguments: unescapeCases)
    func unescape(_ testCase: UnescapeCase) throws {
        var reader = JSONReader()
        let out = try reader.parse(testCase.json) { document in
            var out: [UInt8] = [0xAA]
            document.root.appendUnescaped(to: &out)
            return out
        }
        #expect(out == [0xAA] + testCase.expected)
    }

    @Test("unescaping a non-string appends its raw text")
    func unescapeNonString() throws {
        var reader = JSONReader()
        #expect(try reader.parse("[ -12.5e3 ]") { Array($0.root.elements)[0].unescaped } == Array("-12.5e3".utf8))
    }

    /// A document and its compact form.
    struct CompactCase: Sendable, CustomTestStringConvertible {
        let json: String
        let compact: String
        var testDescription: String { json }
    }

    static let compactCases: [CompactCase] = [
        CompactCase(json: #" { "a b" : "c \" d" , "e" : [ 1 , { } , [ ] , " " ] } "#,
                    compact: #"{"a b":"c \" d","e":[1,{},[]," "]}"#),
        CompactCase(json: "\t[\r\n true ,false,\tnull , -1.5E+3 ]\n", compact: "[true,false,null,-1.5E+3]"),
        CompactCase(json: #"{"k\u0065y" : "\uD83D\uDE00\n"}"#, compact: #"{"k\u0065y":"\uD83D\uDE00\n"}"#),
        CompactCase(json: "[ [ [ ] ] , { \"x\" : { } } ]", compact: "[[[]],{\"x\":{}}]"),
        CompactCase(json: "  12  ", compact: "12"),
        CompactCase(json: " \"  spaced  \" ", compact: "\"  spaced  \""),
        CompactCase(json: "{}", compact: "{}"),
    ]

    @Test("compact output drops only insignificant whitespace", arguments: compactCases)
    func compact(_ testCase: CompactCase) throws {
        var reader = JSONReader()
        #expect(try reader.parse(testCase.json) { $0.root.compact } == testCase.compact)
    }

    @Test("compact output of a nested value")
    func compactNested() throws {
        var reader = JSONReader()
        let text = #"{ "a" : 1 , "b" : { "c" : [ 1 , "two" , { "d" : null } ] } , "e" : 2 }"#
        let (member, string) = try reader.parse(text) { document in
            let b = document.root.member(named: "b")
            return (b?.compact, b?.member(named: "c").map { Array($0.elements)[1].compact })
        }
        #expect(member == #"{"c":[1,"two",{"d":null}]}"#)
        #expect(string == #""two""#)
    }
}
