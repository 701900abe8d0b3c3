import Foundation
#if canImport(FoundationXML)
import FoundationXML
#endif
import Testing

/// `pushhost check` as a test suite uses it: a real run of real plugins
/// writes a report, and the report is held against expected lines, each
/// kind of mismatch named, with the exit status and a JUnit file to match.
@Suite("pushhost check: golden reports")
struct CheckCommandTests {
    /// Six records: delivered, suppressed, failed, a token event, a line
    /// that is no JSON, and a message without an id of its own.
    static let input = """
        {"message_id":"m-1","data":{"title":"one"}}
        {"message_id":"m-2","data":{"verdict":"suppress"}}
        {"message_id":"m-3","data":{"verdict":"failed"}}
        {"pushhost":"token","token":"t-1"}
        not json
        {"data":{"title":"no id of its own"}}

        """

    /// Runs the host on `input` with a data probe (`filter`) and a
    /// background one (`shown`), and writes its report to `report.ndjson`.
    static func report(_ scratch: Scratch, input: String = input) throws -> String {
        let plugins = try scratch.probe("filter", [.data]) + (try scratch.probe("shown", [.background]))
        let run = try scratch.run(plugins, stdin: input)
        #expect(run.status == 0, "\(run.stderr)")
        return try scratch.write("report.ndjson", run.stdout)
    }

    static func check(_ arguments: [String], stdin: String = "") throws -> Command {
        try Command.pushhost(["check"] + arguments, stdin: stdin)
    }

    @Test func aReportRecordedOnceMatchesItsNextRunAndLeavesOutWhatChanges() throws {
        let scratch = try Scratch()
        let report = try Self.report(scratch)
        let update = try Self.check([report, scratch.file("expected.ndjson"), "--update"])
        #expect(update.status == 0 && update.stdout == "check: wrote 6 expected lines to \(scratch.file("expected.ndjson"))\n", "\(update.stderr)")
        let expected = scratch.read("expected.ndjson").split(separator: "\n").map(String.init)
        #expect(expected.count == 6)
        #expect(!expected.contains { $0.contains("\"source\"") || $0.contains("stdin-") }, "\(expected)")
        #expect(expected[0].hasPrefix(#"{"id":"m-1","target":null,"status":"delivered","route":"background""#))
        #expect(expected[3] == #"{"event":"token","status":"stored"}"#)
        // The next run, its input moved down by a blank line and a record
        // (line numbers and made-up ids change): the same expected lines.
        let next = try Scratch()
        let again = try Self.report(next, input: "\n" + Self.input)
        let check = try Self.check([again, scratch.file("expected.ndjson")])
        #expect(check.status == 0 && check.stdout == "check: all 6 expected lines match, and the report has no other line\n", "\(check.stdout)")
    }

    @Test func aHandWrittenExpectationNamesOnlyWhatMatters() throws {
        let scratch = try Scratch()
        let report = try Self.report(scratch)
        let expected = try scratch.write("expected.ndjson", """
            # what a plugin's author cares about: statuses and one verdict
            {"id":"m-1","status":"delivered","ui":["shown"]}
            {"id":"m-2","status":"suppressed","data":[{"plugin":"filter","verdict":"suppress"}]}
            {"id":"m-3","status":"failed"}
            {"event":"token","status":"stored"}
            {"status":"rejected"}
            {"status":"delivered"}

            """)
        let check = try Self.check([report, expected, "--junit", scratch.file("junit.xml")])
        #expect(check.status == 0, "\(check.stdout)\(check.stderr)")
        let junit = scratch.read("junit.xml")
        #expect(junit.contains(#"<testsuites tests="7" failures="0">"#) && Self.isWellFormed(junit), "\(junit)")
    }

