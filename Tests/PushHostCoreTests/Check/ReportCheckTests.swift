import Testing
@testable import PushHostSystem
@testable import PushHostCheck

/// How `pushhost check` pairs expected lines with report lines and what it
/// calls a difference, on lines written here.
@Suite("Report check: pairing and differences")
struct ReportCheckTests {
    static func check(_ expected: [String], _ report: [String]) -> ReportCheck {
        ReportCheck(expected: NumberedLine.lines(of: expected.joined(separator: "\n"), comments: true),
                    report: NumberedLine.lines(of: report.joined(separator: "\n"), comments: false))
    }

    /// A short name for each finding, in order.
    static func kinds(_ check: ReportCheck) -> [String] {
        check.findings.map {
            switch $0 {
            case .matched(let e, let r): "matched \(e.number)-\(r.number)"
            case .differs(let e, let r, let d): "differs \(e.number)-\(r.number) " + d.map(\.path).joined(separator: ",")
            case .outOfOrder(let e, let r, _): "late \(e.number)-\(r.number)"
            case .missing(let e): "missing \(e.number)"
            case .unexpected(let r): "unexpected \(r.number)"
            }
        }
    }

    static let report = [
        #"{"id":"m-1","status":"delivered","data":[{"plugin":"a","verdict":"continue"}],"source":{"kind":"stdin","line":1}}"#,
        #"{"event":"token","status":"stored","source":{"kind":"stdin","line":2}}"#,
        #"{"id":"m-2","status":"failed","data":[{"plugin":"a","verdict":"failed"}],"source":{"kind":"stdin","line":3}}"#,
        #"{"id":"stdin-4","status":"undelivered","source":{"kind":"stdin","line":4}}"#,
    ]

    @Test func onlyTheNamedFieldsAreComparedAtAnyDepth() {
        let check = Self.check([#"{"id":"m-1","data":[{"verdict":"continue"}]}"#, #"{"event":"token"}"#,
                                #"{"id":"m-2","status":"failed"}"#, #"{"status":"undelivered"}"#], Self.report)
        #expect(Self.kinds(check) == ["matched 1-1", "matched 2-2", "matched 3-3", "matched 4-4"])
        #expect(check.passed)
    }

    @Test func eachKindOfMismatchIsNamed() {
        let check = Self.check([
            "# comments and blank lines are left out", "",
            #"{"id":"m-1","status":"suppressed"}"#,        // wrong status
            #"{"id":"m-9"}"#,                              // missing
            #"{"id":"m-2","data":[{"verdict":"continue"}]}"#, // wrong field, deep
            #"{"id":"m-1"}"#,                              // out of order: taken already? no: m-1 twice is missing
        ], Self.report)
        #expect(Self.kinds(check) == ["differs 3-1 status", "missing 4", "differs 5-3 data[0].verdict", "missing 6",
                                      "unexpected 2", "unexpected 4"])
        #expect(!check.passed)
        #expect(check.text.contains(#"status: expected "suppressed", got "delivered""#))
        #expect(check.text.hasSuffix("check: 0 of 4 expected lines match; 2 differ; 2 not in the report; 2 report lines not expected\n"))
    }

    @Test func anIdFoundOnlyBeforeTheLinesTakenIsOutOfOrder() {
        let check = Self.check([#"{"id":"m-2"}"#, #"{"id":"m-1"}"#], Array(Self.report.prefix(3)))
        #expect(Self.kinds(check) == ["matched 1-3", "late 2-1", "unexpected 2"])
    }

    @Test func aLineWithoutIdTakesTheNextOfItsKind() {
        // The expected token event passes over the message before it, which is then not expected.
        let check = Self.check([#"{"event":"token","status":"stored"}"#, #"{"id":"m-2"}"#], Self.report)
        #expect(Self.kinds(check) == ["matched 1-2", "matched 2-3", "unexpected 1", "unexpected 4"])
    }

    @Test func numbersByValueArraysByLengthAndAbsentFields() {
        func paths(_ expected: String, _ actual: String) -> [String] {
            guard case .success(let e) = JSONTree.parse(expected), case .success(let a) = JSONTree.parse(actual) else { return ["?"] }
            return FieldDifference.between(expected: e, actual: a).map(\.description)
        }
        #expect(paths(#"{"n":1}"#, #"{"n":1.0}"#).isEmpty)
        #expect(paths(#"{"n":1e2}"#, #"{"n":100}"#).isEmpty)
        #expect(paths(#"{"ui":["a"]}"#, #"{"ui":["a","b"]}"#) == [#"ui: expected ["a"], got ["a","b"]"#])
        #expect(paths(#"{"error":null}"#, #"{}"#) == ["error: expected null, the line has no such field"])
        #expect(paths(#"{"s":"1"}"#, #"{"s":1}"#) == [#"s: expected "1", got 1"#])
    }

    @Test func reportLinesThatAreNoJSONAreUnexpectedNeverTaken() {
        let check = Self.check([#"{"status":"rejected"}"#], ["not json", #"{"status":"rejected"}"#, "[1]"])
        #expect(Self.kinds(check) == ["matched 1-2", "unexpected 1", "unexpected 3"])
        #expect(check.text.contains("report line 1: not expected: no JSON object (byte 1: invalid literal)"))
        #expect(check.text.contains("report line 3: not expected: no JSON object (not a JSON object)"))
    }

    @Test func expectedLinesLeaveOutWhatChangesFromRunToRun() {
        let lines = NumberedLine.lines(of: [
            #"{"id":"stdin-4","status":"undelivered","source":{"kind":"stdin","line":4}}"#,
            #"{"id":"m-1","status":"delivered","source":{"kind":"stdin","line":5}}"#,
            #"{"id":"x.json#2","status":"delivered","source":{"kind":"spool","file":"x.json","line":2}}"#,
            #"{"id":"feed-3","source":{"kind":"plugin","plugin":"feed","record":3}}"#,
            #"{"event":"action","id":"m-1","retained_at":1795000000.5,"status":"applied","source":{"kind":"stdin","line":6}}"#,
            "oops",
        ].joined(separator: "\n"), comments: false)
        #expect(lines.map(\.expectedLine) == [
            #"{"status":"undelivered"}"#, #"{"id":"m-1","status":"delivered"}"#, #"{"status":"delivered"}"#, "{}",
            #"{"event":"action","id":"m-1","status":"applied"}"#, "# report line 6: no JSON object (byte 0: expected a value)",
        ])
    }

    @Test func junitEscapesWhatXMLCannotHold() {
        #expect(ReportCheck.xml("a<b>&\"c'\u{1}\t") == "a&lt;b&gt;&amp;&quot;c&apos;\u{FFFD}\t")
        let junit = Self.check([#"{"id":"m-1","status":"failed"}"#], [Self.report[0]]).junit(suite: "e.ndjson")
        #expect(junit.contains(#"<testsuites tests="2" failures="1">"#))
        #expect(junit.contains(#"<testcase classname="pushhost.check" name="line 1: m-1">"#))
        #expect(junit.contains(#"<testcase classname="pushhost.check" name="no other report line"/>"#))
    }
}
