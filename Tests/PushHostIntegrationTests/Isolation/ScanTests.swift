import Foundation
import Testing

/// Issue 32, part 2: a plugin a run may isolate is read by a scan in a
/// short-lived worker, so nothing of its library runs in the host. A
/// plugin whose constructor or entry crashes, hangs or exits there is
/// refused with one line, as any refused plugin is, and the host goes on
/// with the others; `pushhost plugins --isolate all` lists it as refused.
/// (docs/running.md, Crash isolation.)
@Suite struct ScanTests {
    static let input = ndjson(messages("m", 2))

    /// Runs `--isolate all --skip-bad-plugins` with the scan plugin built
    /// with `defines` and a worker plugin: the host goes on without the scan
    /// plugin, refused with the one line `refused plugin FILE: REASON`, and
    /// delivers to the worker.
    static func expectRefusedAndTheOthersDelivered(_ defines: [String], reason: String, flags: [String] = []) throws {
        let scratch = try Scratch()
        let plugin = try scratch.scanPlugin(defines)
        let run = try scratch.runHost(
            ["--plugin", plugin] + scratch.worker([.background]) + ["--isolate", "all", "--skip-bad-plugins"] + flags, stdin: input)
        #expect(run.exit == .status(0), "\(run.stderr)")
        #expect(run.stderrLines.filter { $0.contains(plugin) } == ["error pushhost: refused plugin \(plugin): \(reason)"], "\(run.stderr)")
        #expect(run.statuses == ["delivered", "delivered"], "\(run.stderr)")
        #expect(run.report.allSatisfy { $0["ui"] as? [String] == ["worker"] }, "\(run.report)")
        #expect(scratch.workerCalls().map(\.call) == ["on_background m01", "on_background m02"])
    }

    @Test func aConstructorThatCrashesIsRefusedAndTheOthersGoOn() throws {
        try Self.expectRefusedAndTheOthersDelivered(["CONSTRUCTOR_SEGV"], reason: "crashed while loading: SIGSEGV")
    }

    @Test func anEntryThatHangsIsRefusedAfterTheHandlerTimeout() throws {
        try Self.expectRefusedAndTheOthersDelivered(
            ["ENTRY_HANG"], reason: "did not finish loading within --handler-timeout 1.0s (its worker was killed)", flags: ["--handler-timeout", "1"])
    }

    @Test func anEntryThatExitsIsRefused() throws {
        try Self.expectRefusedAndTheOthersDelivered(["ENTRY_EXIT"], reason: "exited while loading (exit status 3)")
    }

    /// The worker of a scan that hangs is killed, not left behind.
    @Test func theWorkerOfAScanThatHangsIsKilled() throws {
        let scratch = try Scratch()
        let plugin = try scratch.scanPlugin(["ENTRY_HANG"])
        let run = try scratch.runHost(
            ["--plugin", plugin, "--isolate", "all", "--skip-bad-plugins", "--handler-timeout", "1"], stdin: "",
            environment: try scratch.loadLog())
        #expect(run.exit == .status(0), "\(run.stderr)")
        let loads = scratch.loads()
        try #require(loads.count == 1, "\(loads)")
        #expect(loads[0].ppid == run.pid && loads[0].pid != run.pid)
        #expect(kill(loads[0].pid, 0) == -1 && errno == ESRCH, "the scan's worker \(loads[0].pid) is still there")
    }

    /// Without --skip-bad-plugins, a plugin refused by its scan is a setup
    /// error as any refused plugin is: nothing is created.
    @Test func withoutSkipBadPluginsTheRunDoesNotStart() throws {
        let scratch = try Scratch()
        let plugin = try scratch.scanPlugin(["CONSTRUCTOR_SEGV"])
        let run = try scratch.runHost(["--plugin", plugin] + scratch.worker([.background]) + ["--isolate", "all"], stdin: Self.input)
        #expect(run.exit == .status(1), "\(run.stderr)")
        #expect(run.stderrLines.contains("error pushhost: refused plugin \(plugin): crashed while loading: SIGSEGV"), "\(run.stderr)")
        #expect(run.stderrLines.contains("error pushhost: 1 of 2 plugins refused (--skip-bad-plugins goes on without them)"), "\(run.stderr)")
        #expect(run.report.isEmpty)
        #expect(scratch.workerLines().isEmpty)
    }