    /// Each kind of mismatch: a line missing, a line not expected, a wrong
    /// status, a wrong field deep in a line, and a line out of order; exit
    /// 5, each said with its line numbers, and a JUnit case failing for each.
    @Test func eachKindOfMismatchIsSaidWithWhereAndWhy() throws {
        let scratch = try Scratch()
        let report = try Self.report(scratch)
        let expected = try scratch.write("expected.ndjson", """
            {"id":"m-1","status":"delivered"}
            {"id":"m-3","status":"delivered"}
            {"id":"m-2","status":"suppressed"}
            {"id":"m-4","status":"delivered"}
            {"event":"token","status":"stored"}
            {"status":"delivered","data":[{"plugin":"filter","verdict":"suppress"}]}

            """)
        let check = try Self.check([report, expected, "--junit", scratch.file("junit.xml")])
        #expect(check.status == 5)
        #expect(check.stdout == """
            expected line 2 (id "m-3"), report line 3:
              status: expected "delivered", got "failed"
              the report line: \(Self.line(report, 3))
            expected line 3 (id "m-2"): out of order: report line 2 has it, before the lines that earlier expected lines took
            expected line 4 (id "m-4"): not in the report
            expected line 6 ({"status":"delivered","data":[{"plugin":"filter","verdict":"suppress"}]}), report line 6:
              data[0].verdict: expected "suppress", got "continue"
              the report line: \(Self.line(report, 6))
            report line 5: not expected: \(Self.line(report, 5))
            check: 2 of 6 expected lines match; 3 differ; 1 not in the report; 1 report line not expected

            """, "\(check.stdout)")
        let junit = scratch.read("junit.xml")
        #expect(junit.contains(#"<testsuites tests="7" failures="5">"#) && Self.isWellFormed(junit), "\(junit)")
        #expect(junit.contains(#"<testcase classname="pushhost.check" name="line 4: m-4">"#))
        #expect(junit.contains(#"<failure message="1 report line not expected">"#))
    }

    @Test func theReportMayComeOnStandardInput() throws {
        let scratch = try Scratch()
        let report = scratch.read((try Self.report(scratch) as NSString).lastPathComponent)
        let expected = try scratch.write("expected.ndjson", #"{"id":"m-9"}"# + "\n")
        let check = try Self.check(["-", expected], stdin: report)
        #expect(check.status == 5 && check.stdout.contains(#"expected line 1 (id "m-9"): not in the report"#))
    }

    /// A sender controls ids and texts that end up in the report: markup,
    /// quotes and control characters stay text in the JUnit file.
    @Test func hostileTextInTheReportKeepsTheJUnitFileWellFormed() throws {
        let scratch = try Scratch()
        let hostile = #"{"message_id":"<x a=\"1\">&amp;]]>\u0001\u001b'","data":{"title":"t"}}"# + "\n"
        let report = try Self.report(scratch, input: hostile)
        let expected = try scratch.write("expected.ndjson", #"{"status":"failed"}"# + "\n")
        let check = try Self.check([report, expected, "--junit", scratch.file("junit.xml")])
        #expect(check.status == 5)
        let junit = scratch.read("junit.xml")
        #expect(Self.isWellFormed(junit), "\(junit)")
        #expect(junit.contains("&lt;x a=\\&quot;1\\&quot;&gt;&amp;amp;]]&gt;") && !junit.contains("\u{1}"), "\(junit)")
    }

    @Test func filesThatCannotBeUsedAreSetupErrorsAndFlagsThatDisagreeUsageErrors() throws {
        let scratch = try Scratch()
        let report = try Self.report(scratch)
        let missing = try Self.check([report, scratch.file("nope.ndjson")])
        #expect(missing.status == 1 && missing.stderr.contains("error pushhost: \(scratch.file("nope.ndjson")): cannot read: No such file or directory"))
        let bad = try scratch.write("bad.ndjson", "{\"id\":\"m-1\"}\n[1]\n")
        let badCheck = try Self.check([report, bad])
        #expect(badCheck.status == 1 && badCheck.stderr.contains("error pushhost: \(bad) line 2: not a JSON object"), "\(badCheck.stderr)")
        let both = try Self.check([report, bad, "--update", "--junit", scratch.file("j.xml")])
        #expect(both.status == 2 && both.stderr.contains("--update writes EXPECTED; --junit has nothing to say then"))
    }

    /// Line `number` (from 1) of the file at `path`.
    static func line(_ path: String, _ number: Int) -> String {
        let text = (try? String(contentsOfFile: path, encoding: .utf8)) ?? ""
        return String(text.split(separator: "\n")[number - 1])
    }

    static func isWellFormed(_ xml: String) -> Bool {
        XMLParser(data: Data(xml.utf8)).parse()
    }
}
