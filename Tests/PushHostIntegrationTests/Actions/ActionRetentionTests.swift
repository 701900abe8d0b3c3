import Foundation
import Testing

/// A retained action survives a restart of the host, reaches its screen
/// when the screen shows (by an event, or by `--foreground` at start), and
/// expires after `--retain-for`, each with a report line.
@Suite struct ActionRetentionTests {
    typealias Route = ActionRouteTests

    @Test func aRetainedActionReachesItsScreenAfterARestart() throws {
        let scratch = try Scratch()
        let plugins = try Route.app(scratch)
        let first = try scratch.run(plugins, stdin: ndjson(
            Route.message("m1", target: "a"), Route.action("m1", "reply", input: "later")))
        #expect(first.status == 0, "\(first.stderr)")
        #expect(try first.report()[1]["status"] as? String == "retained")
        let second = try scratch.run(plugins, stdin: ndjson(#"{"pushhost":"foreground","screen":"s1"}"#))
        #expect(second.status == 0, "\(second.stderr)")
        #expect(Route.actionCalls(scratch) == ["bg m1 reply later", "s1 m1 reply later"])
        let report = try second.report()
        try #require(report.count == 2)
        #expect(report[1]["status"] as? String == "delivered")
        #expect(report[1]["action"] as? String == "reply")
        #expect((report[1]["source"] as? [String: Any])?["line"] as? Int == 2)
        // Delivered once: a third run has nothing left to deliver.
        let third = try scratch.run(plugins, stdin: ndjson(#"{"pushhost":"foreground","screen":"s1"}"#))
        #expect(try third.report().count == 1)
        #expect(Route.actionCalls(scratch).count == 2)
    }

    @Test func startingWithItsScreenVisibleDeliversItAtOnce() throws {
        let scratch = try Scratch()
        let plugins = try Route.app(scratch)
        _ = try scratch.run(plugins, stdin: ndjson(Route.message("m1", target: "a"), Route.action("m1", "tap")))
        let second = try scratch.run(plugins + ["--foreground", "s1"], stdin: "")
        #expect(second.status == 0, "\(second.stderr)")
        #expect(Route.actionCalls(scratch) == ["bg m1 tap NULL", "s1 m1 tap NULL"])
        #expect(try second.report().map { $0["status"] as? String } == ["delivered"])
    }

    @Test func anActionRetainedTooLongExpires() throws {
        let scratch = try Scratch()
        let plugins = try Route.app(scratch)
        _ = try scratch.run(plugins + ["--retain-for", "1s"], stdin: ndjson(Route.message("m1", target: "a"), Route.action("m1", "tap")))
        Thread.sleep(forTimeInterval: 1.2)
        let second = try scratch.run(plugins + ["--retain-for", "1s", "--foreground", "s1"], stdin: "")
        #expect(second.status == 0, "\(second.stderr)")
        #expect(Route.actionCalls(scratch) == ["bg m1 tap NULL"])
        let report = try second.report()
        try #require(report.count == 1)
        #expect(report[0]["status"] as? String == "expired")
        #expect(report[0]["error"] as? String == #"no screen for target "a" became visible within --retain-for 1s"#)
        #expect(second.stderr.contains(#"action "tap" on message "m1" expired"#))
    }

    @Test func aRunningHostExpiresAnActionOnTime() throws {
        let scratch = try Scratch()
        try scratch.spool.create()
        let host = try scratch.startWatching(try Route.app(scratch) + ["--retain-for", "0.5"])
        try scratch.spool.drop("a.ndjson", ndjson(Route.message("m1", target: "a"), Route.action("m1", "tap")))
        #expect(host.waitForStderr(#"action "tap" on message "m1" expired"#, timeout: .seconds(10)))
        _ = host.stop()
    }

    @Test func aMessageFromAPrettyPrintedSpoolFileIsFoundByItsFileName() throws {
        let scratch = try Scratch()
        try scratch.spool.create()
        let plugins = try Route.app(scratch)
        let host = try scratch.startWatching(plugins)
        try scratch.spool.drop("pretty\"one\".json", """
            {
              "notification": {"title": "Printer jammed", "actions": [{"id": "open", "title": "Open"}]},
              "data": {"rx_gcm_key_target": "a"}
            }
            """)
        #expect(try eventually(timeout: .seconds(10)) { try scratch.reportLines().count == 1 })
        _ = host.stop()
        let result = try scratch.run(plugins + ["--foreground", "s1"], stdin: ndjson(Route.action(#"pretty\"one\".json"#, "open")))
        #expect(result.status == 0, "\(result.stderr)")
        #expect(Route.actionCalls(scratch) == [#"s1 pretty"one".json open NULL"#])
        let lines = try String(contentsOfFile: scratch.file("state/delivered.ndjson"), encoding: .utf8).split(separator: "\n")
        #expect(lines.count == 1)
    }

    @Test func aDeliveredMessageIsOnDiskWithinASecondEvenIfTheHostIsKilled() throws {
        let scratch = try Scratch()
        try scratch.spool.create()
        let plugins = try Route.app(scratch)
        let host = try scratch.startWatching(plugins + ["--foreground", "s1"])
        try scratch.spool.drop("m.json", Route.message("m1", target: "a"))
        #expect(try eventually(timeout: .seconds(10)) { try scratch.reportLines().count == 1 })
        let store = scratch.file("state/delivered.ndjson")
        #expect(eventually(timeout: .seconds(5)) { (try? String(contentsOfFile: store, encoding: .utf8))?.contains(#""id":"m1""#) == true })
        host.send(SIGKILL)
        _ = host.waitForExit()
        let result = try scratch.run(plugins + ["--foreground", "s1"], stdin: ndjson(Route.action("m1", "tap")))
        #expect(result.status == 0, "\(result.stderr)")
        #expect(Route.actionCalls(scratch) == ["s1 m1 tap NULL"])
    }
}
