import Foundation
import Testing

/// SIGTERM while pushes arrive: the host waits `--stop-timeout` for the
/// push under way and exits 0; the pushes it could not take are not
/// dispatched, each said in the log.
@Suite(.enabled(if: UnifiedPushPlugin.canRun, "needs dbus-daemon, python3-dbusmock, python3-cryptography, libsystemd-dev and libssl-dev"))
struct UnifiedPushStopTests {
    @Test(arguments: [false, true]) func aStopWhilePushesArriveEndsTheHostWithStatus0(isolated: Bool) throws {
        let scratch = try Scratch()
        let (bus, distributor) = try UnifiedPushTests.accepting(scratch)
        let live = try UnifiedPushTests.Live(
            scratch, bus: bus, settings: try scratch.probe("d", [.data]) + ["--max-pending", "1", "--stop-timeout", "1"], isolated: isolated)
        let token = try live.registered()
        #expect(try live.runsUnifiedPush(isolated: isolated))
        func push(_ id: String, data: String = "{}", waiting: Bool = true) throws {
            try distributor.push(
                to: UnifiedPushTests.app, token: token, keys: live.keys, #"{"message_id":"\#(id)","data":\#(data)}"#,
                id: "d-" + id, waiting: waiting)
        }
        // p-1's data stage never ends, so the host is full: p-2, answered
        // at once, waits in submit, and the calls behind it wait on the bus.
        try push("p-1", data: #"{"verdict":"pending-never"}"#)
        #expect(eventually(timeout: .seconds(20)) { scratch.probeCalls().contains("d data p-1") }, "\(live.host.stderr)")
        try push("p-2")
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
        #expect(stderr.contains("warning unifiedpush: message d-p-2 came while the host is stopping: it is dropped"), "\(stderr)")
    }
}
