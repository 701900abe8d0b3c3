import Testing

@testable import PushHostSystem

/// What `LogEscape` makes of each kind of character a log line must not carry raw.
@Suite struct LogEscapeTests {
    @Test(arguments: [
        ("plain text, quotes \" and ünïcödé 🙂", "plain text, quotes \" and ünïcödé 🙂"),
        ("bogus\nERROR forged", #"bogus\nERROR forged"#),
        ("a\r\nb\tc", #"a\r\nb\tc"#),
        ("\u{1b}[31mred\u{1b}[0m", #"\x1b[31mred\x1b[0m"#),
        ("nul\u{0}bell\u{7}del\u{7f}", #"nul\x00bell\x07del\x7f"#),
        ("next\u{85}line csi\u{9b}2J", #"next\u{85}line csi\u{9b}2J"#),
        ("before\u{80}\u{9f}after\u{a0}", "before\\u{80}\\u{9f}after\u{a0}"),
        ("ls\u{2028}ps\u{2029}", #"ls\u{2028}ps\u{2029}"#),
        (#"lone surrogate \uD800, a\nb"#, #"lone surrogate \uD800, a\nb"#),
        ("replacement \u{fffd} stays", "replacement \u{fffd} stays"),
        ("", ""),
    ])
    func escapes(_ text: String, _ expected: String) {
        #expect(LogEscape.escaped(text) == expected)
    }

    /// Whatever goes in, what comes out holds no line break and no control character.
    @Test func everyControlCharacterIsEscaped() {
        let values: [UInt32] = Array(0..<0x20) + [0x7f] + Array(0x80...0x9f) + [0x2028, 0x2029]
        var text = ""
        text.unicodeScalars.append(contentsOf: values.compactMap(Unicode.Scalar.init))
        let escaped = LogEscape.escaped(text)
        #expect(escaped.unicodeScalars.allSatisfy { (0x20..<0x7f).contains($0.value) })
        #expect(escaped.hasPrefix(#"\x00\x01"#))
        #expect(escaped.hasSuffix(#"\u{9f}\u{2028}\u{2029}"#))
    }
}
