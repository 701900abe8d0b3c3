import Foundation
import Testing

/// The limits of `--isolate`: a worker that crashes too often disables its
/// plugin, a name that is no plugin is a setup error, and the report keeps
/// input order with isolated and in-host plugins mixed.
@Suite struct WorkerLimitTests {
    static func message(_ id: String, _ data: String = "") -> String {
        #"{"message_id":"\#(id)","data":{\#(data)}}"#
    }

    static let crash = #""fault":"segv""#

    /// `--worker-crash-limit 1`: the second crash within the window disables
    /// the plugin; the messages behind fail with the reason; exit 0.
    @Test func theCrashAfterTheLimitDisablesThePlugin() throws {
        let scratch = try Scratch()
        let plugins = try scratch.worker([.data]) + scratch.worker("inhost", [.background])
        let run = try scratch.runHost(plugins + ["--isolate", "worker", "--worker-crash-limit", "1", "--worker-crash-window", "60"], stdin: ndjson(
            Self.message("m1"), Self.message("m2", Self.crash), Self.message("m3"), Self.message("m4", Self.crash),
            Self.message("m5"), Self.message("m6")))
        #expect(run.exit == .status(0), "\(run.stderr)")
        #expect(run.statuses == ["delivered", "failed", "delivered", "failed", "failed", "failed"], "\(run.stderr)")
        #expect(run.line("m2")?["error"] as? String == "plugin worker crashed in on_data: SIGSEGV")
        #expect(run.line("m4")?["error"] as? String == "plugin worker crashed in on_data: SIGSEGV")
        // The contract writes the window as `Ss`; the host writes seconds as 1.0 elsewhere.
        let disabled = ["60s", "60.0s"].map { "plugin worker is disabled (its worker crashed more than --worker-crash-limit 1 times within \($0))" }
        for id in ["m5", "m6"] {
            let error = run.line(id)?["error"] as? String
            #expect(disabled.contains(error ?? ""), "\(id): \(String(describing: error))")
        }
        #expect(run.stderrLines.contains { $0.contains("plugin worker disabled: its worker crashed") && $0.contains("--worker-crash-limit") },
                "\(run.stderr)")
        // Never called again, and no third worker is started.
        let lines = scratch.workerLines()
        #expect(lines.filter(\.isCall).map(\.id) == ["m1", "m2", "m3", "m4"])
        #expect(lines.filter { $0.kind == "create" }.count == 2, "\(lines)")
        #expect(scratch.workerCalls("inhost").map(\.id) == ["m1", "m3"])
    }

    /// A worker that cannot start again after a crash (its create fails
    /// from then on) counts as one that crashed again: past the limit the
    /// plugin is disabled and the messages that wait for it fail, instead
    /// of waiting for a worker forever; the host exits 0.
    @Test func aWorkerThatCannotStartAgainCountsAsACrash() throws {
        let scratch = try Scratch()
        let plugins = try scratch.worker("worker", [.data], settings: ["create_fault": "again"]) + scratch.worker("inhost", [.background])
        let run = try scratch.runHost(
            plugins + ["--isolate", "worker", "--worker-crash-limit", "2"],
            stdin: ndjson(Self.message("m1"), Self.message("m2", Self.crash), Self.message("m3"), Self.message("m4")))
        #expect(run.exit == .status(0), "\(run.stderr)")
        #expect(run.statuses == ["delivered", "failed", "failed", "failed"], "\(run.stderr)")
        #expect(run.line("m2")?["error"] as? String == "plugin worker crashed in on_data: SIGSEGV")
        for id in ["m3", "m4"] {
            #expect((run.line(id)?["error"] as? String)?.hasPrefix("plugin worker is disabled") == true, "\(id): \(run.report)")
        }
        #expect(run.stderrLines.contains {
            $0.contains("plugin worker could not start its worker again: create returned NULL") && $0.contains("crash 2 of --worker-crash-limit 2")
        }, "\(run.stderr)")
        #expect(run.stderrLines.contains { $0.contains("plugin worker disabled: its worker crashed 3 times") }, "\(run.stderr)")
        #expect(scratch.workerCalls().map(\.call) == ["on_data m1", "on_data m2"])
        #expect(scratch.workerCalls("inhost").map(\.id) == ["m1"])
    }

    /// By default the sixth crash in a row disables the plugin; the restarts
    /// before it wait 0.1, 0.2, 0.4, 0.8 and 1.6 s.
    @Test func byDefaultTheSixthCrashDisablesAfterBackoffs() throws {
        let scratch = try Scratch()
        let crashes = (1...6).map { Self.message("c\($0)", Self.crash) }
        let start = ContinuousClock.now
        let run = try scratch.runHost(try scratch.worker([.background]) + ["--isolate", "all"],
                                      stdin: ndjson(crashes + [Self.message("after")]))
        let elapsed = ContinuousClock.now - start
        #expect(run.exit == .status(0), "\(run.stderr)")
        #expect(run.report.prefix(6).map { $0["error"] as? String } == Array(repeating: "plugin worker crashed in on_background: SIGSEGV", count: 6))
        let disabled = ["60s", "60.0s"].map { "plugin worker is disabled (its worker crashed more than --worker-crash-limit 5 times within \($0))" }
        #expect(disabled.contains(run.line("after")?["error"] as? String ?? ""), "\(run.report.last ?? [:])")
        #expect(scratch.workerCalls().map(\.id) == (1...6).map { "c\($0)" })
        #expect(elapsed >= .seconds(3), "restarted without backing off: \(elapsed)")
    }

    /// Crashes further apart than `--worker-crash-window` do not add up.
    @Test func crashesOutsideTheWindowDoNotDisable() throws {
        let scratch = try Scratch()
        let run = try scratch.runHost(
            try scratch.worker([.data]) + scratch.worker("inhost", [.background])
                + ["--isolate", "worker", "--worker-crash-limit", "1", "--worker-crash-window", "1"],
            stdin: ndjson(
                Self.message("m1", Self.crash), Self.message("m2", #""fault":"slow","ms":"1500""#),
                Self.message("m3", Self.crash), Self.message("m4")))
        #expect(run.exit == .status(0), "\(run.stderr)")
        #expect(run.statuses == ["failed", "delivered", "failed", "delivered"], "\(run.stderr)")
        #expect(run.line("m3")?["error"] as? String == "plugin worker crashed in on_data: SIGSEGV")
        #expect(!run.stderr.contains("disabled"), "\(run.stderr)")
        #expect(scratch.workerLines().byProcess.map { $0.lines.filter(\.isCall).map(\.call) } == [
            ["on_data m1"], ["on_data m2", "on_data m3"], ["on_data m4"],
        ])
        #expect(scratch.workerCalls("inhost").map(\.id) == ["m2", "m4"])
    }

    @Test func aNameThatIsNoLoadedPluginIsASetupError() throws {
        let scratch = try Scratch()
        let plugins = try scratch.worker([.background])
        let result = try scratch.run(plugins + ["--isolate", "nosuch"], stdin: ndjson(Self.message("m1")))
        #expect(result.status == 1, "\(result.stderr)")
        #expect(result.errorLines.contains("error pushhost: --isolate nosuch: no plugin named nosuch is loaded"), "\(result.stderr)")
        #expect(result.stdout.isEmpty)
        #expect(scratch.workerCalls().isEmpty)

        let skipping = try scratch.run(plugins + ["--isolate", "nosuch", "--skip-bad-plugins"], stdin: ndjson(Self.message("m1")))
        #expect(skipping.status == 0, "\(skipping.stderr)")
        #expect(skipping.errorLines.contains { $0.hasPrefix("warning ") && $0.contains("--isolate nosuch: no plugin named nosuch is loaded") },
                "\(skipping.stderr)")
        #expect(try skipping.report().map { $0["status"] as? String } == ["delivered"])
        #expect(scratch.workerCalls().map(\.call) == ["on_background m1"])
    }

    /// Report lines keep input order with isolated and in-host plugins mixed,
    /// answers that come late from worker threads, slow isolated calls, a
    /// host event and a bad line; UI calls keep message order across processes.
    @Test func reportLinesKeepInputOrder() throws {
        let scratch = try Scratch()
        let shared = ["log": scratch.file("shared.log")]
        let plugins = try scratch.worker("gate", [.data]) + scratch.worker("iso", [.background], settings: shared)
            + scratch.worker("inhost", [.background], settings: shared)
        var input: [String] = []
        for n in 1...30 {
            let id = String(format: "m%02d", n)
            input.append(Self.message(id, n % 5 == 0 ? #""fault":"later""# : n % 7 == 0 ? #""fault":"slow","ms":"100","only":"iso""# : ""))
            if n == 10 { input.append(#"{"pushhost":"token","token":"T1"}"#) }
            if n == 20 { input.append("not json") }
        }
        let run = try scratch.runHost(plugins + ["--isolate", "iso", "--isolate", "gate"], stdin: ndjson(input))
        #expect(run.exit == .status(0), "\(run.stderr)")
        #expect(run.report.map { ($0["source"] as? [String: Any])?["line"] as? Int } == Array(1...32), "\(run.stderr)")
        let ids = (1...30).map { String(format: "m%02d", $0) }
        #expect(run.report.compactMap { $0["id"] as? String } == ids)
        #expect(run.report[10]["event"] as? String == "token")
        #expect(run.report[21]["status"] as? String == "rejected")
        let messages = run.report.filter { $0["id"] is String }
        #expect(messages.allSatisfy { $0["status"] as? String == "delivered" && $0["ui"] as? [String] == ["iso", "inhost"] }, "\(run.stderr)")
        // Both background plugins append to one file: message by message (the UI
        // calls of one before any of the next), in load order: iso (its worker), then inhost.
        let calls = scratch.workerCalls(log: "shared.log").map { "\($0.call) \($0.pid == run.pid ? "host" : "worker")" }
        #expect(calls == ids.flatMap { ["on_background \($0) worker", "on_background \($0) host"] })
        #expect(scratch.workerCalls("gate").allSatisfy { $0.pid != run.pid && $0.ppid == run.pid })
        // At the end the workers destroy their plugins first, then the host its own.
        let ends = scratch.workerLines(log: "shared.log").filter { $0.kind == "destroy" }
        #expect(ends.map { $0.pid == run.pid } == [false, true], "\(ends)")
    }
}
