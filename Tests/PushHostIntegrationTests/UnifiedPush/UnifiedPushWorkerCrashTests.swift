import Foundation
import Testing

/// The unifiedpush plugin in a worker of its own (`--isolate all`), crashed
/// after a push: its new worker owns the application id on the bus again,
/// registers again with the same connection token and keys (so the
/// endpoint senders know stays the same), and later pushes decrypt.
@Suite(.enabled(if: UnifiedPushPlugin.canRun, "needs dbus-daemon, python3-dbusmock, python3-cryptography, libsystemd-dev and libssl-dev"))
struct UnifiedPushWorkerCrashTests {
    @Test func aCrashedWorkerRegistersAgainWithTheSameKeysAndPushesGoOn() throws {
        let scratch = try Scratch()
        let (bus, distributor) = try UnifiedPushTests.accepting(scratch)
        let live = try UnifiedPushTests.Live(scratch, bus: bus, isolated: true)
        let token = try live.registered()
        let first = try #require(TransportWorker.find(live.host, plugin: try UnifiedPushPlugin.path()), "\(live.host.stderr)")
        try distributor.push(
            to: UnifiedPushTests.app, token: token, keys: live.keys, #"{"message_id":"up-1","notification":{"title":"Before the crash"}}"#)
        #expect(try live.report(2)[1]["status"] as? String == "delivered")

        let crash = TransportWorker.crash(first, of: live.host, plugin: "unifiedpush")
        #expect(crash?.hasPrefix("error pushhost: plugin unifiedpush crashed between calls: SIGSEGV; restarting its worker in 0.1s") == true,
                "\(live.host.stderr)")
        #expect(TransportWorker.find(live.host, plugin: try UnifiedPushPlugin.path(), replacing: first) != nil, "\(live.host.stderr)")
        // Its source started again in the new worker: registered once more, with the same token.
        let registered = "info unifiedpush: registered with org.unifiedpush.Distributor.fake as \(UnifiedPushTests.app)"
        #expect(eventually(timeout: .seconds(20)) { live.host.stderr.components(separatedBy: registered).count == 3 }, "\(live.host.stderr)")
        #expect(try distributor.registrations().map { $0["token"] } == [token, token])
        // The endpoint came again, the same: the stored token is unchanged.
        let again = try live.report(3)[2]
        #expect(again["event"] as? String == "token")
        #expect(again["status"] as? String == "unchanged", "\(again)")

        // A push encrypted to the keys as they were before the crash.
        try distributor.push(
            to: UnifiedPushTests.app, token: token, keys: live.keys, #"{"message_id":"up-2","notification":{"title":"After the crash"}}"#)
        let report = try live.report(4)
        #expect(report.compactMap { $0["id"] as? String } == ["up-1", "up-2"])
        #expect(report[3]["status"] as? String == "delivered")
        #expect(live.host.waitForStderr("notify: After the crash"))
        #expect(live.host.stderr.components(separatedBy: "crashed").count == 2, "\(live.host.stderr)")
        #expect(live.host.stop() == .status(0), "\(live.host.stderr)")
    }
}
