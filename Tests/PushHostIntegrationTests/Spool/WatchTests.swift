import Foundation
import Testing

/// What the watch notices beyond files renamed into new/: files copied or
/// written straight into it, and the spool itself going away.
@Suite struct WatchTests {
    /// A file copied with `cp`, or written in place, is taken once closed,
    /// and once only.
    @Test func fileCopiedOrWrittenIntoNewIsTakenOnce() throws {
        let scratch = try Scratch()
        let spool = scratch.spool
        let host = try scratch.startWatching(try scratch.probe("bg", [.background]))
        let payload = try scratch.write("payload.json", #"{"data":{"via":"cp"}}"#)
        let copied = try Command.run("/bin/cp", [payload, spool.folder("new") + "/copied.json"])
        try #require(copied.status == 0, "\(copied.stderr)")
        let written = try Command.run("/bin/sh", ["-c", #"printf '{"data":{"via":"sh"}}' > "$1""#, "sh", spool.folder("new") + "/written.json"])
        try #require(written.status == 0, "\(written.stderr)")
        let done = eventually(timeout: .seconds(20)) { spool.names("cur") == ["copied.json", "written.json"] }
        try #require(done, "new/ holds \(spool.names("new"))\n\(host.stderr)")
        let exit = host.stop()
        #expect(exit == .status(0), "\(host.stderr)")
        #expect(scratch.probeCalls().sorted() == ["bg background copied.json", "bg background written.json"])
        let report = try scratch.reportLines()
        #expect(report.compactMap(\.sourceFile).sorted() == ["copied.json", "written.json"])
        #expect(spool.contents("cur", "copied.json") == Data(#"{"data":{"via":"cp"}}"#.utf8))
    }

    /// The spool deleted while the host runs: it says so, makes the layout
    /// again, and handles the files dropped after.
    @Test func deletedSpoolIsMadeAgainAndWatched() throws {
        let scratch = try Scratch()
        let spool = scratch.spool
        let host = try scratch.startWatching(try scratch.probe("bg", [.background]))
        try spool.drop("before.json", #"{"data":{}}"#)
        let before = eventually(timeout: .seconds(20)) { spool.names("cur") == ["before.json"] }
        try #require(before, "\(host.stderr)")
        // rm may fail at the end (the host can make the folders again before rm removes the spool itself).
        _ = try Command.run("/bin/rm", ["-rf", spool.path])
        let remade = eventually(timeout: .seconds(20)) { spool.names("") == ["cur", "failed", "new", "tmp"] }
        try #require(remade, "the spool holds \(spool.names(""))\n\(host.stderr)")
        try spool.drop("after.json", #"{"data":{}}"#)
        let after = eventually(timeout: .seconds(20)) { spool.names("cur").contains("after.json") }
        try #require(after, "new/ holds \(spool.names("new"))\n\(host.stderr)")
        let exit = host.stop()
        #expect(exit == .status(0), "\(host.stderr)")
        #expect(host.stderr.contains("warning pushhost: spool \(spool.path): it or one of its folders was deleted"), "\(host.stderr)")
        #expect(scratch.probeCalls() == ["bg background before.json", "bg background after.json"])
    }
}
