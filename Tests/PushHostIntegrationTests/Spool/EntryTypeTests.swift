import Foundation
import Testing

/// An entry of new/ that is not a regular file (a FIFO, a symbolic link, a
/// directory) is never read: it goes to failed/ as it is, with the reason in
/// NAME.error.json, one report line and one log line, and the host goes on.
@Suite struct EntryTypeTests {
    /// The one problem `failed/NAME.error.json` lists, and the file's one report line.
    static func expectRefused(_ scratch: Scratch, _ name: String, reason: String, log: String) throws {
        let report = try scratch.spool.errorReport(name)
        #expect(report["file"] as? String == name)
        let problems = try #require(report["records"] as? [[String: Any]], "\(report)")
        #expect(problems.count == 1, "\(problems)")
        #expect(problems.first?["status"] as? String == "rejected")
        #expect(problems.first?["error"] as? String == reason)
        #expect(problems.first?["line"] == nil, "\(problems)")
        let lines = try scratch.reportLines().lines(of: name)
        #expect(lines.count == 1, "\(lines)")
        #expect(lines.first?["status"] as? String == "rejected")
        #expect(lines.first?["error"] as? String == reason)
        #expect((lines.first?["source"] as? [String: Any])?["kind"] as? String == "spool")
        let logged = log.split(separator: "\n").filter { $0.contains("spool file \(name)") }
        #expect(logged.count == 1, "\(log)")
        #expect(logged.first?.contains(reason) == true, "\(log)")
    }

    /// The host does not block on a FIFO (which no one writes): the file
    /// after it is handled, and SIGTERM still stops the host.
    @Test func fifoIsRefusedAndTheHostGoesOn() throws {
        let scratch = try Scratch()
        let spool = scratch.spool
        let host = try scratch.startWatching(try scratch.probe("bg", [.background]))
        try spool.dropFIFO("pipe")
        try spool.drop("after.json", #"{"data":{}}"#)
        let done = eventually(timeout: .seconds(20)) { spool.names("cur") == ["after.json"] && spool.failedFiles == ["pipe"] }
        try #require(done, "new/ holds \(spool.names("new"))\n\(host.stderr)")
        let exit = host.stop()
        #expect(exit == .status(0), "\(host.stderr)")
        #expect(!spool.isFile("failed", "pipe"), "the FIFO was replaced by a file")
        try Self.expectRefused(scratch, "pipe", reason: "not a regular file: a FIFO", log: host.stderr)
        #expect(scratch.probeCalls() == ["bg background after.json"])
    }

    /// A symbolic link in new/ is not followed: what it points to is never read.
    @Test func symbolicLinkIsNotFollowed() throws {
        let scratch = try Scratch()
        let spool = scratch.spool
        let host = try scratch.startWatching(try scratch.probe("bg", [.background]))
        let secret = try scratch.write("secret.json", #"{"data":{"secret":"yes"}}"#)
        let temporary = spool.folder("tmp") + "/link"
        try FileManager.default.createSymbolicLink(atPath: temporary, withDestinationPath: secret)
        #expect(rename(temporary, spool.folder("new") + "/link") == 0)
        let done = eventually(timeout: .seconds(20)) { spool.failedFiles == ["link"] }
        try #require(done, "new/ holds \(spool.names("new")), cur/ \(spool.names("cur"))\n\(host.stderr)")
        let exit = host.stop()
        #expect(exit == .status(0), "\(host.stderr)")
        let target = try FileManager.default.destinationOfSymbolicLink(atPath: spool.folder("failed") + "/link")
        #expect(target == secret)
        try Self.expectRefused(scratch, "link", reason: "not a regular file: a symbolic link (not followed)", log: host.stderr)
        #expect(scratch.probeCalls().isEmpty)
    }

    /// A directory, and a symbolic link to one, present at start are not
    /// passed over forever: they go to failed/ like any refused entry.
    @Test func directoriesPresentAtStartGoToFailed() throws {
        let scratch = try Scratch()
        let spool = scratch.spool
        try spool.create()
        try FileManager.default.createDirectory(atPath: spool.folder("new") + "/folder", withIntermediateDirectories: false)
        try FileManager.default.createSymbolicLink(atPath: spool.folder("new") + "/to-folder", withDestinationPath: scratch.path)
        let host = try scratch.startWatching(try scratch.probe("bg", [.background]))
        try spool.drop("last.json", #"{"data":{}}"#)
        let done = eventually(timeout: .seconds(20)) { spool.names("cur") == ["last.json"] && spool.failedFiles.count == 2 }
        try #require(done, "new/ holds \(spool.names("new"))\n\(host.stderr)")
        let exit = host.stop()
        #expect(exit == .status(0), "\(host.stderr)")
        #expect(spool.failedFiles == ["folder", "to-folder"])
        #expect(spool.names("new").isEmpty)
        try Self.expectRefused(scratch, "folder", reason: "not a regular file: a directory", log: host.stderr)
        try Self.expectRefused(scratch, "to-folder", reason: "not a regular file: a symbolic link (not followed)", log: host.stderr)
        #expect(scratch.probeCalls() == ["bg background last.json"])
    }
}
