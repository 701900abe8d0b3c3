import Foundation
import Testing

/// How a Swift data handler's verdict reaches the host: returned from
/// `on_data` when the handler never suspends, through `complete` when it does.
@Suite struct SwiftPluginsDataTests {
    /// Messages for `quick`: each verdict at once, and one that suspends first.
    static let messages = ndjson(
        gcm("m1", data: ["verdict": "continue"]),
        gcm("m2", data: ["verdict": "suppress"]),
        gcm("m3", data: ["verdict": "throw"]),
        gcm("m4", data: ["verdict": "suppress", "sleep_ms": "100"]),
        gcm("m5"))

    /// With `--data-timeout 0` a pending verdict fails at once: the handlers
    /// that never suspend still give theirs, so `on_data` returned them
    /// itself, on the host's thread, with no `complete`; the one that
    /// suspended is counted as failed.
    @Test func handlerThatNeverSuspendsGivesItsVerdictWithoutComplete() throws {
        let package = try PluginPackage.shared()
        let scratch = try Scratch()
        let plugins = ["--data-timeout", "0"]
            + loading(package.library("quick"), as: "quick", ["log": scratch.file("quick.log")])
            + (try scratch.probe("bg", [.background]))
        let result = try scratch.run(plugins, stdin: Self.messages)
        #expect(result.status == 0, "\(result.stderr)")

        let report = try result.report()
        #expect(report.map { $0["id"] as? String } == ["m1", "m2", "m3", "m4", "m5"])
        #expect(report.map { $0["status"] as? String } == ["delivered", "suppressed", "failed", "failed", "delivered"])
        #expect(report.map { ($0["data"] as? [[String: String]])?.first?["verdict"] } == ["continue", "suppress", "failed", "failed", "continue"])
        #expect((report[2]["error"] as? String)?.contains("quick gave the verdict failed") == true, "\(report[2])")
        #expect((report[3]["error"] as? String)?.contains("quick did not complete within --data-timeout") == true, "\(report[3])")
        #expect(result.stderr.contains("error quick: message m3 failed: refused m3"), "\(result.stderr)")
        #expect(scratch.probeCalls() == ["bg background m1", "bg background m5"])
        #expect(Array(scratch.lines("quick.log").prefix(4)) == [
            ["continue", "m1", "host-thread"], ["suppress", "m2", "host-thread"], ["throw", "m3", "host-thread"], ["continue", "m5", "host-thread"],
        ])
    }

    /// A handler that suspends (`Task.sleep`) gets `PH_PENDING` and gives
    /// its verdict later through `complete`, from another thread; the
    /// others still answer at once, and the report keeps the input order.
    @Test func handlerThatSuspendsCompletesLater() throws {
        let package = try PluginPackage.shared()
        let scratch = try Scratch()
        let plugins = loading(package.library("quick"), as: "quick", ["log": scratch.file("quick.log")])
            + (try scratch.probe("bg", [.background]))
        let result = try scratch.run(plugins, stdin: Self.messages)
        #expect(result.status == 0, "\(result.stderr)")

        let report = try result.report()
        #expect(report.map { $0["id"] as? String } == ["m1", "m2", "m3", "m4", "m5"])
        #expect(report.map { $0["status"] as? String } == ["delivered", "suppressed", "failed", "suppressed", "delivered"])
        #expect(report.map { ($0["data"] as? [[String: String]])?.first?["verdict"] } == ["continue", "suppress", "failed", "suppress", "continue"])
        #expect(!result.stderr.contains("complete"), "\(result.stderr)")
        #expect(scratch.probeCalls() == ["bg background m1", "bg background m5"])
        #expect(scratch.lines("quick.log") == [
            ["continue", "m1", "host-thread"], ["suppress", "m2", "host-thread"], ["throw", "m3", "host-thread"],
            ["continue", "m5", "host-thread"], ["suppress", "m4", "other-thread"],
        ])
    }

    /// Once a handler that suspended is over, the next messages' handlers
    /// run at once on the host's thread again, one after a child task
    /// (`async let`) and one after a plain sleep: the plugin's runner takes
    /// calls again, and what it ran off the host's thread ended.
    @Test(arguments: ["yes", "no"])
    func handlersRunAtOnceAgainAfterOneThatSuspended(child: String) throws {
        let package = try PluginPackage.shared()
        let scratch = try Scratch()
        let plugins = loading(package.library("quick"), as: "quick", ["log": scratch.file("quick.log")])
            + (try scratch.probe("bg", [.background]))
        let input = Pipe()
        let host = try HostProcess(
            ["run", "--state", scratch.file("state"), "--report", scratch.file("report.ndjson")] + plugins,
            errorPath: scratch.file("stderr.log"), input: input)
        input.fileHandleForWriting.write(Data(ndjson(
            gcm("m1"), gcm("m2", data: ["verdict": "suppress", "sleep_ms": "50", "child": child])).utf8))
        let over = eventually(timeout: .seconds(20)) { scratch.lines("quick.log").count == 2 }
        try #require(over, "\(host.stderr)")
        input.fileHandleForWriting.write(Data(ndjson(
            gcm("m3", data: ["verdict": "suppress"]), gcm("m4"), gcm("m5", data: ["verdict": "throw"])).utf8))
        try input.fileHandleForWriting.close()
        #expect(host.waitForExit() == .status(0), "\(host.stderr)")

        #expect(scratch.lines("quick.log") == [
            ["continue", "m1", "host-thread"], ["suppress", "m2", "other-thread"],
            ["suppress", "m3", "host-thread"], ["continue", "m4", "host-thread"], ["throw", "m5", "host-thread"],
        ])
        let report = try scratch.reportLines()
        #expect(report.map { $0["status"] as? String } == ["delivered", "suppressed", "suppressed", "delivered", "failed"])
        #expect(scratch.probeCalls() == ["bg background m1", "bg background m4"])
    }
}
