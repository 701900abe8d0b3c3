import Foundation
import Testing

/// The `ph_message` handles of pending messages cannot be mistaken: a
/// `complete` that comes again, or after the deadline, finds no message
/// (whatever came since), is ignored with a warning, and changes no other
/// message's outcome.
@Suite struct HandleTests {
    /// Each message completed a second time (by `twice`,
    /// Tests/Fixtures/plugins/twice.c) after 8,196 later messages went
    /// pending and completed: every message keeps its first verdict, and
    /// each second call is one warning.
    ///
    /// One message pending at a time (`--max-pending 1`) makes a host that
    /// lets message memory be reused fail at every second call: one that
    /// kept the last 4,096 completed messages from reuse handed each
    /// message the address of the one 4,098 before it, so the second call
    /// landed on the message then pending, and failed it.
    @Test func aSecondCompleteMuchLaterChangesNoOtherMessage() throws {
        let scratch = try Scratch()
        let plugin = try scratch.plugin("twice.so", PluginSource.fixture("twice"))
        let lag = 8_196, count = 12_000
        let input = (1...count).map { #"{"message_id":"m\#($0)","data":{"n":"\#($0)"}}"# }.joined(separator: "\n")
        let result = try scratch.run(["--plugin", plugin, "--set", "twice.lag=\(lag)", "--max-pending", "1"], stdin: input)
        #expect(result.status == 0, "\(result.stderr)")
        let report = try result.report()
        try #require(report.count == count)
        let changed = report.filter { $0["status"] as? String != "undelivered" }
        #expect(changed.isEmpty, "\(changed.count) messages took another's verdict, e.g. \(changed.prefix(3))")
        #expect(report.map { $0["id"] as? String } == (1...count).map { "m\($0)" })
        let warnings = result.errorLines.filter { $0.hasPrefix("warning") }
        #expect(warnings.count == count - lag, "\(warnings.prefix(3))")
        #expect(Set(warnings) == ["warning pushhost: twice: complete for a message that is not waiting for it (a second call, or an unknown message); ignored"])
    }

    /// The deadline passes: the message is failed, the next data plugin
    /// still gets it (under a new handle), the late plugin's
    /// (Tests/Fixtures/plugins/late.c) accessors find
    /// no message, and its `complete` is ignored with a warning.
    @Test func aCompleteAfterTheDeadlineFindsNoMessage() throws {
        let scratch = try Scratch()
        let late = try scratch.plugin("late.so", PluginSource.fixture("late"))
        let plugins = ["--plugin", late, "--set", "late.log=\(scratch.file("late.log"))", "--set", "late.delay_ms=500"]
            + (try scratch.probe("d2", [.data], settings: ["get": "data.late"])) + (try scratch.probe("bg", [.background]))
        signal(SIGPIPE, SIG_IGN)
        let feed = Pipe()
        let host = try HostProcess(
            ["run", "--state", scratch.file("state"), "--report", scratch.file("report.ndjson"), "--data-timeout", "0.2"] + plugins,
            errorPath: scratch.file("stderr.log"), input: feed)
        try feed.fileHandleForWriting.write(contentsOf: Data(ndjson(#"{"message_id":"m1","data":{"late":"yes","rx_gcm_key_target":"t"}}"#).utf8))
        #expect(host.waitForStderr("late: no complete for message m1 within 0.2s; counted as failed"), "\(host.stderr)")
        #expect(host.waitForStderr("late: complete arrived after the --data-timeout deadline; ignored"), "\(host.stderr)")
        try feed.fileHandleForWriting.write(contentsOf: Data(ndjson(#"{"message_id":"m2","data":{}}"#).utf8))
        try feed.fileHandleForWriting.close()
        #expect(host.waitForExit() == .status(0), "\(host.stderr)")

        #expect(scratch.read("late.log").split(separator: "\n") == [
            "pending m1", "late id=[] data=NULL target=NULL json=[] length=0",
        ])
        #expect(scratch.probeCalls() == ["d2 data m1", "d2 data m2", "bg background m2"])
        #expect(scratch.probeLines().first?.values(["data.late"]) == ["data.late": "yes"])
        let report = try scratch.reportLines()
        #expect(report.map { $0["status"] as? String } == ["failed", "delivered"])
        #expect(report.first?["data"] as? [[String: String]] == [["plugin": "late", "verdict": "failed"], ["plugin": "d2", "verdict": "continue"]])
        #expect(report.first?["target"] as? String == "t")
        #expect(host.stderr.components(separatedBy: "ignored").count == 2, "\(host.stderr)")
    }
}
