import Foundation
import Testing

/// SIGTERM or SIGINT while standard input is still open stop the host as
/// cleanly as with `--watch`: it takes no new line, finishes what is under
/// way (a pending data stage included), calls every `destroy`, and exits 0.
@Suite struct StdinShutdownTests {
    @Test(arguments: [SIGTERM, SIGINT])
    func signalWithStandardInputOpen(_ signal: Int32) throws {
        let scratch = try Scratch()
        let plugins = try scratch.probe("d", [.data], settings: ["verdict": "pending", "delay_ms": "300"])
            + scratch.probe("bg", [.background])
        let input = Pipe()
        let host = try HostProcess(
            ["run", "--state", scratch.file("state"), "--report", scratch.file("report.ndjson")] + plugins,
            errorPath: scratch.file("stderr.log"), input: input)
        input.fileHandleForWriting.write(Data((#"{"message_id":"m1","data":{}}"# + "\n").utf8))
        // m1 is in its data stage (pending 300 ms) when the signal comes.
        let pending = eventually(timeout: .seconds(20)) { scratch.probeCalls().contains("d data m1") }
        try #require(pending, "\(host.stderr)")
        host.send(signal)
        let exit = host.waitForExit()
        #expect(exit == .status(0), "\(host.stderr)")
        #expect(host.stderr.contains("stopping: taking nothing new"), "\(host.stderr)")
        // A line written after the signal is not taken.
        try? input.fileHandleForWriting.write(contentsOf: Data((#"{"message_id":"m2","data":{}}"# + "\n").utf8))
        try? input.fileHandleForWriting.close()

        #expect(scratch.probeCalls() == ["d data m1", "d complete m1", "bg background m1"])
        let lines = scratch.probeLines()
        #expect(lines.suffix(2).map(\.event) == ["destroy", "destroy"], "\(lines)")
        let report = try scratch.reportLines()
        #expect(report.map { $0["id"] as? String } == ["m1"])
        #expect(report.first?["status"] as? String == "delivered")
    }

    @Test func signalWhileIdleOnStandardInput() throws {
        let scratch = try Scratch()
        let input = Pipe()
        let host = try HostProcess(
            ["run", "--state", scratch.file("state")] + (try scratch.probe("bg", [.background])),
            errorPath: scratch.file("stderr.log"), input: input)
        input.fileHandleForWriting.write(Data((#"{"message_id":"m1","data":{}}"# + "\n").utf8))
        let delivered = eventually(timeout: .seconds(20)) { scratch.probeCalls().contains("bg background m1") }
        try #require(delivered, "\(host.stderr)")
        host.send(SIGTERM)
        #expect(host.waitForExit() == .status(0), "\(host.stderr)")
        #expect(scratch.probeLines().last?.event == "destroy")
        try? input.fileHandleForWriting.close()
    }
}
