import Foundation
import Testing

/// The plugin in the real host against a server that streams as ntfy does:
/// what reaches the report, in which order, and where it resumes.
@Suite struct StreamTests {
    /// Settings that keep the waits of a test short.
    static func quick(_ server: NtfyServer, _ extra: [String: String] = [:]) -> [String: String] {
        ["url": server.url, "topic": "alerts", "backoff_min": "0.05", "backoff_max": "0.2"].merging(extra) { $1 }
    }

    /// Starts a host with the plugin (and `flaky`) and waits until it follows the topic.
    static func follow(_ scratch: Scratch, _ server: NtfyServer, _ settings: [String: String], report: String = "report.ndjson",
                       stderr: String = "stderr.log", streams: Int = 1) throws -> Host {
        let host = try Host(scratch, settings, flaky: true, report: report, stderr: stderr)
        try #require(eventually { server.subscribers("alerts") == streams || !host.process.isRunning }, "\(host.stderr)")
        try #require(host.process.isRunning, "\(host.stderr)")
        return host
    }

    /// Messages come through in the order they were sent, each once, as
    /// they were (the host reads them as ntfy records); the stream's own
    /// lines are skipped by the host; a first connect asks for nothing
    /// older, so a message kept before it is not delivered.
    @Test func messagesAreDeliveredInOrder() throws {
        let scratch = try Scratch()
        let server = try NtfyServer(scratch)
        let before = try server.publish("alerts", title: "before the host")
        let host = try Self.follow(scratch, server, Self.quick(server))
        var sent: [String] = []
        for n in 1...5 { sent.append(try server.publish("alerts", title: "message \(n)")) }
        try #require(host.waitFor(sent[4]), "\(host.stderr)")
        eventually { host.report.contains { $0["ntfy_event"] as? String == "keepalive" } }
        #expect(host.stop() == 0, "\(host.stderr)")
        #expect(host.ids == sent, "\(host.report)")
        #expect(!host.ids.contains(before))
        #expect(host.report.filter { $0["id"] is String }.allSatisfy { $0["status"] as? String == "delivered" })
        #expect(host.report.first?["ntfy_event"] as? String == "open", "\(host.report)")
        #expect(host.report.contains { $0["ntfy_event"] as? String == "keepalive" && $0["status"] as? String == "skipped" })
        #expect(try server.requests().map(\.since) == [nil])
    }

    /// `since=all` asks for every message the server keeps on the first connect.
    @Test func sinceAllAsksForEveryKeptMessage() throws {
        let scratch = try Scratch()
        let server = try NtfyServer(scratch)
        let kept = [try server.publish("alerts", title: "one"), try server.publish("alerts", title: "two")]
        let host = try Self.follow(scratch, server, Self.quick(server, ["since": "all"]))
        let later = try server.publish("alerts", title: "three")
        try #require(host.waitFor(later), "\(host.stderr)")
        #expect(host.stop() == 0, "\(host.stderr)")
        #expect(host.ids == kept + [later])
        #expect(try server.requests().map(\.since) == ["all"])
    }

    /// A connection dropped in the middle of a line: the half line is not
    /// submitted, the plugin connects again with `since=` the last message
    /// the host finished, and every message arrives once.
    @Test func aDroppedConnectionResumesFromTheLastID() throws {
        let scratch = try Scratch()
        let server = try NtfyServer(scratch)
        let host = try Self.follow(scratch, server, Self.quick(server))
        let first = try server.publish("alerts", title: "one")
        let second = try server.publish("alerts", title: "two")
        try #require(host.waitFor(second), "\(host.stderr)")
        // Lines of the stream's own after it, whose ids ntfy never keeps: no resuming from those.
        try #require(host.waitForKeepalive(after: second), "\(host.stderr)")
        let cut = try server.post("drop", ["topic": "alerts", "partial": true, "title": "cut in half"])
        let half = try #require((cut["message"] as? [String: Any])?["id"] as? String)
        #expect(cut["streams"] as? Int == 1)
        try #require(eventually { (try? server.requests().count) == 2 && server.subscribers("alerts") == 1 }, "\(host.stderr)")
        let after = try server.publish("alerts", title: "four")
        try #require(host.waitFor(after), "\(host.stderr)")
        #expect(host.stop() == 0, "\(host.stderr)")
        #expect(host.ids == [first, second, half, after], "\(host.report)")
        #expect(try server.requests().map(\.since) == [nil, second])
        #expect(host.stderr.contains("connecting again in"))
        #expect(!host.report.contains { $0["status"] as? String == "rejected" }, "the half line was submitted: \(host.report)")
    }

