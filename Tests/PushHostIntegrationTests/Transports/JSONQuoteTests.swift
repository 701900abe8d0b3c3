import Foundation
import Testing

/// The one JSON string quoting that the transport plugins and the sample
/// plugins write with (`transports/common/json.h`), run on hostile bytes
/// through `Tests/Fixtures/transports/json_quote.c`: whatever comes in,
/// what comes out is valid JSON that says the same text.
struct JSONQuoteTests {
    /// Quotes each of `inputs` (none may hold a NUL: the C side takes C
    /// strings) and returns one line per input.
    static func quote(_ inputs: [[UInt8]]) throws -> [String] {
        let program = try TransportBuild.program("transports/json_quote.c", libraries: [])
        let run = try Command.run(program, [], input: Data(inputs.map { $0 + [0] }.joined()))
        try #require(run.status == 0, "\(run.rawStderr)")
        return run.stdout.split(separator: "\n", omittingEmptySubsequences: false).dropLast().map(String.init)
    }

    static let cases: [(label: String, input: [UInt8], quoted: String)] = [
        ("plain", Array("hello".utf8), #""hello""#),
        ("quote and backslash", Array(#"say "hi" \ bye"#.utf8), #""say \"hi\" \\ bye""#),
        ("short escapes", [0x08, 0x0C, 0x0A, 0x0D, 0x09], #""\b\f\n\r\t""#),
        ("other controls", [0x01, 0x1B, 0x1F], #""\u0001\u001b\u001f""#),
        ("DEL and slash pass", [0x7F, 0x2F], "\"\u{7F}/\""),
        ("UTF-8 passes", Array("é € 😀 \u{2028}".utf8), "\"é € 😀 \u{2028}\""),
        ("stray continuation", [0x61, 0x80, 0x62], #""a\ufffdb""#),
        ("cut off at the end", [0x61, 0xE2, 0x82], #""a\ufffd""#),
        ("cut off before ASCII", [0xF0, 0x9F, 0x98, 0x22], #""\ufffd\"""#),
        ("overlong", [0xC0, 0xAF, 0xE0, 0x80, 0xAF], #""\ufffd\ufffd\ufffd\ufffd\ufffd""#),
        ("surrogate", [0xED, 0xA0, 0x80], #""\ufffd\ufffd\ufffd""#),
        ("past U+10FFFF", [0xF4, 0x90, 0x80, 0x80, 0xF5, 0xFF], #""\ufffd\ufffd\ufffd\ufffd\ufffd\ufffd""#),
        ("largest", [0xF4, 0x8F, 0xBF, 0xBF], "\"\u{10FFFF}\""),
        ("empty", [], #""""#),
    ]

    @Test func escapesWhatJSONForbidsAndReplacesWhatIsNotUTF8() throws {
        let lines = try Self.quote(Self.cases.map(\.input))
        try #require(lines.count == Self.cases.count, "\(lines)")
        for (line, item) in zip(lines, Self.cases) {
            #expect(line == item.quoted, "\(item.label)")
        }
    }

    /// Seeded random bytes, biased toward the ones UTF-8 and JSON treat
    /// specially: each output parses as a JSON string equal to Swift's own
    /// decoding of the input (U+FFFD for each maximal ill-formed subpart).
    @Test func randomBytesComeOutAsTheSameTextInValidJSON() throws {
        var state: UInt64 = 0x31
        func next() -> UInt64 { // splitmix64
            state &+= 0x9E37_79B9_7F4A_7C15
            var z = state
            z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
            z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
            return z ^ (z >> 31)
        }
        let special: [UInt8] = [0x01, 0x0A, 0x1F, 0x22, 0x5C, 0x7F, 0x80, 0x8F, 0x9F, 0xA0, 0xBF, 0xC0, 0xC1, 0xC2,
                                0xDF, 0xE0, 0xED, 0xEF, 0xF0, 0xF4, 0xF5, 0xFF]
        let inputs: [[UInt8]] = (0..<2000).map { _ in
            (0..<Int(next() % 12)).map { _ in
                let r = next()
                return r % 2 == 0 ? special[Int(r / 2 % UInt64(special.count))] : UInt8(1 + r / 2 % 255)
            }
        }
        let lines = try Self.quote(inputs)
        try #require(lines.count == inputs.count)
        for (line, input) in zip(lines, inputs) {
            let parsed = try? JSONSerialization.jsonObject(with: Data(line.utf8), options: .fragmentsAllowed) as? String
            #expect(parsed == String(decoding: input, as: UTF8.self), "\(input) -> \(line)")
        }
    }
}
