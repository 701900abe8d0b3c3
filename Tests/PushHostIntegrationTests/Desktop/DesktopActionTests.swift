import Foundation
import Testing

/// The desktop plugin's source role: what a person does with a notification
/// (the server's `ActionInvoked` and `NotificationReplied` signals) comes
/// back to the host as an action event, and reaches the screen of the
/// message's target through the host's action routing (docs/running.md, actions).
@Suite(.enabled(if: DesktopPlugin.canRun, "needs dbus-daemon, python3-dbusmock, libsystemd-dev and libcurl4-openssl-dev"))
struct DesktopActionTests {
    /// A host with the desktop plugin and the `issues` screen on a bus of
    /// its own with a notification server, its standard input a pipe the
    /// test writes to, after it posted `issue`; it runs until SIGTERM (the
    /// desktop plugin is a source). `isolated`: every plugin in a worker
    /// (`--isolate all`).
    final class Live {
        let scratch: Scratch
        let bus: SessionBus
        let server: NotificationServer
        let host: HostProcess
        /// The Notify call of `issue` (the server's first notification, id 1).
        let first: NotificationServer.Call
        private let input: Pipe

        convenience init(capabilities: [String]? = nil, isolated: Bool = false) throws {
            let scratch = try Scratch()
            let bus = try SessionBus(scratch)
            try self.init(scratch, bus: bus, server: try NotificationServer(on: bus, capabilities: capabilities), isolated: isolated)
        }

        /// Another host on the same state, bus and server (a restart), its
        /// first message `first`.
        init(_ scratch: Scratch, bus: SessionBus, server: NotificationServer, first message: String = DesktopActionTests.issue,
             calls: Int = 1, isolated: Bool = false) throws {
            let input = Pipe()
            self.input = input
            self.scratch = scratch
            self.bus = bus
            self.server = server
            host = try HostProcess(
                ["run", "--state", scratch.file("state"), "--report", scratch.file("report.ndjson"),
                 "--plugin", try DesktopPlugin.path(), "--plugin", Paths.sample("issues")]
                    + TransportWorker.walled(isolated, "desktop", grants: ["bus=session"]),
                errorPath: scratch.file("stderr.log"), environment: bus.environment, input: input)
            try input.fileHandleForWriting.write(contentsOf: Data((message + "\n").utf8))
            first = try #require(try server.waitForCalls(calls).last)
        }

        /// Whether the plugin runs in a worker of its own when `isolated`, and in the host else.
        func runsDesktop(isolated: Bool) throws -> Bool {
            TransportWorker.runs(host, plugin: try DesktopPlugin.path(), isolated: isolated)
        }

        func send(_ line: String) throws {
            try input.fileHandleForWriting.write(contentsOf: Data((line + "\n").utf8))
        }

        /// Waits until the report has `count` lines, and returns them.
        func report(_ count: Int) throws -> [[String: Any]] {
            eventually(timeout: .seconds(20)) { ((try? self.scratch.reportLines().count) ?? 0) >= count }
            let lines = try scratch.reportLines()
            try #require(lines.count >= count, "\(lines.count) report lines, not \(count):\n\(host.stderr)")
            return lines
        }
    }

    static let issue = #"{"message_id":"m-1","notification":{"title":"Printer jammed","body":"Floor 2"},"data":{"rx_gcm_key_target":"issues","actions":"[{\"id\":\"ack\",\"title\":\"On my way\"},{\"id\":\"reply\",\"title\":\"Reply\",\"input\":true}]"}}"#

