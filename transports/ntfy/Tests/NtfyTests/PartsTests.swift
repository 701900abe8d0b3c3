import Testing

@testable import Ntfy

/// The plugin's parts on their own: lines, the fields it reads, the
/// backoff, the settings it accepts.
@Suite struct PartsTests {
    static func split(_ chunks: [String], maxLine: Int = 8) -> ([LineSplitter.Piece], Int) {
        var splitter = LineSplitter(maxLine: maxLine)
        var pieces: [LineSplitter.Piece] = []
        for chunk in chunks {
            Array(chunk.utf8).withUnsafeBytes { splitter.feed($0) { pieces.append($0) } }
        }
        return (pieces, splitter.unfinished)
    }

    static func line(_ text: String) -> LineSplitter.Piece { .line(Array(text.utf8)) }

    @Test func linesAreCutAtNewlinesAcrossChunks() {
        let (pieces, unfinished) = Self.split(["ab", "c\nde\r", "\n\nf"])
        #expect(pieces == [Self.line("abc"), Self.line("de"), Self.line("")])
        #expect(unfinished == 1)
    }

    /// A line of max_line bytes is kept; one byte more is skipped with its
    /// whole size, counted across chunks; the next line is whole.
    @Test func aLineOverTheBoundIsSkippedWithItsSize() {
        let (pieces, unfinished) = Self.split(["12345678\n123", "456789", "0123\nok\n"])
        #expect(pieces == [Self.line("12345678"), .oversized(13), Self.line("ok")])
        #expect(unfinished == 0)
        let (endless, left) = Self.split(Array(repeating: "xxxxxx", count: 1000))
        #expect(endless.isEmpty && left == 6000)
    }

    static func fields(_ text: String) -> RecordFields? { RecordFields.scan(Array(text.utf8)) }

    @Test func theTopLevelIDEventAndTimeAreRead() throws {
        let fields = try #require(Self.fields(#"{"id":"abc123","time":1700000000,"event":"message","topic":"t","message":"x \"id\":\"no\"","extra":{"id":"nested"}}"#))
        #expect(fields.id == Array("abc123".utf8))
        #expect(fields.isMessage && !fields.isOpen)
        #expect(fields.time == 1_700_000_000)
        #expect(Self.fields(#" {"event":"open","time":5} "#)?.isOpen == true)
    }

    /// Not one object, malformed, too deep, or an id given twice: no id.
    @Test(arguments: [
        "not json", "[1,2]", #""id""#, #"{"id":"a""#, #"{"id":"a",}"#, #"{"id":"a"} {"id":"b"}"#, #"{"id":"a","x":01}"#,
        #"{"id":"a","x":"\q"}"#, "{\"id\":\"a\u{1}\"}", #"{"id":"a","x":tru}"#,
        "{\"id\":\"a\",\"x\":" + String(repeating: "[", count: 64) + String(repeating: "]", count: 64) + "}",
    ])
    func aLineThatIsNotOneObjectHasNoFields(_ text: String) {
        #expect(Self.fields(text) == nil)
    }

    @Test func anIDGivenTwiceOrNotAsAStringIsNone() throws {
        #expect(try #require(Self.fields(#"{"id":"a","id":"b","event":"message"}"#)).id == nil)
        #expect(try #require(Self.fields(#"{"id":5,"event":"message"}"#)).id == nil)
        let deep = "{\"id\":\"a\",\"x\":" + String(repeating: "[", count: 62) + String(repeating: "]", count: 62) + "}"
        #expect(try #require(Self.fields(deep)).id == Array("a".utf8))
    }

    @Test func onlyLettersAndDigitsMakeAnID() {
        #expect(Settings.isMessageID(Array("aZ09".utf8)))
        #expect(Settings.isMessageID(Array(String(repeating: "a", count: 64).utf8)))
        for bad in ["", String(repeating: "a", count: 65), "a-b", "a&since=all", "a/b", "\\u0041", "é"] {
            #expect(!Settings.isMessageID(Array(bad.utf8)), "\(bad)")
        }
    }

    /// Each wait is between half and all of min × 2ⁿ, up to max; a reset starts over.
    @Test func theBackoffDoublesWithJitterUpToItsMaximum() {
        var backoff = Backoff(min: 0.5, max: 30)
        var waits: [Double] = []
        for _ in 0..<70 { waits.append(backoff.next()) }
        for (step, wait) in waits.enumerated() {
            let ceiling = min(30, 0.5 * Double(1 << min(step, 62)))
            #expect(wait >= ceiling / 2 && wait <= ceiling, "step \(step): \(wait)")
        }
        #expect(waits.suffix(10).allSatisfy { $0 >= 15 })
        backoff.reset()
        #expect(backoff.next() <= 0.5)
    }

    @Test func goodSettingsAreNormalized() throws {
        let values = ["url": "HTTPS://ntfy.example.org:8443/base//", "topic": "my_topic-1"]
        let settings = try Settings { values[$0] }
        #expect(settings.url == "https://ntfy.example.org:8443/base")
        #expect(settings.streamURL(since: nil) == "https://ntfy.example.org:8443/base/my_topic-1/json")
        #expect(settings.streamURL(since: "abc") == "https://ntfy.example.org:8443/base/my_topic-1/json?since=abc")
        #expect(settings.firstSince == nil && settings.backoffMin == 0.5 && settings.backoffMax == 30)
        #expect(settings.maxLine == 1 << 20 && settings.retries == 5 && settings.idleTimeout == 120)
        let v6 = ["url": "http://[::1]:8080", "topic": "t", "since": "all"]
        #expect(try Settings { v6[$0] }.firstSince == "all")
    }
}
