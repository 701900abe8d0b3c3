import Foundation
import Testing

/// Issue 17, done when: under `--isolate` a plugin that crashes, hangs or
/// never answers fails only the message it was called for; its worker is
/// restarted and every other message is delivered, and the host exits 0.
@Suite struct IsolatedFaultTests {
    struct Case: Sendable, CustomTestStringConvertible {
        let fault: String
        let handler: String
        let flags: [String]
        let error: String
        /// Whether the worker is killed, so that a new one takes the messages behind.
        let restarts: Bool
        var testDescription: String { "\(fault) in \(handler)" }
    }

    static let cases = [
        Case(fault: "segv", handler: "on_data", flags: [], error: "plugin worker crashed in on_data: SIGSEGV", restarts: true),
        Case(fault: "abort", handler: "on_data", flags: [], error: "plugin worker crashed in on_data: SIGABRT", restarts: true),
        Case(fault: "segv", handler: "on_background", flags: [], error: "plugin worker crashed in on_background: SIGSEGV", restarts: true),
        Case(fault: "abort", handler: "on_background", flags: [], error: "plugin worker crashed in on_background: SIGABRT", restarts: true),
        Case(fault: "hang", handler: "on_data", flags: ["--handler-timeout", "1"],
             error: "plugin worker did not return from on_data within --handler-timeout 1.0s (its worker was killed)", restarts: true),
        Case(fault: "hang", handler: "on_background", flags: ["--handler-timeout", "1"],
             error: "plugin worker did not return from on_background within --handler-timeout 1.0s (its worker was killed)", restarts: true),
        Case(fault: "pending", handler: "on_data", flags: ["--data-timeout", "1"],
             error: "worker did not complete within --data-timeout 1.0s", restarts: false),
    ]

    static let input = ndjson(
        #"{"message_id":"m1","data":{}}"#, #"{"message_id":"m2","data":{"fault":"FAULT"}}"#,
        #"{"message_id":"m3","data":{}}"#, #"{"message_id":"m4","data":{}}"#)

    @Test(arguments: cases)
    func aFaultFailsOnlyItsMessage(_ fault: Case) throws {
        let scratch = try Scratch()
        // A data plugin is also the background plugin, so its messages are delivered.
        let roles: Set<ProbeRole> = fault.handler == "on_data" ? [.data, .background] : [.background]
        let run = try scratch.runHost(
            try scratch.worker(roles) + ["--isolate", "all"] + fault.flags,
            stdin: Self.input.replacingOccurrences(of: "FAULT", with: fault.fault))
        #expect(run.exit == .status(0), "\(run.stderr)")
        #expect(run.ids == ["m1", "m2", "m3", "m4"], "\(run.stderr)")
        #expect(run.statuses == ["delivered", "failed", "delivered", "delivered"])
        let failed = try #require(run.line("m2"))
        #expect(failed["error"] as? String == fault.error, "\(failed)")
        if fault.handler == "on_data" {
            #expect(failed["data"] as? [[String: String]] == [["plugin": "worker", "verdict": "failed"]])
        }
        for id in ["m1", "m3", "m4"] {
            #expect(run.line(id)?["ui"] as? [String] == ["worker"], "\(id)")
            #expect(run.line(id)?["error"] is NSNull, "\(id)")
        }
        if fault.error.contains("crashed") {
            let signal = fault.fault == "segv" ? "SIGSEGV" : "SIGABRT"
            #expect(run.stderrLines.contains {
                $0.contains("plugin worker crashed in \(fault.handler)") && $0.contains(signal) && $0.contains("restarting its worker")
            }, "\(run.stderr)")
        }