    /// `plugins --isolate all` scans in workers too: the crashing plugin is
    /// listed as refused (exit 1), the other as isolated.
    @Test func theListingShowsACrashingPluginAsRefused() throws {
        let scratch = try Scratch()
        let plugin = try scratch.scanPlugin(["CONSTRUCTOR_SEGV"])
        let worker = try scratch.worker([.background])[1]
        let text = try Command.pushhost(["plugins", "--isolate", "all", "--sandbox", "off", "--plugin", plugin, "--plugin", worker])
        #expect(text.status == 1, "\(text.stderr)")
        #expect(text.stdout.split(separator: "\n").map(String.init) == [
            "refused \(plugin): crashed while loading: SIGSEGV",
            "worker 1.0.0 (ABI 1.2) \(worker)",
            "  roles: background; extensions: unknown until it runs",
            "  isolated: yes (--isolate all)",
            "  A plugin that misbehaves on request.",
        ], "\(text.stdout)")
        let json = try Command.pushhost(["plugins", "--json", "--isolate", "all", "--plugin", plugin, "--plugin", worker])
        #expect(json.status == 1, "\(json.stderr)")
        let entries = try jsonLines(json.stdout)
        try #require(entries.count == 2, "\(json.stdout)")
        #expect(entries[0]["file"] as? String == plugin)
        #expect(entries[0]["refused"] as? String == "crashed while loading: SIGSEGV")
        #expect(entries[1]["name"] as? String == "worker" && entries[1]["isolated"] as? Bool == true, "\(entries[1])")
    }

    /// The host never maps an isolated plugin's library: its constructor
    /// runs in the scan's worker and in the plugin's worker, each a child of
    /// the host; without isolation, in the host alone. Isolating another
    /// plugin scans this one in a worker, then opens it in the host.
    @Test func theHostNeverOpensAnIsolatedLibrary() throws {
        let scratch = try Scratch()
        let plugin = try scratch.scanPlugin([])
        let environment = try scratch.loadLog()
        let isolated = try scratch.runHost(["--plugin", plugin, "--isolate", "all"], stdin: Self.input, tag: "all", environment: environment)
        #expect(isolated.exit == .status(0), "\(isolated.stderr)")
        #expect(isolated.statuses == ["delivered", "delivered"], "\(isolated.stderr)")
        let inWorkers = scratch.loads()
        #expect(inWorkers.count == 2, "a scan, then the plugin's worker: \(inWorkers)")
        #expect(inWorkers.allSatisfy { $0.pid != isolated.pid && $0.ppid == isolated.pid }, "host \(isolated.pid): \(inWorkers)")
        #expect(Set(inWorkers.map(\.pid)).count == inWorkers.count, "\(inWorkers)")

        _ = FileManager.default.createFile(atPath: scratch.file("pids"), contents: nil)
        let inHost = try scratch.runHost(["--plugin", plugin], stdin: Self.input, tag: "none", environment: environment)
        #expect(inHost.exit == .status(0), "\(inHost.stderr)")
        #expect(scratch.loads().map(\.pid) == [inHost.pid])

        _ = FileManager.default.createFile(atPath: scratch.file("pids"), contents: nil)
        let other = try scratch.runHost(
            ["--plugin", plugin] + scratch.worker([.background]) + ["--isolate", "worker"], stdin: Self.input, tag: "other", environment: environment)
        #expect(other.exit == .status(0), "\(other.stderr)")
        #expect(other.report.allSatisfy { $0["ui"] as? [String] == ["scan", "worker"] }, "\(other.report)")
        let loads = scratch.loads()
        try #require(loads.count == 2, "\(loads)")
        #expect(loads[0].pid != other.pid && loads[0].ppid == other.pid, "the scan, in a worker: \(loads)")
        #expect(loads[1].pid == other.pid, "then the host opens it: \(loads)")
    }

    /// A plugin whose descriptor in the host is not the one its scan read
    /// (it looks for --scan among its process's arguments) is refused: the
    /// checks made on the scanned descriptor (name, targets) would not hold.
    @Test func aPluginThatDescribesItselfOtherwiseInTheHostIsRefused() throws {
        let scratch = try Scratch()
        let plugin = try scratch.scanPlugin(["ENTRY_DIFFERS"])
        let run = try scratch.runHost(
            ["--plugin", plugin] + scratch.worker([.background]) + ["--isolate", "worker", "--skip-bad-plugins"], stdin: Self.input)
        #expect(run.exit == .status(0), "\(run.stderr)")
        #expect(run.stderrLines.contains(
            #"error pushhost: refused plugin \#(plugin): opened in the host, it is not what its scan read: the name "scan", where its scan read "scan-scanned""#),
            "\(run.stderr)")
        #expect(run.report.allSatisfy { $0["ui"] as? [String] == ["worker"] }, "\(run.report)")
    }
}

extension Scratch {
    /// Builds the scan plugin (Tests/Fixtures/plugins/scan.c) with `defines`, as `scan.so`.
    func scanPlugin(_ defines: [String]) throws -> String {
        try plugin("scan.so", PluginSource.fixture("scan", defines: defines))
    }

    /// The environment under which the scan plugin's constructor logs each
    /// load to `pids`, after writing its settings file (`scan.json`: `members`,
    /// then the grant of that log alone, which its walled scan and worker need).
    func loadLog(_ members: String = "") throws -> [String: String] {
        _ = FileManager.default.createFile(atPath: file("pids"), contents: nil)
        try write("scan.json", #"{\#(members)"sandbox": {"write": ["\#(file("pids"))"]}}"#)
        return ["PH_SCAN_PID_LOG": file("pids")]
    }

    /// The loads of the scan plugin's library, as its constructor wrote them to `pids`.
    func loads() -> [(pid: Int32, ppid: Int32)] {
        read("pids").split(separator: "\n").map { line in
            let fields = line.split(separator: " ").compactMap { Int32($0) }
            return (fields.first ?? 0, fields.count > 1 ? fields[1] : 0)
        }
    }
}
