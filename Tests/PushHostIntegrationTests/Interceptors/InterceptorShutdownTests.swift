import Foundation
import Testing

/// Held messages at the end: the host waits for them when its input ends;
/// after SIGTERM, they have `--stop-timeout` to be released, and one still
/// held then is not lost: its spool file stays in `new/`, and a line of
/// standard input is reported failed. An interceptor whose `destroy` waits
/// for its held turn past the stop's deadline is left: the host exits with
/// status 4, naming it.
@Suite struct InterceptorShutdownTests {
    typealias Chain = InterceptorChainTests

    static func plugins(_ scratch: Scratch, delay: Int) throws -> [String] {
        try scratch.probe("gate", [.interceptor], settings: ["intercept": "hold", "delay_ms": "\(delay)"])
            + scratch.probe("bg", [.background])
    }

    @Test func theEndOfInputWaitsForHeldMessages() throws {
        let scratch = try Scratch()
        let result = try scratch.run(try Self.plugins(scratch, delay: 400), stdin: ndjson(Chain.message("m1"), Chain.message("m2")))
        #expect(result.status == 0, "\(result.stderr)")
        #expect(try result.report().map { $0["status"] as? String } == ["delivered", "delivered"])
        #expect(scratch.probeLines().suffix(2).map(\.event) == ["destroy", "destroy"])
    }

    @Test func aSpoolFileWhoseMessageIsStillHeldStaysInNew() throws {
        let scratch = try Scratch()
        let spool = scratch.spool
        let host = try scratch.startWatching(try Self.plugins(scratch, delay: 2_500) + ["--stop-timeout", "0.5"])
        try spool.drop("quick.json", #"{"message_id":"quick","data":{"intercept":"proceed"}}"#)
        try spool.drop("held.json", #"{"message_id":"held","data":{}}"#)
        let taken = eventually(timeout: .seconds(20)) { scratch.probeCalls().contains("gate intercept held") && spool.names("cur") == ["quick.json"] }
        try #require(taken, "\(host.stderr)")
        host.send(SIGTERM)
        let exit = host.waitForExit()
        #expect(exit == .status(4), "\(host.stderr)")
        #expect(host.stderr.contains("stopping: plugin gate is still in destroy after"), "\(host.stderr)")
        #expect(spool.names("new") == ["held.json"])
        #expect(spool.names("failed").isEmpty)
        let report = try scratch.reportLines()
        #expect(report.map { $0["id"] as? String } == ["quick"])
        #expect(scratch.probeLines().filter { $0.event == "destroy" }.map(\.fields.first) == ["bg"], "only bg's destroy returned")
    }

    @Test func aMessageReleasedWithinTheStopTimeoutIsDelivered() throws {
        let scratch = try Scratch()
        let spool = scratch.spool
        let host = try scratch.startWatching(try Self.plugins(scratch, delay: 700))
        try spool.drop("held.json", #"{"message_id":"held","data":{}}"#)
        let held = eventually(timeout: .seconds(20)) { scratch.probeCalls().contains("gate intercept held") }
        try #require(held, "\(host.stderr)")
        host.send(SIGTERM)
        let exit = host.waitForExit()
        #expect(exit == .status(0), "\(host.stderr)")
        #expect(spool.names("cur") == ["held.json"])
        #expect(try scratch.reportLines().first?["status"] as? String == "delivered")
        #expect(scratch.probeCalls().contains("bg background held"))
    }

    @Test func aHeldLineOfStandardInputIsReportedFailedAtTheStop() throws {
        let scratch = try Scratch()
        let input = Pipe()
        let host = try HostProcess(
            ["run", "--state", scratch.file("state"), "--report", scratch.file("report.ndjson"), "--stop-timeout", "0.3"]
                + Self.plugins(scratch, delay: 2_500),
            errorPath: scratch.file("stderr.log"), input: input)
        input.fileHandleForWriting.write(Data((Chain.message("m1") + "\n").utf8))
        let held = eventually(timeout: .seconds(20)) { scratch.probeCalls().contains("gate intercept m1") }
        try #require(held, "\(host.stderr)")
        host.send(SIGTERM)
        let exit = host.waitForExit()
        #expect(exit == .status(4), "\(host.stderr)")
        #expect(host.stderr.contains("stopping: plugin gate is still in destroy after"), "\(host.stderr)")
        try? input.fileHandleForWriting.close()
        let report = try scratch.reportLines()
        try #require(report.count == 1)
        #expect(report[0]["status"] as? String == "failed")
        #expect(report[0]["error"] as? String == "the host stopped while the interceptor gate held it")
    }
}
