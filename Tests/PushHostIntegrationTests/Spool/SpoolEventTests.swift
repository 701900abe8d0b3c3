import Foundation
import Testing

/// Host events from the spool: the operator's own files may hold them
/// (`--spool-events on`, the default); a file another local user wrote,
/// or any file with `--spool-events off`, may hold messages only.
@Suite struct SpoolEventTests {
    /// The report line of the spool file `name`.
    static func line(_ report: [[String: Any]], file name: String) -> [String: Any]? {
        report.first { (($0["source"] as? [String: Any])?["file"] as? String) == name }
    }

    /// Runs the host over what `new/` holds, with `arguments`, and stops it once every file left new/.
    static func runOver(_ scratch: Scratch, _ arguments: [String]) throws -> [[String: Any]] {
        let host = try scratch.startWatching(try scratch.probe("tok", [.token, .background]) + arguments)
        let emptied = eventually(timeout: .seconds(20)) { scratch.spool.names("new").isEmpty }
        #expect(emptied, "\(host.stderr)")
        #expect(host.stop() == .status(0), "\(host.stderr)")
        return try scratch.reportLines()
    }

    @Test(.enabled(if: geteuid() == 0, "a file of another user needs root to make"))
    func aFileOfAnotherUserHoldsNoHostEvent() throws {
        let scratch = try Scratch()
        try scratch.spool.create()
        try scratch.spool.drop("other", #"{"pushhost":"token","token":"https://attacker.example/collect"}"#)
        #expect(chown(scratch.spool.folder("new") + "/other", 65534, 65534) == 0)
        try scratch.spool.drop("stranger-message", #"{"message_id":"m-1","data":{}}"#)
        #expect(chown(scratch.spool.folder("new") + "/stranger-message", 65534, 65534) == 0)
        try scratch.spool.drop("own", #"{"pushhost":"token","token":"T-own"}"#)

        let report = try Self.runOver(scratch, [])
        let other = try #require(Self.line(report, file: "other"), "\(report)")
        #expect(other["status"] as? String == "rejected")
        #expect(other["error"] as? String
            == "a host event (the key pushhost) is not taken from here: the spool file belongs to user 65534, and host events come only from the host's own user's files")
        #expect(Self.line(report, file: "stranger-message")?["status"] as? String == "delivered")
        #expect(Self.line(report, file: "own")?["status"] as? String == "stored")
        #expect(scratch.probeCalls().filter { $0.hasPrefix("tok token") } == ["tok token T-own -"])
        #expect(scratch.spool.failedFiles == ["other"])
    }

    @Test func spoolEventsOffTakesMessagesOnly() throws {
        let scratch = try Scratch()
        try scratch.spool.create()
        try scratch.spool.drop("a", #"{"pushhost":"token","token":"T1"}"#)
        try scratch.spool.drop("b", #"{"message_id":"m-1","data":{}}"#)
        let report = try Self.runOver(scratch, ["--spool-events", "off"])
        #expect(Self.line(report, file: "a")?["status"] as? String == "rejected")
        #expect(Self.line(report, file: "a")?["error"] as? String
            == "a host event (the key pushhost) is not taken from here: the host takes no host events from the spool (--spool-events off)")
        #expect(Self.line(report, file: "b")?["status"] as? String == "delivered")
        #expect(scratch.probeCalls() == ["tok background m-1"])
        #expect(!FileManager.default.fileExists(atPath: scratch.file("state/token")))
    }
}