    /// A stream that drops before any message: the next connect asks for
    /// what came since the first stream opened (its `open` line's time), so
    /// a message sent while the plugin was away still arrives.
    @Test func aDropBeforeAnyMessageResumesFromWhenTheStreamOpened() throws {
        let scratch = try Scratch()
        let server = try NtfyServer(scratch)
        let host = try Self.follow(scratch, server, Self.quick(server, ["backoff_min": "0.2", "backoff_max": "0.4"]))
        try server.post("fail", ["count": 2, "status": 503])
        try server.post("drop", ["topic": "alerts"])
        let during = try server.publish("alerts", title: "sent while away")
        try #require(host.waitFor(during), "\(host.stderr)")
        #expect(host.stop() == 0, "\(host.stderr)")
        #expect(host.ids == [during])
        let requests = try server.requests()
        #expect(requests.map(\.status) == [200, 503, 503, 200])
        let opened = requests.dropFirst().map(\.since)
        let time = try #require(opened.first ?? nil)
        #expect(!time.isEmpty && time.allSatisfy(\.isNumber) && opened.allSatisfy { $0 == time }, "\(requests)")
        #expect(abs((Int(time) ?? 0) - Int(Date().timeIntervalSince1970)) < 60)
    }

    /// A restarted host resumes from the id kept in the state folder: only
    /// the messages sent while it was down come.
    @Test func aRestartedHostResumesFromTheStoredID() throws {
        let scratch = try Scratch()
        let server = try NtfyServer(scratch)
        let first = try Self.follow(scratch, server, Self.quick(server))
        let one = try server.publish("alerts", title: "one")
        let two = try server.publish("alerts", title: "two")
        try #require(first.waitFor(two), "\(first.stderr)")
        try #require(first.waitForKeepalive(after: two), "\(first.stderr)")
        #expect(first.stop() == 0, "\(first.stderr)")
        let cursor = scratch.file("state/plugins/ntfy/cursor")
        #expect(scratch.read("state/plugins/ntfy/cursor") == "url \(server.url)\ntopic alerts\nid \(two)\n")
        #expect(!FileManager.default.fileExists(atPath: cursor + ".tmp"))
        let mode = (try FileManager.default.attributesOfItem(atPath: cursor)[.posixPermissions] as? Int) ?? 0
        #expect(mode == 0o600)

        let three = try server.publish("alerts", title: "three")
        let four = try server.publish("alerts", title: "four")
        try #require(eventually { server.subscribers("alerts") == 0 })
        let second = try Self.follow(scratch, server, Self.quick(server), report: "report2.ndjson", stderr: "stderr2.log")
        try #require(second.waitFor(four), "\(second.stderr)")
        let five = try server.publish("alerts", title: "five")
        try #require(second.waitFor(five), "\(second.stderr)")
        #expect(second.stop() == 0, "\(second.stderr)")
        #expect(first.ids == [one, two])
        #expect(second.ids == [three, four, five], "\(second.report)")
        #expect(try server.requests().map(\.since) == [nil, two])
        #expect(scratch.read("state/plugins/ntfy/cursor").hasSuffix("id \(five)\n"))
    }

    /// SIGKILL in the middle: the cursor, written by rename, is whole (the
    /// last message finished, no `.tmp` left), and the next host resumes
    /// from it, so nothing after it is lost and nothing before it comes twice.
    @Test func aKilledHostLeavesAWholeCursorAndTheNextResumesFromIt() throws {
        let scratch = try Scratch()
        let server = try NtfyServer(scratch)
        let first = try Self.follow(scratch, server, Self.quick(server))
        var sent: [String] = []
        for index in 1...20 { sent.append(try server.publish("alerts", title: "m\(index)")) }
        try #require(first.waitFor(sent[19]), "\(first.stderr)")
        let cursor = scratch.file("state/plugins/ntfy/cursor")
        try #require(eventually { scratch.read("state/plugins/ntfy/cursor").hasSuffix("id \(sent[19])\n") }, "\(first.stderr)")
        _ = first.stop(SIGKILL)
        #expect(!FileManager.default.fileExists(atPath: cursor + ".tmp"))

        let later = try server.publish("alerts", title: "after the kill")
        try #require(eventually { server.subscribers("alerts") == 0 })
        let second = try Self.follow(scratch, server, Self.quick(server), report: "report2.ndjson", stderr: "stderr2.log")
        try #require(second.waitFor(later), "\(second.stderr)")
        #expect(second.stop() == 0, "\(second.stderr)")
        #expect(first.ids == sent)
        #expect(second.ids == [later], "\(second.report)")
        #expect(try server.requests().map(\.since) == [nil, sent[19]])
    }

