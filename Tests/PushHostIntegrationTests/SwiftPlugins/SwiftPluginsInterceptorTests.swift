import Foundation
import Testing

/// A Swift plugin that adopts `Interceptor`: it sees each push message
/// before the data stage, edits it through its `Chain`, passes it on (at
/// once or later) and learns its outcome from `proceed()`, or stops it by
/// returning `.suppressed` or `.failed`.
///
/// The plugin, `marker`, is one of `PluginPackage`'s; `debounce` is this
/// repository's sample.
@Suite struct SwiftPluginsInterceptorTests {
    /// `marker` that writes to `marker.log`, `quick` to `quick.log`, and the
    /// background probe `bg`.
    static func plugins(_ scratch: Scratch) throws -> [String] {
        let package = try PluginPackage.shared()
        return loading(package.library("marker"), as: "marker", ["log": scratch.file("marker.log")])
            + loading(package.library("quick"), as: "quick", ["log": scratch.file("quick.log")])
            + (try scratch.probe("bg", [.background]))
    }

    /// An interceptor that proceeds without suspending does so during the
    /// host's `intercept` call, on the host's thread: the data stage and the
    /// UI stage follow as without it, and `proceed()` returns each message's
    /// outcome with the report line the host wrote.
    @Test func proceedWithoutSuspendingPassesTheMessageOnAtOnce() throws {
        let scratch = try Scratch()
        let result = try scratch.run(try Self.plugins(scratch), stdin: ndjson(gcm("m1"), gcm("m2", target: "news")))
        #expect(result.status == 0, "\(result.stderr)")
        #expect(!result.stderr.contains("warning marker"), "\(result.stderr)")

        let report = try result.report()
        #expect(report.map { $0["id"] as? String } == ["m1", "m2"])
        #expect(report.map { $0["status"] as? String } == ["delivered", "delivered"])
        #expect(report.allSatisfy { $0["by"] == nil }, "\(report)")
        #expect(scratch.lines("quick.log") == [["continue", "m1", "host-thread"], ["continue", "m2", "host-thread"]])
        #expect(scratch.probeCalls() == ["bg background m1", "bg background m2"])

        let marker = scratch.lines("marker.log")
        #expect(marker.filter { $0.first == "proceed" } == [["proceed", "m1", "host-thread"], ["proceed", "m2", "host-thread"]])
        let lines = result.stdout.split(separator: "\n").map(String.init)
        #expect(outcomes(marker) == [
            ["outcome", "m1", "delivered", "-", "-", lines.first ?? "?"],
            ["outcome", "m2", "delivered", "-", "-", lines.last ?? "?"],
        ])
    }

    /// A message the interceptor holds (it awaits before proceeding) does
    /// not hold back the messages behind it: they are reported first, and
    /// it follows once passed on, from another thread.
    @Test func heldMessageLetsTheMessagesBehindItGoFirst() throws {
        let scratch = try Scratch()
        let start = ContinuousClock.now
        let result = try scratch.run(try Self.plugins(scratch), stdin: ndjson(
            gcm("m1", data: ["sleep_ms": "300"]), gcm("m2"), gcm("m3")))
        let elapsed = ContinuousClock.now - start
        #expect(result.status == 0, "\(result.stderr)")
        #expect(elapsed >= .milliseconds(300))

        let report = try result.report()
        #expect(report.map { $0["id"] as? String } == ["m2", "m3", "m1"])
        #expect(report.map { $0["status"] as? String } == ["delivered", "delivered", "delivered"])
        #expect(scratch.probeCalls() == ["bg background m2", "bg background m3", "bg background m1"])
        let marker = scratch.lines("marker.log")
        #expect(marker.filter { $0.first == "proceed" } == [
            ["proceed", "m2", "host-thread"], ["proceed", "m3", "host-thread"], ["proceed", "m1", "other-thread"],
        ])
        #expect(outcomes(marker).map { Array($0.prefix(3)) } == [
            ["outcome", "m1", "delivered"], ["outcome", "m2", "delivered"], ["outcome", "m3", "delivered"],
        ])
    }

    /// An interceptor that returns `.suppressed(reason)` or `.failed(reason)`
    /// without proceeding stops the message: no data or UI stage, and the
    /// report says by whom and why.
    @Test func returnedStopIsReportedWithTheInterceptorAndItsReason() throws {
        let scratch = try Scratch()
        let result = try scratch.run(try Self.plugins(scratch), stdin: ndjson(
            gcm("m1", data: ["stop": "suppress"]), gcm("m2", data: ["stop": "fail"]), gcm("m3")))
        #expect(result.status == 0, "\(result.stderr)")

        let report = try result.report()
        #expect(report.map { $0["id"] as? String } == ["m1", "m2", "m3"])
        #expect(report.map { $0["status"] as? String } == ["suppressed", "failed", "delivered"])
        #expect(report.map { $0["by"] as? String } == ["marker", "marker", nil])
        #expect(report[0]["reason"] as? String == "told to", "\(report[0])")
        #expect((report[1]["error"] as? String)?.contains("told to") == true, "\(report[1])")
        #expect(report.map { ($0["data"] as? [Any])?.count } == [0, 0, 1])
        #expect(scratch.lines("quick.log").map { $0[1] } == ["m3"])
        #expect(scratch.probeCalls() == ["bg background m3"])
        // A stopped message gets no outcome: the interceptor did not proceed it.
        #expect(outcomes(scratch.lines("marker.log")).map { $0[1] } == ["m3"])
    }

    /// `set` edits the message in place: the interceptor reads its edit
    /// back through `chain.message`, and the data plugin after it sees it;
    /// `set(_:to:)` quotes any text as a JSON string. Invalid JSON is
    /// refused (false, nothing changed); `remove` takes a field away.
    @Test func editsReachThePluginsAfterTheInterceptor() throws {
        let package = try PluginPackage.shared()
        let scratch = try Scratch()
        let plugins = loading(package.library("marker"), as: "marker", ["log": scratch.file("marker.log")])
            + loading(package.library("keeper"), as: "keeper", ["log": scratch.file("keeper.log"), "keys": "mark,marked"])
        let text = "say \"hi\" \\ é \u{1} ☃ </b>"
        let result = try scratch.run(plugins, stdin: ndjson(
            gcm("m1", data: ["mark": "yes"]), gcm("m2", data: ["mark": "bad"]), gcm("m3", data: ["mark": "remove"]),
            gcm("m4", data: ["mark": "text", "text": text])))
        #expect(result.status == 0, "\(result.stderr)")
        #expect(try result.report().map { $0["status"] as? String } == ["delivered", "delivered", "delivered", "delivered"])

        #expect(scratch.lines("marker.log").filter { $0.first == "set" } == [
            ["set", "m1", "true", "yes", "yes"], ["set", "m2", "false", "-", "bad"], ["set", "m3", "true", "-", "-"],
            ["set", "m4", "true", text, "text"],
        ])
        #expect(result.stderr.contains("set data.marked refused for message m2"), "\(result.stderr)")
        // keeper's data lines: event, id, target, priority, title, body, then data[mark], data[marked].
        let seen = scratch.lines("keeper.log").filter { $0.first == "data" }
        #expect(seen.map { $0.count > 7 ? [$0[1], $0[6], $0[7]] : $0 } == [
            ["m1", "yes", "yes"], ["m2", "bad", "-"], ["m3", "-", "-"], ["m4", "text", text],
        ])
        #expect(seen.first?.last?.contains(#""marked":"yes""#) == true, "\(seen)")
    }

    /// `proceed()` returns what became of the message after the
    /// interceptor: the data plugin's verdict (suppressed, failed with its
    /// error), or delivered. A second `proceed()` returns the same outcome
    /// without passing the message on again; a stop returned after
    /// proceeding changes nothing and is logged.
    @Test func proceedReturnsTheOutcomeOfTheMessage() throws {
        let scratch = try Scratch()
        let result = try scratch.run(try Self.plugins(scratch), stdin: ndjson(
            gcm("m1", data: ["verdict": "suppress"]),
            gcm("m2", data: ["verdict": "throw"]),
            gcm("m3", data: ["again": "yes"]),
            gcm("m4", data: ["late_stop": "yes"])))
        #expect(result.status == 0, "\(result.stderr)")

        let report = try result.report()
        #expect(report.map { $0["id"] as? String } == ["m1", "m2", "m3", "m4"])
        #expect(report.map { $0["status"] as? String } == ["suppressed", "failed", "delivered", "delivered"])
        let lines = result.stdout.split(separator: "\n").map(String.init)
        let told = outcomes(scratch.lines("marker.log"))
        #expect(told.map { Array($0.prefix(3)) } == [
            ["outcome", "m1", "suppressed"], ["outcome", "m2", "failed"], ["outcome", "m3", "delivered"], ["outcome", "m4", "delivered"],
        ])
        #expect(told.map { $0.last } == lines)
        #expect(told.map { $0.count > 4 ? $0[4] : "?" } == ["-", "-", "-", "-"])
        #expect(told.count > 1 && told[1][3].contains("quick"), "\(told)")
        #expect(scratch.lines("marker.log").filter { $0.first == "again" } == [["again", "m3", "true"]])
        #expect(scratch.probeCalls() == ["bg background m3", "bg background m4"])
        #expect(result.stderr.contains("warning marker: message m4 was already passed on"), "\(result.stderr)")
    }

    /// An interceptor after `marker` stops a message `marker` proceeded:
    /// `marker`'s `proceed()` returns suppressed, with the reason and the
    /// name of the interceptor that stopped it.
    @Test func outcomeSaysWhichInterceptorStoppedTheMessage() throws {
        let package = try PluginPackage.shared()
        let scratch = try Scratch()
        let plugins = loading(package.library("marker"), as: "marker", ["log": scratch.file("marker.log")])
            + loading(Paths.sample("debounce"), as: "debounce", ["quiet_ms": "100"])
            + (try scratch.probe("bg", [.background]))
        let result = try scratch.run(plugins, stdin: ndjson(gcm("d1", target: "orders"), gcm("d2", target: "orders")))
        #expect(result.status == 0, "\(result.stderr)")

        #expect(outcomes(scratch.lines("marker.log")).map { Array($0.prefix(5)) } == [
            ["outcome", "d1", "suppressed", "superseded by d2", "debounce"], ["outcome", "d2", "delivered", "-", "-"],
        ])
    }

    /// `marker`, then `debounce` holding each message aimed at a target for
    /// a minute, then the background probe.
    static func holding(_ scratch: Scratch) throws -> [String] {
        let package = try PluginPackage.shared()
        return loading(package.library("marker"), as: "marker", ["log": scratch.file("marker.log")])
            + loading(Paths.sample("debounce"), as: "debounce", ["quiet_ms": "60000"])
            + (try scratch.probe("bg", [.background]))
    }

    /// Waits until `marker` wrote the outcome of `id`.
    static func waitForOutcome(_ id: String, in scratch: Scratch) -> Bool {
        eventually(timeout: .seconds(20)) { scratch.lines("marker.log").contains { $0.prefix(2) == ["outcome", id] } }
    }

    /// The host stops (SIGTERM) while `debounce` holds a spool file's
    /// message that `marker` passed on: the message gets no report line
    /// (its file stays in `new/`, to be taken again), and `marker`'s
    /// `proceed()` returns `stopped`, before its shutdown.
    @Test func stopWhileHeldGivesTheWaitingProceedStopped() throws {
        let scratch = try Scratch()
        let host = try scratch.startWatching(try Self.holding(scratch))
        try scratch.spool.drop("h1.json", gcm("h1", target: "orders"))
        try scratch.spool.drop("x1.json", gcm("x1"))
        // x1 has no target: once it is through, debounce holds h1.
        try #require(Self.waitForOutcome("x1", in: scratch), "\(host.stderr)")
        #expect(host.stop() == .status(0), "\(host.stderr)")

        #expect(try scratch.reportLines().map { $0["id"] as? String } == ["x1"])
        #expect(scratch.spool.names("new") == ["h1.json"])
        #expect(outcomes(scratch.lines("marker.log")).map { Array($0.prefix(5)) } == [
            ["outcome", "h1", "stopped", "-", "-"], ["outcome", "x1", "delivered", "-", "-"],
        ])
        #expect(scratch.probeCalls() == ["bg background x1"])
    }

    /// The same stop with the message from standard input, which cannot be
    /// read again: the host reports it failed, and that outcome, with the
    /// host's reason, is what `marker`'s `proceed()` returns.
    @Test func stopWhileHeldReportsALineOfStandardInputFailed() throws {
        let scratch = try Scratch()
        let input = Pipe()
        let host = try HostProcess(
            ["run", "--state", scratch.file("state"), "--report", scratch.file("report.ndjson")] + (try Self.holding(scratch)),
            errorPath: scratch.file("stderr.log"), input: input)
        input.fileHandleForWriting.write(Data(ndjson(gcm("h1", target: "orders"), gcm("x1")).utf8))
        try #require(Self.waitForOutcome("x1", in: scratch), "\(host.stderr)")
        #expect(host.stop() == .status(0), "\(host.stderr)")
        try? input.fileHandleForWriting.close()

        let report = try scratch.reportLines()
        #expect(report.map { $0["id"] as? String } == ["x1", "h1"])
        #expect(report.map { $0["status"] as? String } == ["delivered", "failed"])
        let told = outcomes(scratch.lines("marker.log"))
        #expect(told.map { Array($0.prefix(3)) } == [["outcome", "h1", "failed"], ["outcome", "x1", "delivered"]])
        #expect(told.first?[3] == report.last?["error"] as? String, "\(told)")
        #expect(told.first?[3].contains("debounce") == true, "\(told)")
    }

    /// The `debounce` sample keeps the last message of a burst for one
    /// target: each older one is suppressed as soon as a newer one comes,
    /// the last is passed on once the quiet period passed; other targets
    /// and messages without one are not held back by the burst.
    @Test func debounceKeepsTheLastMessageOfABurst() throws {
        let scratch = try Scratch()
        let plugins = loading(Paths.sample("debounce"), as: "debounce", ["quiet_ms": "200"])
            + (try scratch.probe("bg", [.background]))
        let start = ContinuousClock.now
        let result = try scratch.run(plugins, stdin: ndjson(
            gcm("o1", target: "orders"), gcm("o2", target: "orders"), gcm("n1", target: "news"),
            gcm("x1"), gcm("o3", target: "orders")))
        let elapsed = ContinuousClock.now - start
        #expect(result.status == 0, "\(result.stderr)")
        #expect(elapsed >= .milliseconds(200))

        let report = try result.report()
        let byID = Dictionary(report.map { ($0["id"] as? String ?? "?", $0) }, uniquingKeysWith: { first, _ in first })
        #expect(report.count == 5, "\(result.stdout)")
        #expect(["o1", "o2", "o3", "n1", "x1"].map { byID[$0]?["status"] as? String }
            == ["suppressed", "suppressed", "delivered", "delivered", "delivered"])
        #expect(byID["o1"]?["reason"] as? String == "superseded by o2")
        #expect(byID["o2"]?["reason"] as? String == "superseded by o3")
        #expect(["o1", "o2", "o3"].map { byID[$0]?["by"] as? String } == ["debounce", "debounce", nil])
        // x1 has no target: it goes on at once, ahead of the held ones.
        let order = report.map { $0["id"] as? String ?? "?" }
        #expect((order.firstIndex(of: "x1") ?? .max) < (order.firstIndex(of: "n1") ?? -1), "\(order)")
        #expect((order.firstIndex(of: "x1") ?? .max) < (order.firstIndex(of: "o3") ?? -1), "\(order)")
        #expect(Set(scratch.probeCalls()) == ["bg background x1", "bg background n1", "bg background o3"])

        #expect(result.stderr.contains("info debounce: target orders: 3 messages in a burst, kept o3"), "\(result.stderr)")
        #expect(!result.stderr.contains("target news"), "\(result.stderr)")
    }

    /// The `outcome` lines of `marker`'s log, by message id: each is
    /// written by the task that `on_outcome` resumed, so their order in
    /// the file is not the report's.
    func outcomes(_ lines: [[String]]) -> [[String]] {
        lines.filter { $0.first == "outcome" }.sorted { $0.dropFirst().first ?? "" < $1.dropFirst().first ?? "" }
    }
}
