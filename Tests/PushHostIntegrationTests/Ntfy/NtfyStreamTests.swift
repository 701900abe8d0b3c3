import Foundation
import Testing

/// An ntfy topic piped into the host, as the README shows it: `curl -sN
/// URL/TOPIC/json | pushhost run`, against `Tests/Fixtures/ntfy/stream.py`,
/// a server on loopback that streams as ntfy does (chunked, one record a
/// line, opening with `open`), with the sample plugins cache (data) and
/// notify (background), and a probe reading the fields a plugin would.
@Suite(.enabled(if: FileManager.default.isExecutableFile(atPath: "/usr/bin/curl"), "needs curl"))
struct NtfyStreamTests {
    /// Runs `body` while `Tests/Fixtures/ntfy/stream.py` serves on a port of
    /// its own, with the URL that streams a topic as NDJSON.
    static func withServer<R>(_ body: (_ url: (_ topic: String) -> String) throws -> R) throws -> R {
        let server = Process()
        server.executableURL = URL(fileURLWithPath: "/usr/bin/python3")
        server.arguments = [Paths.fixtures.appendingPathComponent("ntfy/stream.py").path]
        let port = try firstLine(of: server)
        defer {
            kill(server.processIdentifier, SIGKILL)
            server.waitUntilExit()
        }
        try #require(Int(port) != nil, "stream.py printed no port")
        return try body { "http://127.0.0.1:\(port)/\($0)/json" }
    }

    /// The paths the probe reads of each message it sees.
    static let paths = ["format", "topic", "priority", "notification.title", "notification.body", "notification.image",
                        "notification.click", "notification.actions.0.id", "data.tags.1", "data.time"]

    /// `sh -c 'curl -sN URL | pushhost run ARGUMENTS'`, the report on standard output.
    static func pipe(_ url: String, _ arguments: [String], in scratch: Scratch) throws -> Command {
        let command = ["curl", "-sN", url] + ["|", Paths.pushhost, "run", "--state", scratch.file("state"), "--report", "-"]
            + arguments
        let script = command.map { $0 == "|" ? $0 : "'" + $0.replacingOccurrences(of: "'", with: #"'\''"#) + "'" }
        return try Command.run("/bin/sh", ["-c", script.joined(separator: " ")])
    }

    /// The cache, notify and probe plugins, each writing into `scratch`.
    static func plugins(_ scratch: Scratch) throws -> [String] {
        try loading(Paths.sample("cache"), as: "cache", ["path": scratch.file("cache.txt")])
            + loading(Paths.sample("notify"), as: "notify", ["path": scratch.file("notify.txt")])
            + scratch.probe("probe", [.data], settings: ["get": paths.joined(separator: ",")])
    }

    /// Every record of the stream gets its line, in order: the stream's own
    /// events skipped, the messages delivered, the bad base64 rejected with
    /// its place and why; the plugins saw the messages only, the base64
    /// one decoded, the image attachment as the image.
    @Test func aTopicStreamsIntoThePlugins() throws {
        let scratch = try Scratch()
        let result = try Self.withServer { url in try Self.pipe(url("alerts"), try Self.plugins(scratch), in: scratch) }
        #expect(result.status == 0, "\(result.stderr)")

        let report = try result.report()
        #expect(report.map { ($0["id"] as? String) ?? "-" } == ["-", "-", "m1", "m2", "-", "-", "m4"])
        #expect(report.map { $0["status"] as? String } == ["skipped", "skipped", "delivered", "delivered", "rejected", "skipped", "delivered"])
        let skipped = report.filter { $0["status"] as? String == "skipped" }
        #expect(skipped.map { $0["event"] as? String } == ["ntfy", "ntfy", "ntfy"])
        #expect(skipped.map { $0["ntfy_event"] as? String } == ["open", "keepalive", "poll_request"])
        #expect(skipped.map { ($0["source"] as? [String: Any])?["line"] as? Int } == [1, 2, 6])
        #expect(report[2]["target"] as? String == "door")
        #expect(report[2]["ui"] as? [String] == ["notify"])
        #expect(report[4]["error"] as? String == #"byte 91: "message" is not valid base64 (encoding is base64)"#)
        #expect(result.stderr.contains(#"rejected line 5, byte 91: "message" is not valid base64 (encoding is base64)"#),
                "\(result.stderr)")

        #expect(scratch.read("cache.txt") == """
            m1\tdoor\tDoor
            m2\t-\tCafé
            m4\t-\tReport

            """)
        #expect(scratch.read("notify.txt") == """
            notify: Door: Back entrance open [actions: Open camera] [image: https://x/cam.jpg]
            notify: Café: Closes at 5, "for real"
            notify: Report: Attached

            """)
        let seen = scratch.probeLines().filter { $0.event == "data" }
        #expect(seen.map(\.id) == ["m1", "m2", "m4"])
        #expect(seen.map { $0.values(Self.paths) } == [
            ["format": "ntfy", "topic": "alerts", "priority": "high", "notification.title": "Door",
             "notification.body": "Back entrance open", "notification.image": "https://x/cam.jpg",
             "notification.click": "https://x/door", "notification.actions.0.id": "view", "data.tags.1": "warning",
             "data.time": "1700000000"],
            ["format": "ntfy", "topic": "alerts", "priority": "normal", "notification.title": "Café",
             "notification.body": #"Closes at 5, "for real""#, "notification.image": "NULL", "notification.click": "NULL",
             "notification.actions.0.id": "NULL", "data.tags.1": "NULL", "data.time": "1700000000"],
            ["format": "ntfy", "topic": "alerts", "priority": "normal", "notification.title": "Report",
             "notification.body": "Attached", "notification.image": "NULL", "notification.click": "NULL",
             "notification.actions.0.id": "NULL", "data.tags.1": "NULL", "data.time": "1700000000"],
        ])
    }

    /// The stream's own events never change the exit status, not even with
    /// `--strict`; the bad base64 record does.
    @Test func skippedRecordsPassStrict() throws {
        let scratch = try Scratch()
        let arguments = ["--strict"] + (try Self.plugins(scratch))
        let (quiet, alerts) = try Self.withServer { url in
            (try Self.pipe(url("quiet"), arguments, in: scratch), try Self.pipe(url("alerts"), arguments, in: scratch))
        }
        #expect(quiet.status == 0, "\(quiet.stderr)")
        #expect(try quiet.report().map { $0["status"] as? String } == ["skipped", "skipped", "skipped", "delivered"])
        #expect(scratch.read("notify.txt").hasPrefix("notify: (no title): All calm\n"))
        #expect(alerts.status == 3, "\(alerts.stderr)")
    }
}
