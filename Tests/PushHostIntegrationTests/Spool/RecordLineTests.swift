import Foundation
import Testing

/// How a spool file splits into records, and where the report, NAME.error.json
/// and the log say each one is: by its line in the file.
@Suite struct RecordLineTests {
    /// Runs the host until `name`, dropped with `contents`, is out of new/.
    static func handle(_ name: String, _ contents: String) throws -> (Scratch, HostProcess) {
        let scratch = try Scratch()
        let spool = scratch.spool
        let host = try scratch.startWatching(try scratch.probe("bg", [.background]))
        try spool.drop(name, contents)
        let done = eventually(timeout: .seconds(20)) { spool.names("new").isEmpty && !(spool.names("cur") + spool.failedFiles).isEmpty }
        try #require(done, "new/ holds \(spool.names("new"))\n\(host.stderr)")
        let exit = host.stop()
        #expect(exit == .status(0), "\(host.stderr)")
        return (scratch, host)
    }

    /// Log lines naming `name`.
    static func logged(_ host: HostProcess, _ name: String) -> [Substring] {
        host.stderr.split(separator: "\n").filter { $0.contains("spool file \(name)") }
    }

    @Test func emptyFileIsReportedAndLogged() throws {
        let (scratch, host) = try Self.handle("empty", "")
        #expect(scratch.spool.failedFiles == ["empty"])
        let problems = try #require(try scratch.spool.errorReport("empty")["records"] as? [[String: Any]])
        #expect(problems.map { $0["error"] as? String } == ["empty file: no record"])
        let report = try scratch.reportLines()
        #expect(report.count == 1)
        #expect(report.first?.sourceFile == "empty")
        #expect(report.first?["status"] as? String == "rejected")
        #expect(report.first?["error"] as? String == "empty file: no record")
        let log = Self.logged(host, "empty")
        #expect(log.count == 1 && log[0].contains("empty file: no record"), "\(host.stderr)")
    }

    /// Blank lines count: a bad record on line 4 after two blank lines is line 4.
    @Test func blankLinesKeepTheLineNumbers() throws {
        let (scratch, host) = try Self.handle(
            "lines", ndjson(#"{"data":{"n":"1"}}"#, "", "", #"{"data": nope}"#, #"{"data":{"n":"5"}}"#))
        #expect(scratch.probeCalls() == ["bg background lines#1", "bg background lines#5"])
        let report = try scratch.reportLines()
        #expect(report.map(\.sourceLine) == [1, 4, 5])
        #expect(report.map { $0["status"] as? String } == ["delivered", "rejected", "delivered"])
        let problems = try #require(try scratch.spool.errorReport("lines")["records"] as? [[String: Any]])
        #expect(problems.map { $0["line"] as? Int } == [4])
        #expect(problems.first?["record"] == nil)
        let log = Self.logged(host, "lines")
        #expect(log.count == 1 && log[0].contains("spool file lines, line 4, byte 10: invalid literal"), "\(host.stderr)")
    }

    /// A file whose first line is not a whole JSON value is one document:
    /// its mistake is reported once, on the line where it is.
    @Test func badDocumentOverSeveralLinesIsReportedOnceWhereTheMistakeIs() throws {
        let document = """
            {
              "notification": {
                "title": "Hello",
              },
              "data": {"k": "v"}
            }

            """
        let (scratch, host) = try Self.handle("pretty.json", document)
        #expect(scratch.spool.failedFiles == ["pretty.json"])
        #expect(scratch.probeCalls().isEmpty)
        let offset = Array(document.utf8).firstIndex(of: UInt8(ascii: "}"))!
        let report = try scratch.reportLines()
        try #require(report.count == 1, "\(report)")
        #expect(report[0].sourceLine == 4)
        #expect(report[0]["error"] as? String == "byte \(offset): trailing comma")
        let problems = try #require(try scratch.spool.errorReport("pretty.json")["records"] as? [[String: Any]])
        #expect(problems.map { $0["line"] as? Int } == [4])
        let log = Self.logged(host, "pretty.json")
        #expect(log.count == 1 && log[0].contains("line 4, byte \(offset): trailing comma"), "\(host.stderr)")
    }
}