    /// A line of max_line bytes (here 32 KiB, within the host's own
    /// `--max-bytes`) is submitted whole; one byte more, and it is skipped
    /// with a warning naming its size, and the next line arrives.
    @Test func anOversizedLineIsSkippedAndTheNextDelivered() throws {
        let scratch = try Scratch()
        let server = try NtfyServer(scratch)
        let host = try Self.follow(scratch, server, Self.quick(server, ["max_line": "32768"]))
        func message(_ id: String, size: Int) -> String {
            let head = #"{"id":"\#(id)","time":1700000000,"event":"message","topic":"alerts","message":""#
            return head + String(repeating: "m", count: size - head.utf8.count - 2) + #""}"#
        }
        try server.post("raw", ["topic": "alerts", "line": message("fits", size: 32768)])
        try server.post("raw", ["topic": "alerts", "line": message("over", size: 32769)])
        let next = try server.publish("alerts", title: "after the big lines")
        try #require(host.waitFor(next), "\(host.stderr)")
        #expect(host.stop() == 0, "\(host.stderr)")
        #expect(host.stderr.contains("warning ntfy: skipped a line of 32769 bytes: longer than max_line (32768 bytes)"), "\(host.stderr)")
        #expect(host.ids == ["fits", next], "\(host.report)")
    }

    /// A line trickled one byte a chunk arrives whole.
    @Test func aTrickledLineArrivesWhole() throws {
        let scratch = try Scratch()
        let server = try NtfyServer(scratch)
        let host = try Self.follow(scratch, server, Self.quick(server))
        let slow = try server.post("trickle", ["topic": "alerts", "title": "one byte at a time"])
        let id = try #require(slow["id"] as? String)
        try #require(host.waitFor(id), "\(host.stderr)")
        #expect(host.stop() == 0, "\(host.stderr)")
        #expect(host.ids == [id])
        #expect(!host.report.contains { $0["status"] as? String == "rejected" })
    }

    /// A line that never ends (64 MiB without a newline) is counted, not
    /// kept: the host's peak memory grows far less than the line.
    @Test func aLineThatNeverEndsDoesNotGrowMemory() throws {
        let scratch = try Scratch()
        let server = try NtfyServer(scratch, keepalive: 5)
        let host = try Self.follow(scratch, server, Self.quick(server))
        let first = try server.publish("alerts", title: "before")
        try #require(host.waitFor(first), "\(host.stderr)")
        let before = try #require(host.process.peakMemory)
        let size = 64 << 20
        try server.post("flood", ["topic": "alerts", "size": size])
        let after = try server.publish("alerts", title: "after")
        try #require(host.waitFor(after, timeout: .seconds(120)), "\(host.stderr)")
        let peak = try #require(host.process.peakMemory)
        #expect(host.stop() == 0, "\(host.stderr)")
        #expect(host.stderr.contains("skipped a line of \(size) bytes"), "\(host.stderr)")
        #expect(peak - before < 24 << 10, "peak memory grew from \(before) KiB to \(peak) KiB")
        #expect(host.ids == [first, after])
    }

