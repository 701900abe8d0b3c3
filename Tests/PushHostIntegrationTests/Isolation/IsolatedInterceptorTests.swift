import Foundation
import Testing

/// An interceptor in a worker (`--isolate`): each turn crosses to its
/// worker, and its end comes back with the edits it made there, which the
/// host makes too (checked as any `set`); a turn held past the call ends
/// from the plugin's thread; `on_outcome` gets the report line there. A
/// crash costs the message under way, and only it.
@Suite struct IsolatedInterceptorTests {
    typealias Chain = InterceptorChainTests

    static func run(_ scratch: Scratch, _ plugins: [String], _ lines: String...) throws -> HostRun {
        try scratch.runHost(plugins + ["--isolate", "all"], stdin: lines.joined(separator: "\n") + "\n")
    }

    @Test func anEditMadeInTheWorkerIsSeenDownstream() throws {
        let scratch = try Scratch()
        let plugins = try scratch.probe("first", [.interceptor], settings: ["set": #"notification.image="https://img.test/a.png""#])
            + scratch.probe("second", [.interceptor], settings: ["get": "notification.image"])
            + scratch.probe("gate", [.data], settings: ["get": "notification.image,data.k"])
            + scratch.worker([.background])
        let run = try Self.run(scratch, plugins, Chain.message("m1", #""k":"v""#))
        #expect(run.exit == .status(0), "\(run.stderr)")
        #expect(run.statuses == ["delivered"], "\(run.stderr)")
        #expect(Chain.lines(scratch, "intercept") == ["first m1 a set=0", "second m1 a notification.image=https://img.test/a.png"])
        #expect(Chain.lines(scratch, "data") == ["gate m1 a notification.image=https://img.test/a.png data.k=v"])
        // Each worker writes its outcome line on its own: the two may land in either order.
        #expect(Chain.lines(scratch, "outcome").map { $0.prefix(9) }.sorted() == ["first m1 ", "second m1"])
        #expect(!run.stderr.contains("--isolate does not apply"), "\(run.stderr)")
        let children = scratch.workerLines().filter { $0.call.hasPrefix("on_background") }
        #expect(children.count == 1 && children.allSatisfy { $0.pid != run.pid }, "\(children)")
    }

    /// Stops, broken rules and refused edits read as they do in the host.
    @Test func stopsAndBrokenRulesReadAsInTheHost() throws {
        let scratch = try Scratch()
        let plugins = try scratch.probe("gate", [.interceptor]) + scratch.probe("bg", [.background])
        let run = try Self.run(
            scratch, plugins,
            Chain.message("m1", #""intercept":"suppress","reason":"seen it""#),
            Chain.message("m2", #""intercept":"fail","reason":"no quota""#),
            Chain.message("m3", #""intercept":"proceed-twice""#),
            Chain.message("m4", #""intercept":"continue""#),
            Chain.message("m5", #""set":"id=\"forged\"""#))
        #expect(run.exit == .status(0), "\(run.stderr)")
        let byID = Dictionary(uniqueKeysWithValues: run.report.map { ($0["id"] as? String ?? "", $0) })
        #expect(byID["m1"]?["status"] as? String == "suppressed" && byID["m1"]?["reason"] as? String == "seen it")
        #expect(byID["m2"]?["status"] as? String == "failed" && byID["m2"]?["error"] as? String == "no quota")
        #expect(byID["m3"]?["error"] as? String == "gate called proceed twice", "\(byID["m3"] ?? [:])")
        #expect(byID["m4"]?["error"] as? String == "gate stop with the verdict 0, which is neither PH_SUPPRESS nor PH_FAILED")
        #expect(byID.values.allSatisfy { $0["by"] == nil || $0["by"] as? String == "gate" })
        // A set the worker refused is refused in the host as well; the message went on unchanged.
        #expect(byID["m5"]?["status"] as? String == "delivered")
        #expect(Chain.lines(scratch, "intercept").contains("gate m5 a set=-1"), "\(Chain.lines(scratch, "intercept"))")
    }

    /// A turn held past the call ends from the plugin's thread, with an
    /// edit made there; the message behind it is not held back.
    @Test func aHeldTurnEndsLaterWithItsEdit() throws {
        let scratch = try Scratch()
        let plugins = try scratch.probe("slow", [.interceptor]) + scratch.probe("bg", [.background], settings: ["get": "notification.image"])
        let run = try Self.run(
            scratch, plugins,
            Chain.message("m1", #""intercept":"hold","delay_ms":"300","set_later":"notification.image=\"https://img.test/late.png\"""#),
            Chain.message("m2"))
        #expect(run.exit == .status(0), "\(run.stderr)")
        #expect(run.ids == ["m2", "m1"], "\(run.report)")
        #expect(run.statuses == ["delivered", "delivered"], "\(run.stderr)")
        #expect(Chain.lines(scratch, "later") == ["slow m1 a set=0"])
        #expect(Chain.lines(scratch, "background").contains("bg m1 a notification.image=https://img.test/late.png"),
                "\(Chain.lines(scratch, "background"))")
    }

    /// A crash in `intercept`, and one on the thread of a held turn: each
    /// fails its own message with the crash; the worker starts again and
    /// the messages after go through it. Nothing else is lost.
    @Test func aCrashCostsTheMessageItWasWorkingOn() throws {
        let scratch = try Scratch()
        let plugins = try scratch.probe("icept", [.interceptor]) + scratch.probe("bg", [.background])
        let run = try Self.run(
            scratch, plugins,
            Chain.message("m1", #""intercept":"segv""#),
            Chain.message("m2"),
            Chain.message("m3", #""intercept":"hold-segv","delay_ms":"200""#),
            Chain.message("m4", #""intercept":"hold","delay_ms":"400""#))
        #expect(run.exit == .status(0), "\(run.stderr)")
        let byID = Dictionary(uniqueKeysWithValues: run.report.map { ($0["id"] as? String ?? "", $0) })
        #expect(byID.count == 4, "\(run.report)")
        #expect(byID["m1"]?["status"] as? String == "failed")
        #expect(byID["m1"]?["error"] as? String == "plugin icept crashed in intercept: SIGSEGV", "\(byID["m1"] ?? [:])")
        #expect(byID["m2"]?["status"] as? String == "delivered", "\(run.stderr)")
        // m3 and m4 were both held when m3's thread crashed the worker: both fail, with the crash.
        for id in ["m3", "m4"] {
            #expect(byID[id]?["status"] as? String == "failed", "\(byID[id] ?? [:])")
            #expect(byID[id]?["error"] as? String == "plugin icept's worker ended (SIGSEGV) before it proceeded or stopped the message",
                    "\(byID[id] ?? [:])")
        }
        #expect(run.stderrLines.filter { $0.contains("plugin icept crashed") && $0.contains("restarting its worker") }.count == 2, "\(run.stderr)")
        #expect(Chain.lines(scratch, "background").map { $0.prefix(5) } == ["bg m2"])
    }

    /// A turn the host gave up on at its `--data-timeout` deadline is
    /// dropped in the worker too: the plugin's later `set` there is refused
    /// (it keeps nothing for a turn nobody waits for), and the message
    /// failed once, at the deadline.
    @Test func aTurnPastItsDeadlineIsDroppedInTheWorker() throws {
        let scratch = try Scratch()
        let input = Pipe()
        let host = try HostProcess(
            ["run", "--state", scratch.file("state"), "--report", scratch.file("report.ndjson"), "--isolate", "all", "--data-timeout", "1"]
                + scratch.probe("slow", [.interceptor]) + scratch.probe("bg", [.background]),
            errorPath: scratch.file("stderr.log"), input: input)
        let message = Chain.message("m1", #""intercept":"hold","delay_ms":"2500","set_later":"notification.image=\"https://img.test/late.png\"""#)
        input.fileHandleForWriting.write(Data((message + "\n").utf8))
        // The plugin's thread ends the turn after the deadline, while the host still runs.
        #expect(eventually(timeout: .seconds(20)) { !Chain.lines(scratch, "later").isEmpty }, "\(host.stderr)")
        try input.fileHandleForWriting.close()
        #expect(host.waitForExit() == .status(0), "\(host.stderr)")
        let report = try scratch.reportLines()
        #expect(report.map { $0["status"] as? String } == ["failed"], "\(report)")
        #expect(report.first?["error"] as? String == "slow did not proceed or stop within --data-timeout 1.0s")
        #expect(Chain.lines(scratch, "later") == ["slow m1 a set=-1"], "\(host.stderr)")
        #expect(host.stderr.contains("warning slow: set after its --data-timeout deadline passed; ignored"), "\(host.stderr)")
        #expect(Chain.lines(scratch, "background").isEmpty)
    }
}
