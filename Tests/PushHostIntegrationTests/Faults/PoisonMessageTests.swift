import Foundation
import Testing

/// A message that crashes the host in a plugin's handler is tried again at
/// each start, and after `--crash-limit` crashes its spool file goes to
/// failed/ with an error naming the plugin, the handler and the signal,
/// while the files behind it go on.
@Suite struct PoisonMessageTests {
    /// Drops the poison file (oldest) and two good ones, then starts the host
    /// until it stops dying; returns the exits of every run.
    static func runUntilHandled(_ scratch: Scratch, fault: String, role: String, limit: Int) throws -> [HostProcess.Exit?] {
        let spool = scratch.spool
        try spool.create()
        try spool.drop("poison", #"{"message_id":"poison","data":{"fault":"\#(fault)"}}"#)
        try spool.setModified("poison", Date(timeIntervalSinceNow: -60))
        try spool.drop("good-1", #"{"data":{"n":"1"}}"#)
        try spool.drop("good-2", #"{"data":{"n":"2"}}"#)
        var exits: [HostProcess.Exit?] = []
        for run in 1...limit + 1 {
            let host = try scratch.startHost(
                try scratch.faulty(role) + ["--crash-limit", "\(limit)"], report: "report\(run).ndjson", errors: "stderr\(run).log")
            if run <= limit {
                exits.append(host.waitForExit(timeout: .seconds(60)))
                continue
            }
            let handled = eventually(timeout: .seconds(20)) { spool.count("new") == 0 }
            try #require(handled, "still in new/: \(spool.names("new"))\n\(host.stderr)")
            exits.append(host.stop())
        }
        return exits
    }

    @Test(arguments: [("segv", SIGSEGV, "SIGSEGV"), ("abort", SIGABRT, "SIGABRT")])
    func aCrashingDataHandlerFailsItsFileAfterTheLimit(_ fault: String, _ signal: Int32, _ name: String) throws {
        let scratch = try Scratch()
        let exits = try Self.runUntilHandled(scratch, fault: fault, role: "on_data", limit: 3)
        #expect(exits == [.signal(signal), .signal(signal), .signal(signal), .status(0)], "\(scratch.read("stderr4.log"))")
        let spool = scratch.spool
        #expect(spool.failedFiles == ["poison"])
        #expect(spool.names("cur") == ["good-1", "good-2"])
        // Tried once per run until the limit; never again after it.
        #expect(scratch.faultyCalls.filter { $0 == "on_data poison" }.count == 3)
        let reason = "plugin faulty crashed in on_data: \(name) (3 times: --crash-limit 3)"
        let problems = try #require(spool.errorReport("poison")["records"] as? [[String: Any]])
        #expect(problems.map { $0["error"] as? String } == [reason])
        #expect(problems.map { $0["status"] as? String } == ["failed"])
        let report = try scratch.reportLines("report4.ndjson")
        let poison = try #require(report.first { $0.sourceFile == "poison" })
        #expect(poison["status"] as? String == "failed")
        #expect(poison["error"] as? String == reason)
        #expect(report.filter { $0["status"] as? String == "undelivered" }.count == 2)
        // Each start says how the last run ended.
        #expect(scratch.read("stderr2.log").contains(
            "the last run ended on spool file poison: plugin faulty crashed in on_data: \(name) (crash 1 of --crash-limit 3: the file is tried again)"),
            "\(scratch.read("stderr2.log"))")
        #expect(scratch.read("stderr4.log").contains("(crash 3 of --crash-limit 3: the file goes to failed/)"))
    }

    @Test func aCrashingBackgroundHandlerIsCountedToo() throws {
        let scratch = try Scratch()
        let exits = try Self.runUntilHandled(scratch, fault: "segv", role: "on_background", limit: 1)
        #expect(exits == [.signal(SIGSEGV), .status(0)], "\(scratch.read("stderr2.log"))")
        #expect(scratch.spool.failedFiles == ["poison"])
        #expect(scratch.spool.names("cur") == ["good-1", "good-2"])
        let problems = try #require(scratch.spool.errorReport("poison")["records"] as? [[String: Any]])
        #expect(problems.map { $0["error"] as? String } == ["plugin faulty crashed in on_background: SIGSEGV (once: --crash-limit 1)"])
    }

    /// A file that moved on (handled by a good run) leaves no count behind:
    /// its name can come again and is tried afresh.
    @Test func aFileHandledAfterACrashStartsFromZero() throws {
        let scratch = try Scratch()
        let spool = scratch.spool
        try spool.create()
        try spool.drop("flaky", #"{"data":{"fault":"segv"}}"#)
        let first = try scratch.startHost(try scratch.faulty() + ["--crash-limit", "2"], errors: "stderr1.log")
        #expect(first.waitForExit(timeout: .seconds(60)) == .signal(SIGSEGV))
        // The producer fixes the file in place; the next run handles it.
        try Data(#"{"data":{"fault":"none"}}"#.utf8).write(to: URL(fileURLWithPath: spool.folder("new") + "/flaky"))
        let second = try scratch.startWatching(try scratch.faulty() + ["--crash-limit", "2"], errors: "stderr2.log")
        #expect(eventually(timeout: .seconds(20)) { spool.names("cur") == ["flaky"] }, "\(second.stderr)")
        #expect(second.stop() == .status(0))
        // The same name, poisoned again, gets the whole limit again.
        try spool.drop("flaky", #"{"data":{"fault":"segv"}}"#)
        let third = try scratch.startHost(try scratch.faulty() + ["--crash-limit", "2"], errors: "stderr3.log")
        #expect(third.waitForExit(timeout: .seconds(60)) == .signal(SIGSEGV))
        #expect(!scratch.read("stderr3.log").contains("the last run ended"), "\(scratch.read("stderr3.log"))")
        let fourth = try scratch.startHost(try scratch.faulty() + ["--crash-limit", "2"], errors: "stderr4.log")
        #expect(fourth.waitForExit(timeout: .seconds(60)) == .signal(SIGSEGV))
        #expect(scratch.read("stderr4.log").contains("(crash 1 of --crash-limit 2: the file is tried again)"), "\(scratch.read("stderr4.log"))")
    }
}
