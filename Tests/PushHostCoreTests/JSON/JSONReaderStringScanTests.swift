import Testing
@testable import PushHostSystem
@testable import PushHostJSON

/// The string scan steps over plain ASCII 16 bytes at a time, then one at
/// a time: each kind of byte that ends a plain run is placed at every
/// offset of strings long enough to cross those steps, and must be found there.
@Suite("JSONReader string scan at every offset")
struct JSONReaderStringScanTests {
    /// `{"k":"` then `text`, closed; the string's first byte is at offset 6.
    static func document(_ text: [UInt8]) -> [UInt8] {
        Array(#"{"k":""#.utf8) + text + Array(#""}"#.utf8)
    }

    static let offsets = Array(0..<40)

    @Test("a plain string of every length ends at its quote", arguments: offsets)
    func plain(_ length: Int) throws {
        var reader = JSONReader()
        let text = Array(repeating: UInt8(ascii: "a"), count: length)
        let value = try reader.parse(Self.document(text)) { $0.root.member(named: "k")!.rawBytes.count }
        #expect(value == length)
    }

    @Test("an escape is found and resolved", arguments: offsets)
    func escape(_ offset: Int) throws {
        var reader = JSONReader()
        let text = Array(repeating: UInt8(ascii: "a"), count: offset) + Array(#"\n"#.utf8) + Array(repeating: UInt8(ascii: "b"), count: 20)
        let value = try reader.parse(Self.document(text)) { document in
            let value = document.root.member(named: "k")!
            return (value.isEscaped, value.unescaped)
        }
        #expect(value.0)
        #expect(value.1 == Array(repeating: UInt8(ascii: "a"), count: offset) + [0x0A] + Array(repeating: UInt8(ascii: "b"), count: 20))
    }

    @Test("UTF-8 is validated and kept", arguments: offsets)
    func utf8(_ offset: Int) throws {
        var reader = JSONReader()
        let text = Array(repeating: UInt8(ascii: "a"), count: offset) + Array("é€😀".utf8) + Array(repeating: UInt8(ascii: "b"), count: 20)
        let bytes = try reader.parse(Self.document(text)) { Array($0.root.member(named: "k")!.rawBytes) }
        #expect(bytes == text)
    }

    /// A byte a string may not hold, and why.
    static let refusedBytes: [(byte: UInt8, reason: String)] = [
        (0x09, JSONError.controlCharacter),
        (0xFF, JSONError.invalidUTF8),
    ]

    @Test("a byte a string may not hold is rejected at its offset", arguments: refusedBytes, offsets)
    func refusedByte(_ refused: (byte: UInt8, reason: String), _ offset: Int) {
        var reader = JSONReader()
        let text = Array(repeating: UInt8(ascii: "a"), count: offset) + [refused.byte] + Array(repeating: UInt8(ascii: "b"), count: 20)
        #expect(throws: JSONError(offset: 6 + offset, reason: refused.reason)) {
            try reader.parse(Self.document(text)) { _ in }
        }
    }

    @Test("a string cut short by the end of the input", arguments: offsets)
    func unterminated(_ offset: Int) {
        var reader = JSONReader()
        let input = Array(#"{"k":""#.utf8) + Array(repeating: UInt8(ascii: "a"), count: offset)
        #expect(throws: JSONError(offset: input.count, reason: JSONError.unterminatedString)) {
            try reader.parse(input) { _ in }
        }
    }
}