    @Test(arguments: [false, true]) func aTapTravelsBackToTheIssuesScreen(isolated: Bool) throws {
        let live = try Live(isolated: isolated)
        #expect(try live.runsDesktop(isolated: isolated))
        // A tap on the notification (the server's first, id 1), while the app
        // is in the background: retained for the issues screen.
        try live.server.emit("ActionInvoked", "us", "1", "default")
        var report = try live.report(2)
        #expect(report[1]["event"] as? String == "action")
        #expect(report[1]["action"] as? String == "tap")
        #expect(report[1]["status"] as? String == "retained")
        #expect((report[1]["source"] as? [String: Any])?["plugin"] as? String == "desktop")
        #expect(!live.host.stderr.contains("issues action"))

        // The issues screen comes up, and gets the tap.
        try live.send(#"{"pushhost":"foreground","screen":"issues"}"#)
        report = try live.report(4)
        #expect(report[3]["status"] as? String == "delivered")
        #expect(report[3]["ui"] as? [String] == ["issues"])
        #expect(live.host.waitForStderr("info issues: issues action m-1 tap"))
        #expect(live.host.stop() == .status(0))
    }

    @Test(arguments: [false, true]) func buttonsAndTypedRepliesReachAVisibleScreenAtOnce(isolated: Bool) throws {
        // The message comes in the background; then the issues screen is
        // visible when the actions come.
        let live = try Live(capabilities: ["body", "actions", "inline-reply"], isolated: isolated)
        #expect(try live.runsDesktop(isolated: isolated))
        let call = live.first
        // The server takes typed text: the reply action is KDE's inline reply.
        #expect(call.actions == ["default", "Open", "ack", "On my way", "inline-reply", "Reply"])
        #expect(call.hints["x-kde-reply-placeholder-text"] as? String == "Reply")
        // Without body-markup, the body goes as it is.
        #expect(call.body == "Floor 2")
        try live.send(#"{"pushhost":"foreground","screen":"issues"}"#)
        _ = try live.report(2)

        try live.server.emit("ActionInvoked", "us", "1", "ack")
        try live.server.emit("NotificationReplied", "us", "1", "on my \"way\"")
        let report = try live.report(4)
        #expect(report[2]["action"] as? String == "ack")
        #expect(report[3]["action"] as? String == "reply")
        #expect(report[2...].map { $0["status"] as? String } == ["delivered", "delivered"])
        #expect(live.host.waitForStderr(#"info issues: issues action m-1 reply "on my \"way\"""#))
        #expect(live.host.stderr.contains("info issues: issues action m-1 ack"))
        #expect(live.host.stop() == .status(0))
    }

    @Test func closingIsLoggedWithItsReasonAndOtherApplicationsAreLeftAlone() throws {
        let live = try Live()
        // Notification 7 is another application's: nothing happens.
        try live.server.emit("ActionInvoked", "us", "7", "default")
        try live.server.emit("NotificationClosed", "uu", "7", "2")
        try live.server.emit("NotificationClosed", "uu", "1", "2")
        #expect(live.host.waitForStderr("info desktop: message m-1: notification 1 closed: dismissed by the user (reason 2)"))
        // A tap on a notification that closed is not known any more; one on
        // the next message's notification is, and comes after it.
        try live.send(#"{"message_id":"m-2","notification":{"title":"Toner low"}}"#)
        _ = try live.server.waitForCalls(2)
        try live.server.emit("ActionInvoked", "us", "1", "default")
        try live.server.emit("ActionInvoked", "us", "2", "default")
        let report = try live.report(3)
        #expect(report.map { $0["id"] as? String } == ["m-1", "m-2", "m-2"])
        #expect(report[2]["event"] as? String == "action")
        #expect(!live.host.stderr.contains("notification 7"))
        #expect(live.host.stop() == .status(0))
    }

    @Test func anotherClientOfTheBusCannotTapOrCloseANotification() throws {
        let live = try Live()
        // Another client sends the server's signals about notification 1 (m-1's).
        try live.server.forge("ActionInvoked", "us", "1", "default")
        try live.server.forge("ActionInvoked", "us", "1", "ack")
        try live.server.forge("NotificationReplied", "us", "1", "forged")
        try live.server.forge("NotificationClosed", "uu", "1", "2")
        // It says the server's name is its own now (only the bus says that),
        // then taps again.
        try live.server.forge(
            "NameOwnerChanged", "sss", "org.freedesktop.Notifications", "", "SELF", "--", "ActionInvoked", "us", "1", "default")
        // The server's own tap is taken: notification 1 is still known.
        try live.server.emit("ActionInvoked", "us", "1", "ack")
        let report = try live.report(2)
        #expect(live.host.waitForStderr("info desktop: message m-1: ack (notification 1)"))
        #expect(try live.scratch.reportLines().count == 2)
        #expect(report[1]["event"] as? String == "action")
        #expect(report[1]["action"] as? String == "ack")
        #expect(report[1]["status"] as? String == "retained")
        #expect(!live.host.stderr.contains("closed"))
        #expect(!live.host.stderr.contains("m-1: tap"))
        #expect(live.host.stop() == .status(0))
        #expect(try live.scratch.reportLines().count == 2)
    }

    /// Starts a second host on `first`'s bus and server (it posts m-2), taps
    /// notification 1, posted by `first`; the host and its 3 report lines.
    private func tapOnTheFirstNotification(after first: Live) throws -> (Live, [[String: Any]]) {
        let second = try Live(
            first.scratch, bus: first.bus, server: first.server,
            first: #"{"message_id":"m-2","notification":{"title":"Toner low"}}"#, calls: 2)
        try second.server.emit("ActionInvoked", "us", "1", "default")
        return (second, try second.report(3))
    }

    @Test func aTapAfterARestartStillFindsItsMessage() throws {
        let first = try Live()
        #expect(first.host.stop() == .status(0))
        // Restarted: the notification is still in the tray, and the host
        // keeps the message it delivered.
        let (second, report) = try tapOnTheFirstNotification(after: first)
        #expect(report[2]["event"] as? String == "action")
        #expect(report[2]["id"] as? String == "m-1")
        #expect(report[2]["status"] as? String == "retained")
        #expect(second.host.stop() == .status(0))
    }

    @Test func aTapAfterTheHostWasKilledStillFindsItsMessage() throws {
        let first = try Live()
        // Killed once the plugin wrote down notification 1 and the host its
        // delivered message (at most a second later).
        let kept = eventually(timeout: .seconds(20)) {
            first.scratch.read("state/plugins/desktop/posted").contains(" m-1 ")
                && first.scratch.read("state/delivered.ndjson").contains("m-1")
        }
        try #require(kept, "the posted notification or the delivered message was never written")
        first.host.send(SIGKILL)
        #expect(first.host.waitForExit() == .signal(SIGKILL))
        let (second, report) = try tapOnTheFirstNotification(after: first)
        #expect(report[2]["event"] as? String == "action")
        #expect(report[2]["id"] as? String == "m-1")
        #expect(second.host.stop() == .status(0))
    }

    @Test func aServerThatRestartedNumbersAgainAndOldIDsAreForgotten() throws {
        let first = try Live()
        try first.send(#"{"message_id":"m-1b","notification":{"title":"Paper low"}}"#)
        _ = try first.server.waitForCalls(2)
        #expect(first.host.stop() == .status(0))
        // A new server takes the name over: it numbers from 1 again, so its
        // notification 1 is m-2's, and there is no notification 2 of ours.
        let server = try NotificationServer(on: first.bus)
        let second = try Live(
            first.scratch, bus: first.bus, server: server, first: #"{"message_id":"m-2","notification":{"title":"Toner low"}}"#)
        try server.emit("ActionInvoked", "us", "2", "default")
        try server.emit("ActionInvoked", "us", "1", "default")
        let report = try second.report(4)
        #expect(report.count == 4)
        #expect(report[3]["event"] as? String == "action")
        #expect(report[3]["id"] as? String == "m-2")
        #expect(second.host.stop() == .status(0))
    }
}
