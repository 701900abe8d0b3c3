import Foundation
import Testing

/// Names as the file system holds them: bytes that need not be UTF-8 are
/// handled like any others, and a name is never reused in cur/ or failed/.
@Suite struct NameTests {
    /// `caf` and the Latin-1 byte of `é`: not UTF-8.
    static let latin1: [UInt8] = Array("caf".utf8) + [0xE9]
    /// How the host prints it.
    static let printed = #"caf\xe9"#

    @Test func nameThatIsNotUTF8IsHandledUnderItsOwnBytes() throws {
        let scratch = try Scratch()
        let spool = scratch.spool
        let host = try scratch.startWatching(try scratch.probe("bg", [.background]))
        let bad = Self.latin1 + Array("-bad".utf8)
        try spool.drop(bytes: Self.latin1, #"{"data":{"k":"v"}}"#)
        try spool.drop(bytes: bad, #"{"data": nope}"#)
        let done = eventually(timeout: .seconds(20)) { spool.rawNames("new").isEmpty }
        try #require(done, "\(host.stderr)")
        let exit = host.stop()
        #expect(exit == .status(0), "\(host.stderr)")
        #expect(spool.rawNames("cur") == [Self.latin1])
        #expect(spool.rawNames("failed") == [bad, bad + Array(".error.json".utf8)])
        #expect(scratch.probeCalls() == ["bg background \(Self.printed)"])
        let report = try scratch.reportLines()
        #expect(report.map(\.sourceFile) == [Self.printed, Self.printed + "-bad"])
        #expect(report.map { $0["status"] as? String } == ["delivered", "rejected"])
        #expect(report.first?["id"] as? String == Self.printed)
        let errorFile = try #require(spool.contents("failed", bytes: bad + Array(".error.json".utf8)))
        let problems = try #require(try JSONSerialization.jsonObject(with: errorFile) as? [String: Any])
        #expect(problems["file"] as? String == Self.printed + "-bad")
        #expect(host.stderr.contains("rejected spool file \(Self.printed)-bad"), "\(host.stderr)")
    }

    /// A name that is in cur/ or failed/ already is never overwritten: the
    /// file takes NAME.1, and its error file NAME.1.error.json.
    @Test func secondFileOfTheSameNameTakesANumberedName() throws {
        let scratch = try Scratch()
        let spool = scratch.spool
        let host = try scratch.startWatching(try scratch.probe("bg", [.background]))
        for (round, expected) in [(1, ["same"]), (2, ["same", "same.1"])] {
            try spool.drop("same", #"{"data":{"round":"\#(round)"}}"#)
            try spool.drop("bad", "not JSON \(round)")
            let done = eventually(timeout: .seconds(20)) { spool.names("cur") == expected && spool.failedFiles == expected.map { $0.replacingOccurrences(of: "same", with: "bad") } }
            try #require(done, "cur/ \(spool.names("cur")), failed/ \(spool.names("failed"))\n\(host.stderr)")
        }
        let exit = host.stop()
        #expect(exit == .status(0), "\(host.stderr)")
        #expect(spool.contents("cur", "same") == Data(#"{"data":{"round":"1"}}"#.utf8))
        #expect(spool.contents("cur", "same.1") == Data(#"{"data":{"round":"2"}}"#.utf8))
        #expect(spool.names("failed") == ["bad", "bad.1", "bad.1.error.json", "bad.error.json"])
        #expect(spool.contents("failed", "bad.1") == Data("not JSON 2".utf8))
        #expect(try spool.errorReport("bad.1")["file"] as? String == "bad")
        #expect(host.stderr.contains("moved under the name bad.1"), "\(host.stderr)")
    }

    /// A symbolic link planted where NAME.error.json goes is never followed:
    /// what it points to keeps its contents, and the file takes NAME.1.
    @Test func plantedLinkAtTheErrorFileIsNotFollowed() throws {
        let scratch = try Scratch()
        let spool = scratch.spool
        try spool.create()
        let precious = try scratch.write("precious", "keep me\n")
        try FileManager.default.createSymbolicLink(atPath: spool.folder("failed") + "/bad.error.json", withDestinationPath: precious)
        let host = try scratch.startWatching([])
        try spool.drop("bad", "not JSON")
        let done = eventually(timeout: .seconds(20)) { spool.names("new").isEmpty }
        try #require(done, "\(host.stderr)")
        let exit = host.stop()
        #expect(exit == .status(0), "\(host.stderr)")
        #expect(scratch.read("precious") == "keep me\n")
        #expect(spool.names("failed") == ["bad.1", "bad.1.error.json", "bad.error.json"])
        let problems = try #require(try spool.errorReport("bad.1")["records"] as? [[String: Any]])
        #expect(problems.count == 1)
        let mode = try FileManager.default.attributesOfItem(atPath: spool.folder("failed") + "/bad.1.error.json")[.posixPermissions] as? Int
        #expect(mode == 0o600)
    }

    /// A crash between writing NAME.error.json and moving NAME leaves the
    /// error file alone in failed/: the retry writes it again and the file
    /// keeps its own name.
    @Test func anErrorFileLeftByACrashIsWrittenAgain() throws {
        let scratch = try Scratch()
        let spool = scratch.spool
        try spool.create()
        try Data("{\"file\":\"bad\",\"records\":[]}\n".utf8).write(to: URL(fileURLWithPath: spool.folder("failed") + "/bad.error.json"))
        try spool.drop("bad", "not JSON")
        let host = try scratch.startWatching([])
        let done = eventually(timeout: .seconds(20)) { spool.names("new").isEmpty }
        try #require(done, "\(host.stderr)")
        #expect(host.stop() == .status(0), "\(host.stderr)")
        #expect(spool.names("failed") == ["bad", "bad.error.json"])
        let problems = try #require(try spool.errorReport("bad")["records"] as? [[String: Any]])
        #expect(problems.count == 1)
    }
}
