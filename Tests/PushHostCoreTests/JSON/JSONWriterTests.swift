import Testing
@testable import PushHostJSON
@testable import PushHostSystem

@Suite("JSONWriter string literals")
struct JSONWriterTests {
    /// A string and the JSON literal it must be written as.
    struct WriteCase: Sendable, CustomTestStringConvertible {
        let string: String
        let json: String
        var testDescription: String { json }
    }

    static let writeCases: [WriteCase] = [
        WriteCase(string: "", json: #""""#),
        WriteCase(string: "plain text", json: #""plain text""#),
        WriteCase(string: "a\"b", json: #""a\"b""#),
        WriteCase(string: "a\\b", json: #""a\\b""#),
        WriteCase(string: "/ stays", json: #""/ stays""#),
        WriteCase(string: "\n\r\t\u{08}\u{0C}", json: #""\n\r\t\b\f""#),
        WriteCase(string: "\u{00}\u{01}\u{1F}\u{1B}", json: #""\u0000\u0001\u001f\u001b""#),
        WriteCase(string: "\u{7F}", json: "\"\u{7F}\""),
        WriteCase(string: "é€😀 ünïcödé", json: "\"é€😀 ünïcödé\""),
        WriteCase(string: "\"\"", json: #""\"\"""#),
        WriteCase(string: "end\n", json: #""end\n""#),
    ]

    @Test("String input", arguments: writeCases)
    func writeString(_ testCase: WriteCase) {
        var out: [UInt8] = Array("x=".utf8)
        JSONWriter.appendString(testCase.string, to: &out)
        #expect(String(decoding: out, as: UTF8.self) == "x=" + testCase.json)
    }

    @Test("UTF-8 bytes input", arguments: writeCases)
    func writeBytes(_ testCase: WriteCase) {
        var out: [UInt8] = []
        Array(testCase.string.utf8).withUnsafeBytes { JSONWriter.appendString($0, to: &out) }
        #expect(out == Array(testCase.json.utf8))
    }

    @Test("every ASCII byte round-trips through the reader")
    func roundTrip() throws {
        let original = (0..<0x80).map(UInt8.init) + Array("é€😀".utf8)
        var out: [UInt8] = []
        original.withUnsafeBytes { JSONWriter.appendString($0, to: &out) }
        var reader = JSONReader()
        let (kind, decoded) = try reader.parse(out) { ($0.root.kind, $0.root.unescaped) }
        #expect(kind == .string)
        #expect(decoded == original)
    }

    /// The writer checks eight bytes at a time: a byte to escape at every
    /// place of a long run, each kind of it, is still escaped, written into
    /// an array and into a `ByteBuffer` alike.
    @Test("a byte to escape anywhere in a long run", arguments: [UInt8(ascii: "\""), UInt8(ascii: "\\"), 0x0A, 0x01, 0x1F])
    func escapeAnywhere(_ special: UInt8) {
        for place in 0..<24 {
            var input = Array("abcdefghijklmnopqrstuvwx".utf8)
            input[place] = special
            var expected = Array(input[..<place].map { $0 })
            switch special {
            case UInt8(ascii: "\""): expected += Array(#"\""#.utf8)
            case UInt8(ascii: "\\"): expected += Array(#"\\"#.utf8)
            case 0x0A: expected += Array(#"\n"#.utf8)
            default: expected += Array(String(format: "\\u%04x", Int(special)).utf8)
            }
            expected = [UInt8(ascii: "\"")] + expected + input[(place + 1)...] + [UInt8(ascii: "\"")]
            var array: [UInt8] = []
            var buffer = ByteBuffer()
            input.withUnsafeBytes {
                JSONWriter.appendString($0, to: &array)
                JSONWriter.appendString($0, to: &buffer)
            }
            #expect(array == expected, "\(place)")
            #expect(Array(buffer.bytes) == expected, "\(place)")
        }
    }

    /// High bytes (UTF-8 past ASCII) in a long run never count as a byte to escape.
    @Test func highBytesPassWhole() {
        let text = String(repeating: "é€\u{FF}ÿ", count: 6)
        var out: [UInt8] = []
        JSONWriter.appendString(text, to: &out)
        #expect(out == [UInt8(ascii: "\"")] + Array(text.utf8) + [UInt8(ascii: "\"")])
    }
}
