import Foundation
import Testing

/// A file with a rejected or failed record goes to failed/, with
/// NAME.error.json beside it naming each bad record and why.
@Suite struct FailedFileTests {
    /// Runs the host on a spool holding `files` (dropped while it watches,
    /// in order) with `plugins`, until every one is out of new/.
    static func handle(_ files: [(String, String)], plugins: (Scratch) throws -> [String]) throws -> Scratch {
        let scratch = try Scratch()
        let spool = scratch.spool
        let host = try scratch.startWatching(try plugins(scratch))
        for (name, contents) in files { try spool.drop(name, contents) }
        let names = Set(files.map(\.0))
        let done = eventually(timeout: .seconds(20)) {
            names.isSubset(of: Set(spool.names("cur") + spool.failedFiles))
        }
        try #require(done, "still in new/: \(spool.names("new"))\n\(host.stderr)")
        let exit = host.stop()
        #expect(exit == .status(0), "\(host.stderr)")
        #expect(spool.names("new").isEmpty)
        return scratch
    }

    static func background(_ scratch: Scratch) throws -> [String] {
        try scratch.probe("bg", [.background])
    }

    /// The records listed by `failed/NAME.error.json`, after checking its `file`.
    static func problems(_ scratch: Scratch, _ name: String) throws -> [[String: Any]] {
        let report = try scratch.spool.errorReport(name)
        #expect(report["file"] as? String == name)
        return try #require(report["records"] as? [[String: Any]], "\(report)")
    }

    @Test func fileThatIsNotJSONGoesToFailedWithTheReason() throws {
        let scratch = try Self.handle([("bad.json", #"{"data": nope}"#), ("good.json", #"{"data":{}}"#)], plugins: Self.background)
        let spool = scratch.spool
        #expect(spool.failedFiles == ["bad.json"])
        #expect(spool.names("failed") == ["bad.json", "bad.json.error.json"])
        #expect(spool.names("cur") == ["good.json"])
        #expect(spool.contents("failed", "bad.json") == Data(#"{"data": nope}"#.utf8))
        let problems = try Self.problems(scratch, "bad.json")
        try #require(problems.count == 1, "\(problems)")
        #expect(problems[0]["status"] as? String == "rejected")
        let reason = try #require(problems[0]["error"] as? String)
        #expect(reason == "byte 10: invalid literal", "\(reason)")
        // A file of one record lists the line of its mistake.
        #expect(problems[0]["line"] as? Int == 1)
        #expect(scratch.probeCalls() == ["bg background good.json"])
        let report = try scratch.reportLines()
        let bad = try #require(report.first { $0.sourceFile == "bad.json" })
        #expect(bad["status"] as? String == "rejected")
        #expect(bad["error"] as? String == reason)
    }

    @Test func fileThatIsNotAnObjectOrEmptyGoesToFailed() throws {
        let scratch = try Self.handle([("array", "[1,2]\n"), ("empty", "")], plugins: Self.background)
        #expect(scratch.spool.failedFiles == ["array", "empty"])
        #expect(scratch.spool.names("cur").isEmpty)
        let array = try Self.problems(scratch, "array")
        #expect(array.map { $0["status"] as? String } == ["rejected"])
        #expect((array.first?["error"] as? String)?.contains("object") == true, "\(array)")
        let empty = try Self.problems(scratch, "empty")
        #expect(empty.map { $0["status"] as? String } == ["rejected"])
        #expect((empty.first?["error"] as? String)?.contains("no record") == true, "\(empty)")
        #expect(scratch.probeCalls().isEmpty)
    }

    /// The good record is still delivered; the file goes to failed/ because of the bad one.
    @Test func oneGoodAndOneBadRecordNamesTheBadOne() throws {
        let scratch = try Self.handle(
            [("mixed", ndjson(#"{"data":{"n":"1"}}"#, #"{"data":"#))], plugins: Self.background)
        let spool = scratch.spool
        #expect(spool.failedFiles == ["mixed"])
        #expect(spool.names("cur").isEmpty)
        let problems = try Self.problems(scratch, "mixed")
        try #require(problems.count == 1, "\(problems)")
        #expect(problems[0]["line"] as? Int == 2)
        #expect(problems[0]["status"] as? String == "rejected")
        #expect((problems[0]["error"] as? String)?.isEmpty == false)
        #expect(scratch.probeCalls() == ["bg background mixed#1"])
        let report = try scratch.reportLines()
        #expect(report.map { $0["status"] as? String } == ["delivered", "rejected"])
        #expect(report.map(\.sourceLine) == [1, 2])
    }

    /// A record a data plugin answers failed is a failed record too.
    @Test func recordThatFailsInAPluginSendsTheFileToFailed() throws {
        let scratch = try Self.handle(
            [("answered", ndjson(#"{"data":{"n":"1"}}"#, #"{"data":{"verdict":"failed"}}"#))],
            plugins: { try $0.probe("d", [.data]) + $0.probe("bg", [.background]) })
        #expect(scratch.spool.failedFiles == ["answered"])
        let problems = try Self.problems(scratch, "answered")
        try #require(problems.count == 1, "\(problems)")
        #expect(problems[0]["line"] as? Int == 2)
        #expect(problems[0]["status"] as? String == "failed")
        #expect(problems[0]["error"] as? String == "d gave the verdict failed")
        #expect(scratch.probeCalls() == ["d data answered#1", "bg background answered#1", "d data answered#2"])
    }
}
