import Foundation
import Testing

/// SIGTERM while pushes arrive: the host waits `--stop-timeout` for the
/// push under way and exits 0; the pushes it could not take are not
/// dispatched, each said in the log and answered to the distributor as not
/// taken, so that it keeps them.
@Suite(.enabled(if: UnifiedPushPlugin.canRun, "needs dbus-daemon, python3-dbusmock, python3-cryptography, libsystemd-dev and libssl-dev"))
struct UnifiedPushStopTests {
    @Test(arguments: [false, true]) func aStopWhilePushesArriveEndsTheHostWithStatus0(isolated: Bool) throws {
        let scratch = try Scratch()
        let (bus, distributor) = try UnifiedPushTests.accepting(scratch)
        let live = try UnifiedPushTests.Live(
            scratch, bus: bus, settings: try scratch.probe("d", [.data]) + ["--max-pending", "1", "--stop-timeout", "1", "--log-level", "debug"],
            isolated: isolated)
        let token = try live.registered()
        #expect(try live.runsUnifiedPush(isolated: isolated))
        func push(_ id: String, data: String = "{}", waiting: Bool = true) throws {
            try distributor.push(
                to: UnifiedPushTests.app, token: token, keys: live.keys, #"{"message_id":"\#(id)","data":\#(data)}"#,
                id: "d-" + id, waiting: waiting)
        }
        // p-1's data stage never ends, so the host is full: p-2 waits in
        // submit (unanswered), and the calls behind it wait on the bus.
        try push("p-1", data: #"{"verdict":"pending-never"}"#)
        #expect(eventually(timeout: .seconds(20)) { scratch.probeCalls().contains("d data p-1") }, "\(live.host.stderr)")
        try push("p-2", waiting: false)
        #expect(live.host.waitForStderr("message d-p-2: "), "\(live.host.stderr)")
        try push("p-3", waiting: false)
        try push("p-4", waiting: false)
        #expect(live.host.stop() == .status(0), "\(live.host.stderr)")

        let report = try scratch.reportLines()
        try #require(report.count == 2, "\(report)")
        #expect(report[1]["id"] as? String == "p-1")
        #expect(report[1]["status"] as? String == "failed")
        #expect(report[1]["error"] as? String == "the host stopped before its data stage ended", "\(report[1])")
        #expect(scratch.probeCalls() == ["d data p-1"])
        let stderr = live.host.stderr
        #expect(stderr.contains("warning unifiedpush: message d-p-2 came while the host is stopping: not taken, the distributor is told so"), "\(stderr)")
    }

    /// Pushes sent one after another across a SIGTERM, each data call
    /// taking a while: every push the distributor was told was taken has
    /// its report line (delivered), and every other one was answered with
    /// an error; none is answered as taken and then lost.
    @Test(arguments: [false, true]) func aPushAcrossAStopIsDeliveredOrAnsweredAsNotTaken(isolated: Bool) throws {
        let scratch = try Scratch()
        let (bus, distributor) = try UnifiedPushTests.accepting(scratch)
        let settings = try scratch.probe("d", [.data])
            + ["--set", "d.verdict=pending", "--set", "d.delay_ms=40", "--max-pending", "1", "--stop-timeout", "10"]
        let live = try UnifiedPushTests.Live(scratch, bus: bus, settings: settings, isolated: isolated)
        let token = try live.registered()
        let count = 400
        let answers = scratch.file("answers")
        let sender = try distributor.stream(to: UnifiedPushTests.app, token: token, keys: live.keys, count: count, answers: answers)
        // Each push is two lines: its data call and its verdict.
        #expect(eventually(timeout: .seconds(30)) { scratch.probeCalls().count >= 20 }, "\(live.host.stderr)")
        #expect(live.host.stop() == .status(0), "\(live.host.stderr)")
        sender.waitUntilExit()

        let lines = scratch.read("answers").split(separator: "\n").map { $0.split(separator: " ").map(String.init) }
        try #require(lines.count == count, "\(lines.count) answers of \(count)")
        let taken = Set(lines.filter { $0.count == 2 && $0[1] == "taken" }.map { $0[0] })
        let refused = lines.filter { $0.count == 3 && $0[1] == "refused" }
        #expect(taken.count + refused.count == count, "\(lines)")
        #expect(taken.count >= 10 && !refused.isEmpty, "the stop came while pushes arrived: \(taken.count) taken")
        let report = try scratch.reportLines().filter { ($0["id"] as? String)?.hasPrefix("s-") == true }
        let reported = Set(report.map { $0["id"] as? String ?? "" })
        #expect(reported == taken, "taken and not reported: \(taken.subtracting(reported).sorted()); reported and refused: \(reported.subtracting(taken).sorted())\n\(live.host.stderr)")
        #expect(report.allSatisfy { $0["status"] as? String == "delivered" }, "\(report)")
        #expect(report.count == reported.count, "a push reported twice")
    }
}
