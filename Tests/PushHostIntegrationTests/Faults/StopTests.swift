import Foundation
import Testing

/// A stop (SIGINT, SIGTERM) takes nothing new, gives the records under way
/// `--stop-timeout`, and leaves every spool file whose records did not end
/// in new/ for the next start: never in failed/, never half reported.
@Suite struct StopTests {
    /// A data plugin that never answers: the stop does not wait for
    /// `--data-timeout`, and the files stay in new/ without a report line.
    @Test func aStopDoesNotWaitForVerdictsThatDoNotCome() throws {
        let scratch = try Scratch()
        let spool = scratch.spool
        let plugins = try scratch.probe("d", [.data], settings: ["verdict": "pending-never"]) + scratch.probe("bg", [.background])
        let host = try scratch.startWatching(plugins + ["--data-timeout", "600", "--stop-timeout", "0.2"])
        let names = (0..<2000).map { String(format: "waiting-%04d", $0) }
        try spool.dropMany(names) { #"{"data":{"n":"\#($0)"}}"# }
        #expect(eventually(timeout: .seconds(30)) { scratch.probeCalls().count >= 1024 }, "\(host.stderr)")
        host.send(SIGTERM)
        #expect(host.waitForExit() == .status(0), "\(host.stderr)")
        #expect(Set(spool.names("new")) == Set(names))
        #expect(spool.names("cur").isEmpty)
        #expect(spool.names("failed").isEmpty)
        #expect(try scratch.reportLines().isEmpty)
        #expect(!scratch.probeCalls().contains { $0.hasPrefix("bg ") })
    }

    /// Records whose data stage ended are finished even when one before
    /// them is still waiting: only the waiting one stays in new/.
    @Test func recordsBehindAWaitingOneAreFinished() throws {
        let scratch = try Scratch()
        let spool = scratch.spool
        let plugins = try scratch.probe("d", [.data]) + scratch.probe("bg", [.background])
        let host = try scratch.startWatching(plugins + ["--data-timeout", "600", "--stop-timeout", "0.2"])
        try spool.drop("slow", #"{"data":{"verdict":"pending-never"}}"#)
        #expect(eventually(timeout: .seconds(20)) { scratch.probeCalls() == ["d data slow"] })
        try spool.drop("quick", #"{"data":{}}"#)
        #expect(eventually(timeout: .seconds(20)) { scratch.probeCalls().contains("d data quick") })
        host.send(SIGINT)
        #expect(host.waitForExit() == .status(0), "\(host.stderr)")
        #expect(spool.names("new") == ["slow"])
        #expect(spool.names("cur") == ["quick"])
        #expect(try scratch.reportLines().map(\.sourceFile) == ["quick"])
        #expect(scratch.probeCalls().last == "bg background quick")
    }

    /// Standard input cannot be read again: a line whose verdict did not come
    /// is reported failed, with the reason.
    @Test func aWaitingLineOfStandardInputIsReportedFailed() throws {
        let scratch = try Scratch()
        let plugins = try scratch.probe("d", [.data], settings: ["verdict": "pending-never"])
        let input = Pipe()
        let host = try HostProcess(
            ["run", "--state", scratch.file("state"), "--report", scratch.file("report.ndjson"), "--stop-timeout", "0.2"] + plugins,
            errorPath: scratch.file("stderr.log"), input: input)
        input.fileHandleForWriting.write(Data((ndjson(#"{"message_id":"m1","data":{}}"#) + "\n").utf8))
        #expect(eventually(timeout: .seconds(20)) { scratch.probeCalls() == ["d data m1"] })
        host.send(SIGTERM)
        #expect(host.waitForExit() == .status(0), "\(host.stderr)")
        let report = try scratch.reportLines()
        #expect(report.map { $0["status"] as? String } == ["failed"])
        #expect(report.first?["error"] as? String == "the host stopped before its data stage ended")
        try? input.fileHandleForWriting.close()
    }
}
