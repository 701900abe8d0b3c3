import Foundation
import Testing

/// What the desktop plugin does when its world is not there: no session
/// bus, no notification server (and one that starts later), bad settings.
/// It says so once, each message not shown is failed with the reason, and
/// the host goes on.
@Suite(.enabled(if: DesktopPlugin.canRun, "needs dbus-daemon, python3-dbusmock, libsystemd-dev and libcurl4-openssl-dev"))
struct DesktopSetupTests {
    static let three = ndjson(
        #"{"message_id":"m-1","notification":{"title":"one"}}"#,
        #"{"message_id":"m-2","notification":{"title":"two"}}"#,
        #"{"message_id":"m-3","notification":{"title":"three"}}"#)

    @Test func withoutASessionBusTheHostGoesOnAndSaysSoOnce() throws {
        let scratch = try Scratch()
        let result = try Command.pushhost(
            ["run", "--state", scratch.file("state"), "--report", scratch.file("report.ndjson"),
             "--plugin", try DesktopPlugin.path(), "--set", "desktop.actions=false"],
            stdin: Self.three,
            environment: ["DBUS_SESSION_BUS_ADDRESS": "unix:path=\(scratch.file("no-bus"))", "XDG_RUNTIME_DIR": ""])
        #expect(result.status == 0, "\(result.stderr)")
        let said = result.stderr.components(separatedBy: "\n").filter { $0.contains("no session bus") }
        #expect(said == [
            "error desktop: no session bus (DBUS_SESSION_BUS_ADDRESS=unix:path=\(scratch.file("no-bus")): No such file or directory): notifications are not shown until there is one"
        ])
        #expect(result.stderr.contains("warning desktop: 3 notifications were not shown"))
        let report = try scratch.reportLines()
        #expect(report.map { $0["status"] as? String } == ["failed", "failed", "failed"])
        #expect(report.allSatisfy {
            $0["error"] as? String
                == "desktop: no session bus (DBUS_SESSION_BUS_ADDRESS=unix:path=\(scratch.file("no-bus")): No such file or directory)"
        })
    }

    @Test func aServerThatStartsLateShowsWhatComesAfterIt() throws {
        let scratch = try Scratch()
        let bus = try SessionBus(scratch)
        let input = Pipe()
        let host = try HostProcess(
            ["run", "--state", scratch.file("state"), "--report", scratch.file("report.ndjson"),
             "--plugin", try DesktopPlugin.path()],
            errorPath: scratch.file("stderr.log"), environment: bus.environment, input: input)
        // Said at start, before any message, and only once.
        let missing = "error desktop: no notification server on the session bus (org.freedesktop.Notifications: "
        #expect(host.waitForStderr(missing))
        try input.fileHandleForWriting.write(contentsOf: Data(Self.three.utf8))
        eventually(timeout: .seconds(20)) { (try? scratch.reportLines().count) == 3 }
        #expect(host.stderr.components(separatedBy: missing).count == 2)
        // Not shown, so not delivered: each says why.
        let report = try scratch.reportLines()
        #expect(report.map { $0["status"] as? String } == ["failed", "failed", "failed"])
        #expect(report.allSatisfy {
            ($0["error"] as? String)?.hasPrefix("desktop: no notification server on the session bus (org.freedesktop.Notifications: ") == true
        })

        let server = try NotificationServer(on: bus)
        try input.fileHandleForWriting.write(contentsOf: Data(#"{"message_id":"m-4","notification":{"title":"four"}}"#.utf8 + [10]))
        let calls = try server.waitForCalls(1)
        #expect(calls.map(\.summary) == ["four"])
        #expect(host.waitForStderr("info desktop: notifications are shown again (3 not shown meanwhile)"))
        eventually(timeout: .seconds(20)) { (try? scratch.reportLines().count) == 4 }
        #expect(try scratch.reportLines().last?["status"] as? String == "delivered")
        #expect(host.stop() == .status(0))
    }


    @Test func aServerThatHangsCostsOneTimeoutNotOneEach() throws {
        let scratch = try Scratch()
        let bus = try SessionBus(scratch)
        let server = try NotificationServer(on: bus)
        try server.hang(seconds: 6)
        let input = Pipe()
        let host = try HostProcess(
            ["run", "--state", scratch.file("state"), "--report", scratch.file("report.ndjson"),
             "--plugin", try DesktopPlugin.path(), "--set", "desktop.actions=false"],
            errorPath: scratch.file("stderr.log"), environment: bus.environment, input: input)
        let lines = Self.three.split(separator: "\n").map { Data(($0 + "\n").utf8) }
        try input.fileHandleForWriting.write(contentsOf: lines[0])
        #expect(host.waitForStderr(
            "error desktop: the notification server did not answer to show message m-1 within 5 s: notifications are not shown for 30 s, then tried again"))
        // What comes while the server is given a rest is not tried.
        try input.fileHandleForWriting.write(contentsOf: lines[1] + lines[2])
        try input.fileHandleForWriting.close()
        #expect(host.waitForExit() == .status(0))
        #expect(host.stderr.contains("warning desktop: 3 notifications were not shown"))
        let report = try scratch.reportLines()
        #expect(report.map { $0["status"] as? String } == ["failed", "failed", "failed"])
        #expect(report.map { $0["error"] as? String } == [
            "desktop: the notification server did not answer within 5 s",
            "desktop: not tried: the notification server did not answer within 5 s less than 30 s ago",
            "desktop: not tried: the notification server did not answer within 5 s less than 30 s ago",
        ])
        // The server answers this once its sleep is over: m-1's call only.
        #expect(try server.calls().map(\.summary) == ["one"])
    }

    @Test(arguments: [
        ("timeout=soon", #"setting timeout: "soon" is not a number of seconds from -1 to 86400"#),
        ("actions=maybe", #"setting actions: "maybe" is not true or false"#),
        ("image_max_bytes=0", #"setting image_max_bytes: "0" is not a number of bytes from 1 to 6.71089e+07"#),
        ("fetch_private=sometimes", #"setting fetch_private: "sometimes" is not true or false"#),
        ("image_dirs=pictures", "setting image_dirs: pictures: not an absolute path"),
        ("image_dirs=/usr/share, /nonexistent/pictures", "setting image_dirs: /nonexistent/pictures: No such file or directory"),
        ("image_dirs=/etc/passwd", "setting image_dirs: /etc/passwd: not a folder"),
    ])
    func aBadSettingRefusesThePluginWithTheReason(setting: String, reason: String) throws {
        let scratch = try Scratch()
        let result = try Command.pushhost(
            ["run", "--state", scratch.file("state"), "--plugin", try DesktopPlugin.path(), "--set", "desktop.\(setting)"])
        #expect(result.status == 1)
        #expect(result.stderr.contains("error desktop: \(reason)"), "\(result.stderr)")
        #expect(result.stderr.contains("desktop"))
    }
}
