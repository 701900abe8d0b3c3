import Foundation
import Testing

/// What the report says of a message the desktop plugin showed or did not:
/// each message waits for the server's answer to its own `Notify`, so a
/// slow server loses nothing (the host goes at its pace), and a message the
/// server did not show is `failed` with the reason, not `delivered`.
@Suite(.enabled(if: DesktopPlugin.canRun, "needs dbus-daemon, python3-dbusmock, libsystemd-dev and libcurl4-openssl-dev"))
struct DesktopStatusTests {
    static func messages(_ count: Int) -> String {
        ndjson((1...count).map { #"{"message_id":"m-\#($0)","notification":{"title":"n\#($0)"}}"# })
    }

    static func arguments(_ scratch: Scratch) throws -> [String] {
        ["run", "--state", scratch.file("state"), "--report", scratch.file("report.ndjson"),
         "--plugin", try DesktopPlugin.path(), "--set", "desktop.actions=false"]
    }

    @Test func aSlowServerShowsEveryMessageOfABurstOnce() throws {
        let scratch = try Scratch()
        let bus = try SessionBus(scratch)
        let server = try NotificationServer(on: bus)
        try server.slow(seconds: 0.012)
        // More messages than a push would once have waited for (1,024), at
        // 12 ms a call: none may be dropped.
        let result = try Command.pushhost(try Self.arguments(scratch), stdin: Self.messages(1100), environment: bus.environment)
        #expect(result.status == 0, "\(result.stderr)")
        #expect(!result.stderr.contains("dropped"))
        #expect(try server.calls().map(\.summary) == (1...1100).map { "n\($0)" })
        let report = try scratch.reportLines()
        #expect(report.count == 1100)
        #expect(report.allSatisfy { $0["status"] as? String == "delivered" })
    }

    @Test func aNotificationTheServerRefusesIsFailedWithItsError() throws {
        let scratch = try Scratch()
        let bus = try SessionBus(scratch)
        let server = try NotificationServer(on: bus)
        try server.fail()
        let result = try Command.pushhost(try Self.arguments(scratch), stdin: Self.messages(2), environment: bus.environment)
        #expect(result.status == 0, "\(result.stderr)")
        #expect(try server.calls().count == 2)
        let report = try scratch.reportLines()
        #expect(report.map { $0["status"] as? String } == ["failed", "failed"])
        #expect(report.allSatisfy {
            $0["error"] as? String == "desktop: the notification server did not show it: org.example.Error.Locked: the shell is locked"
        })
        // Logged once, when the problem began.
        #expect(result.stderr.components(separatedBy: "error desktop: the notification server failed to show message").count == 2)
        #expect(result.stderr.contains("warning desktop: 2 notifications were not shown"))
    }

    @Test func aStopDuringABurstShowsEachReportedMessageOnce() throws {
        let scratch = try Scratch()
        let bus = try SessionBus(scratch)
        let server = try NotificationServer(on: bus)
        try server.slow(seconds: 0.012)
        let input = try #require(FileHandle(forReadingAtPath: try scratch.write("burst.ndjson", Self.messages(2000))))
        let host = try HostProcess(
            try Self.arguments(scratch), errorPath: scratch.file("stderr.log"), environment: bus.environment, input: input)
        _ = try server.waitForCalls(50)
        // Taps are off: the host ends with the messages under way, each of
        // which waits for one call at most.
        let exit = host.stop(timeout: .seconds(15))
        // The host stops taking between two records: no watchdog verdict.
        #expect(exit == .status(0), "\(host.stderr)")
        #expect(!host.stderr.contains("is still in"), "\(host.stderr)")
        let report = try scratch.reportLines()
        let calls = try server.calls().map(\.summary)
        // Each message reported was shown once, in order, and is delivered.
        #expect(report.count >= 50 && report.count < 2000)
        #expect(report.allSatisfy { $0["status"] as? String == "delivered" })
        let shown = report.map { "n" + (($0["id"] as? String) ?? "").dropFirst(2) }
        #expect(Array(calls.prefix(shown.count)) == shown)
        #expect(calls.count <= shown.count + 1)
    }
}
