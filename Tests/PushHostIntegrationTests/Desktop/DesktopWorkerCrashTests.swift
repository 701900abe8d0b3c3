import Foundation
import Testing

/// The desktop plugin in a worker of its own (`--isolate all`), crashed
/// after it posted a notification: its new worker connects to the bus
/// again, posts the messages that came meanwhile and after, and knows the
/// notifications the crashed one posted, so their taps still come back.
@Suite(.enabled(if: DesktopPlugin.canRun, "needs dbus-daemon, python3-dbusmock, libsystemd-dev and libcurl4-openssl-dev"))
struct DesktopWorkerCrashTests {
    @Test func aCrashedWorkerLosesNoMessageAndTheTapsOfItsNotificationsStillComeBack() throws {
        let live = try DesktopActionTests.Live(isolated: true)
        let first = try #require(TransportWorker.find(live.host, plugin: try DesktopPlugin.path()), "\(live.host.stderr)")
        // m-1 was posted as notification 1, and the worker wrote that down (at most a second later).
        let kept = eventually(timeout: .seconds(20)) { live.scratch.read("state/plugins/desktop/posted").contains(" m-1 ") }
        try #require(kept, "the posted notification was never written")

        let crash = TransportWorker.crash(first, of: live.host, plugin: "desktop")
        #expect(crash?.hasPrefix("error pushhost: plugin desktop crashed between calls: SIGSEGV; restarting its worker in 0.1s") == true,
                "\(live.host.stderr)")
        // m-2 comes while the worker is down, or just after: it waits for the new worker.
        try live.send(#"{"message_id":"m-2","notification":{"title":"Toner low"}}"#)
        let second = TransportWorker.find(live.host, plugin: try DesktopPlugin.path(), replacing: first)
        try #require(second != nil, "\(live.host.stderr)")
        // m-3 comes after the new worker started its source.
        try live.send(#"{"message_id":"m-3","notification":{"title":"Paper low"}}"#)
        let calls = try live.server.waitForCalls(3)
        #expect(calls.map(\.summary) == ["Printer jammed", "Toner low", "Paper low"])
        #expect(try live.report(3).map { $0["status"] as? String } == ["delivered", "delivered", "delivered"])

        // A tap on notification 1, posted by the crashed worker, and one on m-3's.
        try live.server.emit("ActionInvoked", "us", "1", "default")
        try live.server.emit("ActionInvoked", "us", "3", "default")
        let report = try live.report(5)
        #expect(report[3...].map { $0["event"] as? String } == ["action", "action"])
        #expect(report[3...].map { "\($0["id"] as? String ?? "nil") \($0["action"] as? String ?? "nil")" } == ["m-1 tap", "m-3 tap"])
        // m-1's target is the issues screen, which is not visible: kept for it.
        #expect(report[3]["status"] as? String == "retained")
        // Nothing was posted twice.
        #expect(try live.server.calls().count == 3)
        #expect(live.host.stop() == .status(0), "\(live.host.stderr)")
    }
}