        // Each handler in message order; the failed message got no UI stage.
        let calls = scratch.workerCalls()
        #expect(calls.filter { $0.kind == fault.handler }.map(\.id) == ["m1", "m2", "m3", "m4"])
        if fault.handler == "on_data" {
            #expect(calls.filter { $0.kind == "on_background" }.map(\.id) == ["m1", "m3", "m4"])
        }
        try Self.expectWorkers(scratch.workerLines(), of: run, crashedAt: fault.restarts ? "m2" : nil)
    }

    /// Every line comes from a child of the host that is not the host; with
    /// `crashedAt`, the calls up to that message come from one worker, the
    /// later ones from another, and only the later one is destroyed.
    static func expectWorkers(_ lines: [WorkerLine], of run: HostRun, crashedAt id: String?) throws {
        let written = lines.filter { $0.pid != nil }
        try #require(!written.isEmpty)
        #expect(written.allSatisfy { $0.pid != run.pid }, "host \(run.pid): \(lines)")
        #expect(written.filter { $0.kind != "destroy" }.allSatisfy { $0.ppid == run.pid }, "host \(run.pid): \(lines)")
        let workers = written.byProcess
        guard let id else {
            #expect(Set(workers.map(\.pid)).count == 1, "\(lines)")
            #expect(lines.filter { $0.kind == "destroy" }.map(\.text) == ["destroy \(workers[0].pid)"])
            return
        }
        try #require(workers.count == 2, "one worker before the fault, one after: \(lines)")
        #expect(workers[0].pid != workers[1].pid)
        #expect(workers[0].lines.first?.kind == "create")
        #expect(workers[0].lines.last?.call.hasSuffix(" \(id)") == true, "the crashed worker's last call: \(lines)")
        #expect(workers[1].lines.first?.kind == "create")
        #expect(workers[1].lines.last?.text == "destroy \(workers[1].pid)")
        #expect(lines.filter { $0.kind == "destroy" }.count == 1, "\(lines)")
    }

    /// `--isolate NAME` and the settings file's `"isolate"` isolate that
    /// plugin alone: the other one stays in the host.
    @Test(arguments: [
        (["--isolate", "worker"], nil), (["--isolate=worker"], nil),
        ([], #"{"isolate": true}"#), ([], #"{"isolate": "true"}"#),
    ] as [([String], String?)])
    func oneIsolatedPluginBesideOneInTheHost(_ flags: [String], _ sidecar: String?) throws {
        let scratch = try Scratch()
        if let sidecar { try scratch.write("worker.json", sidecar) }
        let plugins = try scratch.worker("worker", [.data]) + scratch.worker("inhost", [.background])
        let input = Self.input.replacingOccurrences(of: "FAULT", with: "segv")
        let run = try scratch.runHost(plugins + flags, stdin: input)
        #expect(run.exit == .status(0), "\(run.stderr)")
        #expect(run.statuses == ["delivered", "failed", "delivered", "delivered"], "\(run.stderr)")
        #expect(run.line("m2")?["error"] as? String == "plugin worker crashed in on_data: SIGSEGV")
        #expect(run.line("m3")?["ui"] as? [String] == ["inhost"])
        #expect(scratch.workerCalls().map(\.call) == ["on_data m1", "on_data m2", "on_data m3", "on_data m4"])
        try Self.expectWorkers(scratch.workerLines(), of: run, crashedAt: "m2")
        // The plugin left in the host runs in the host's own process.
        let inHost = scratch.workerLines("inhost")
        #expect(inHost.map(\.call) == ["create", "on_background m1", "on_background m3", "on_background m4", "destroy"])
        #expect(inHost.allSatisfy { $0.pid == run.pid }, "host \(run.pid): \(inHost)")
    }

    /// The calls a worker answered in the batch before the one that crashed
    /// keep their answers (they are in the shared ring before the crash):
    /// of 400 messages in one go, only the crashing one fails, and the
    /// worker saw each of the others once.
    @Test func aCrashLosesNoAnswerGivenBeforeIt() throws {
        let scratch = try Scratch()
        var input = messages("m", 400)
        input[299] = #"{"message_id":"m300","data":{"fault":"segv"}}"#
        let run = try scratch.runHost(try scratch.worker([.data]) + ["--isolate", "all"], stdin: ndjson(input))
        #expect(run.exit == .status(0), "\(run.stderr)")
        #expect(run.report.count == 400)
        let failed = run.report.filter { $0["status"] as? String == "failed" }.map { $0["id"] as? String }
        #expect(failed == ["m300"], "\(run.stderr)")
        let calls = scratch.workerCalls().map(\.call).filter { $0.hasPrefix("on_data") }
        #expect(calls.count == 400, "each message once, the crashing one included: \(calls.count)")
    }

    /// `--worker-memory 64`: a worker that leaks 4 MiB a call is replaced
    /// between calls, each old one destroyed first; no message fails.
    @Test func aLeakingWorkerIsReplacedWithoutFailingAnyMessage() throws {
        let scratch = try Scratch()
        let run = try scratch.runHost(
            try scratch.worker([.background]) + ["--isolate", "all", "--worker-memory", "64"],
            stdin: ndjson(messages("m", 60, data: #""fault":"leak""#)))
        #expect(run.exit == .status(0), "\(run.stderr)")
        #expect(run.report.count == 60)
        #expect(run.statuses.allSatisfy { $0 == "delivered" }, "\(run.report.filter { $0["status"] as? String != "delivered" })")
        #expect(run.stderrLines.contains { $0.contains("over --worker-memory 64 MiB") && $0.contains("restarting") }, "\(run.stderr)")
        let lines = scratch.workerLines()
        #expect(lines.filter(\.isCall).map(\.id) == (1...60).map { String(format: "m%02d", $0) })
        #expect(lines.filter { $0.pid != nil }.allSatisfy { $0.pid != run.pid })
        let workers = lines.byProcess
        // 60 calls of 4 MiB each cannot fit in fewer than four workers of 64 MiB.
        #expect(workers.count >= 4, "\(workers.map { ($0.pid, $0.lines.count) })")
        #expect(Set(workers.map(\.pid)).count == workers.count, "a worker came back after another: \(lines)")
        for worker in workers {
            #expect(worker.lines.first?.kind == "create", "\(worker.lines)")
            #expect(worker.lines.last?.text == "destroy \(worker.pid)", "destroyed before the next worker starts: \(worker.lines) \(run.stderr)")
            #expect(worker.lines.filter(\.isCall).count <= 17, "over 64 MiB after 17 calls at most: \(worker.lines)")
        }
    }
}