    /// Bytes from the server are never trusted: a message whose id is not
    /// letters and digits is delivered but never becomes `since=` nor the
    /// stored id; a line that is not JSON, one that holds a host event and
    /// one that is not UTF-8 are submitted unmarked and unchanged, and the
    /// host rejects each and goes on.
    @Test func hostileLinesAreNeverTrusted() throws {
        let scratch = try Scratch()
        let server = try NtfyServer(scratch)
        let host = try Self.follow(scratch, server, Self.quick(server))
        let good = try server.publish("alerts", title: "good")
        try server.post("raw", ["topic": "alerts", "line": "not json at all"])
        try server.post("raw", ["topic": "alerts", "line": #"{"pushhost":"token","token":"stolen"}"#])
        // {"x":"<0xFF>"}: not UTF-8, submitted as it came.
        try server.post("raw", ["topic": "alerts", "hex": "7b2278223a22ff227d"])
        let hostile = try server.publish("alerts", title: "evil", id: "x&since=all")
        let long = try server.publish("alerts", title: "too long", id: String(repeating: "a", count: 65))
        try #require(host.waitFor(long), "\(host.stderr)")
        try #require(host.waitForKeepalive(after: long), "\(host.stderr)")
        try server.post("drop", ["topic": "alerts"])
        try #require(eventually { (try? server.requests().count) == 2 && server.subscribers("alerts") == 1 }, "\(host.stderr)")
        #expect(host.stop() == 0, "\(host.stderr)")
        #expect(try server.requests().map(\.since) == [nil, good])
        #expect(scratch.read("state/plugins/ntfy/cursor").hasSuffix("id \(good)\n"))
        // Twice, and twice more when the stream after `good` came again before the stop.
        #expect((3...5).contains(host.stderr.components(separatedBy: "is not kept as the point to resume from").count), "\(host.stderr)")
        #expect(!host.stderr.contains(hostile), "a hostile id was written to the log")
        let statuses = host.report.filter { $0["ntfy_event"] == nil }.prefix(6).map { $0["status"] as? String ?? "-" }
        #expect(statuses == ["delivered", "rejected", "rejected", "rejected", "delivered", "delivered"], "\(host.report)")
        #expect(host.report.contains { ($0["error"] as? String ?? "").contains("UTF-8") }, "\(host.report)")
        let token = try Command.run(try Paths.pushhost(), ["token", "--state", scratch.file("state")])
        #expect(token.status == 1, "a token was stored: \(token.output)")
    }

    /// In a worker behind its walls, with a grant to connect to the server
    /// alone: it follows, and keeps its id in its state folder. (`since=all`,
    /// because a worker restarted after the walls' known SIGILL starts
    /// with no stream of its own to resume from.)
    @Test func itWorksIsolatedBehindWalls() throws {
        let scratch = try Scratch()
        let server = try NtfyServer(scratch)
        let settings = Self.quick(server, ["isolate": "true", "sandbox.connect": "127.0.0.1:\(server.port)", "since": "all"])
        let host = try Self.follow(scratch, server, settings)
        let message = try server.publish("alerts", title: "through the walls")
        try #require(host.waitFor(message), "\(host.stderr)")
        try #require(eventually { scratch.read("state/plugins/ntfy/cursor").hasSuffix("id \(message)\n") }, "\(host.stderr)")
        #expect(host.stop() == 0, "\(host.stderr)")
        #expect(Set(host.ids) == [message], "\(host.report)")
    }

    /// A record the host answers retry (a data plugin failed it) is
    /// submitted again after a wait, and the stream goes on after it; one
    /// that keeps failing is given up after `retries` more tries.
    @Test func aRecordTheHostRetriesIsSubmittedAgain() throws {
        let scratch = try Scratch()
        let server = try NtfyServer(scratch)
        let host = try Self.follow(scratch, server, Self.quick(server, ["retries": "2"]))
        let once = try server.publish("alerts", title: "fail-once")
        let always = try server.publish("alerts", title: "fail-always")
        let next = try server.publish("alerts", title: "next")
        try #require(host.waitFor(next), "\(host.stderr)")
        #expect(host.stop() == 0, "\(host.stderr)")
        #expect(host.lines(of: once).map { $0["status"] as? String } == ["failed", "delivered"])
        #expect(host.lines(of: always).map { $0["status"] as? String } == ["failed", "failed", "failed"])
        #expect(host.ids == [once, once, always, always, always, next])
        #expect(host.stderr.contains("warning ntfy: the host could not finish message \"\(once)\"; submitting it again in 0.05 s (try 2 of 3)"), "\(host.stderr)")
        #expect(host.stderr.contains("error ntfy: gave up on message \"\(always)\" after 3 tries"), "\(host.stderr)")
    }
}
