import Foundation
import Testing

/// Bad input never stops the host and never passes silently: each bad line
/// is rejected with its line number, byte offset and reason, on stderr and
/// in the report, and the next good line is delivered.
@Suite struct BadInputTests {
    struct Case: Sendable, CustomTestStringConvertible {
        let label: String
        let line: [UInt8]
        /// `byte N: reason`, as the report's error says it.
        let error: String
        var testDescription: String { label }

        init(_ label: String, _ line: String, _ error: String) {
            self.init(label, Array(line.utf8), error)
        }

        init(_ label: String, _ line: [UInt8], _ error: String) {
            self.label = label
            self.line = line
            self.error = error
        }
    }

    static let before = #"{"message_id":"before","data":{}}"#
    static let after = #"{"message_id":"after","data":{}}"#

    /// `levels` objects nested in one another.
    static func nested(_ levels: Int) -> String {
        String(repeating: #"{"a":"#, count: levels - 1) + "{}" + String(repeating: "}", count: levels - 1)
    }

    static let cases: [Case] = [
        Case("not JSON", "hello", "byte 0: expected a value"),
        Case("cut short", #"{"data":{"k":"v"}"#, "byte 17: expected ',' or '}'"),
        Case("an array", "[1,2]", "byte 0: not a JSON object (each record is one object)"),
        Case("a string", #""text""#, "byte 0: not a JSON object (each record is one object)"),
        Case("a number", "42", "byte 0: not a JSON object (each record is one object)"),
        Case("null", "null", "byte 0: not a JSON object (each record is one object)"),
        Case("65 levels", nested(65), "byte 320: nesting deeper than 64 levels"),
        Case("invalid UTF-8 in a string", Array(#"{"t":""#.utf8) + [0xFF] + Array(#""}"#.utf8), "byte 6: invalid UTF-8"),
        Case("overlong UTF-8", Array(#"{"t":"ok ""#.utf8).dropLast() + [0xC0, 0xAF] + Array(#""}"#.utf8), "byte 9: invalid UTF-8"),
        Case("UTF-8 encoded surrogate", Array(#"{"t":""#.utf8) + [0xED, 0xA0, 0x80] + Array(#""}"#.utf8), "byte 6: invalid UTF-8"),
        Case("invalid UTF-8 in a key", Array(#"{""#.utf8) + [0xFE] + Array(#"":1}"#.utf8), "byte 2: invalid UTF-8"),
        Case("Latin-1 text", Array(#"{"t":"caf"#.utf8) + [0xE9] + Array(#""}"#.utf8), "byte 9: invalid UTF-8"),
        Case("lone high surrogate", #"{"data":{"t":"\ud800"}}"#, #"byte 14: lone surrogate \uD800"#),
        Case("lone low surrogate", #"{"t":"\udc00\ud800"}"#, #"byte 6: lone surrogate \uDC00"#),
        Case("trailing comma in an object", #"{"data":{"a":1,}}"#, "byte 15: trailing comma"),
        Case("trailing comma in an array", #"{"a":[1,]}"#, "byte 8: trailing comma"),
        Case("two objects on one line", "{}{}", "byte 2: unexpected data after the value"),
        Case("single quotes", "{'a':1}", "byte 1: single quotes are not allowed"),
    ]

    @Test(arguments: cases)
    func rejectsTheLineAndGoesOn(_ bad: Case) throws {
        let scratch = try Scratch()
        let input = Data((Self.before + "\n").utf8) + Data(bad.line) + Data(("\n" + Self.after + "\n").utf8)
        let result = try scratch.run(try scratch.probe("bg", [.background]), input: input)
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.errorLines.filter { $0.contains("rejected") } == ["error pushhost: rejected line 2, \(bad.error)"], "\(result.stderr)")
        let report = try result.report()
        try #require(report.count == 3, "\(result.stdout)")
        let rejected = report[1]
        #expect(rejected["status"] as? String == "rejected")
        #expect(rejected["error"] as? String == bad.error)
        #expect(rejected["id"] is NSNull)
        #expect(rejected["target"] is NSNull)
        #expect(rejected["route"] as? String == "none")
        #expect(rejected["ui"] as? [String] == [])
        #expect((rejected["source"] as? [String: Any])?["line"] as? Int == 2)
        #expect(report.map { $0["status"] as? String } == ["delivered", "rejected", "delivered"])
        #expect(scratch.probeCalls() == ["bg background before", "bg background after"])
    }

    @Test func sixtyFourLevelsAreAccepted() throws {
        let scratch = try Scratch()
        let result = try scratch.run(try scratch.probe("bg", [.background]), stdin: Self.nested(64) + "\n")
        #expect(result.status == 0, "\(result.stderr)")
        #expect(!result.stderr.contains("rejected"))
        #expect(try result.report().first?["status"] as? String == "delivered")
        #expect(scratch.probeCalls() == ["bg background stdin-1"])
    }

    /// `{"k":"xx…"}` exactly `length` bytes long.
    static func record(length: Int) -> String {
        #"{"k":""# + String(repeating: "x", count: length - 8) + #""}"#
    }

    @Test func lineOverMaxBytesIsRejected() throws {
        let scratch = try Scratch()
        let input = [
            Self.record(length: 100) + "\n",
            Self.record(length: 101) + "\n",
            Self.record(length: 100) + "\r\n",
            Self.record(length: 5000) + "\n",
            Self.after,
        ].joined()
        let result = try scratch.run(try scratch.probe("bg", [.background]) + ["--max-bytes", "100"], stdin: input)
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.errorLines.filter { $0.contains("rejected") } == [
            "error pushhost: rejected line 2, byte 100: longer than --max-bytes 100",
            "error pushhost: rejected line 4, byte 100: longer than --max-bytes 100",
        ], "\(result.stderr)")
        let report = try result.report()
        #expect(report.map { $0["status"] as? String } == ["delivered", "rejected", "delivered", "rejected", "delivered"])
        #expect(report[1]["error"] as? String == "byte 100: longer than --max-bytes 100")
        #expect(scratch.probeCalls() == ["bg background stdin-1", "bg background stdin-3", "bg background after"])
    }

    /// A line far longer than the default limit (and than the host's read
    /// block) is skipped without losing count of the lines after it.
    @Test func hugeLineIsSkippedAndCounted() throws {
        let scratch = try Scratch()
        let input = Self.before + "\n" + Self.record(length: 3 << 20) + "\n" + Self.after + "\n"
        let result = try scratch.run(try scratch.probe("bg", [.background]), stdin: input)
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.errorLines.filter { $0.contains("rejected") } == ["error pushhost: rejected line 2, byte 65536: longer than --max-bytes 65536"])
        let report = try result.report()
        #expect(report.map { $0["status"] as? String } == ["delivered", "rejected", "delivered"])
        #expect((report.last?["source"] as? [String: Any])?["line"] as? Int == 3)
        #expect(scratch.probeCalls() == ["bg background before", "bg background after"])
    }

    @Test func blankLinesCRLFAndNoFinalNewlineAreFine() throws {
        let scratch = try Scratch()
        let input = "\n{\"data\":{}}\r\n   \n{\"data\":{}}\r\n\r\n\t\n{\"data\":{}}"
        let result = try scratch.run(try scratch.probe("bg", [.background]), stdin: input)
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stderr.isEmpty, "\(result.stderr)")
        let report = try result.report()
        #expect(report.map { $0["id"] as? String } == ["stdin-2", "stdin-4", "stdin-7"])
        #expect(report.map { ($0["source"] as? [String: Any])?["line"] as? Int } == [2, 4, 7])
        #expect(report.allSatisfy { $0["status"] as? String == "delivered" })
        #expect(scratch.probeCalls() == ["bg background stdin-2", "bg background stdin-4", "bg background stdin-7"])
    }

    struct EventCase: Sendable, CustomTestStringConvertible {
        let record: String
        let event: String?
        let reason: String
        var testDescription: String { record }
    }

    @Test(arguments: [
        EventCase(record: #"{"pushhost":"reboot"}"#, event: nil, reason: #"unknown host event "reboot" (known: token, foreground, background, action)"#),
        EventCase(record: #"{"pushhost":7}"#, event: nil, reason: #""pushhost" must be a string naming the event"#),
        EventCase(record: #"{"pushhost":"token"}"#, event: "token", reason: #"a token event needs "token": a string (or null, to remove the stored one)"#),
        EventCase(record: #"{"pushhost":"token","token":""}"#, event: "token", reason: "the token is empty"),
        EventCase(record: #"{"pushhost":"foreground"}"#, event: "foreground", reason: #"a foreground event needs "screens" (top first) or "screen""#),
        EventCase(record: #"{"pushhost":"foreground","screens":"s1"}"#, event: "foreground", reason: #""screens" must be an array of screen names, top first"#),
    ])
    func malformedHostEventIsRejected(_ bad: EventCase) throws {
        let scratch = try Scratch()
        let plugins = try scratch.probe("bg", [.background, .token]) + scratch.probe("s1", [.foreground], targets: ["a"])
        let result = try scratch.run(plugins, stdin: ndjson(bad.record, Self.after))
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.errorLines.filter { $0.contains("rejected") } == ["error pushhost: rejected line 1: \(bad.reason)"], "\(result.stderr)")
        let report = try result.report()
        try #require(report.count == 2)
        #expect(report[0]["status"] as? String == "rejected")
        #expect(report[0]["event"] as? String == bad.event)
        #expect(report[0]["error"] as? String == bad.reason)
        #expect(scratch.probeCalls() == ["bg background after"])
    }
}
