import Foundation
import Testing

/// `--isolate` with `--watch`: a crash (or a hang past --handler-timeout) in a worker fails its record at once
/// (no host crash, no retry at the next start), and a stop lets the calls
/// under way in workers end, then destroys each worker's plugin.
@Suite struct IsolatedSpoolTests {
    @Test(arguments: [
        ("segv", "plugin worker crashed in on_data: SIGSEGV"), ("abort", "plugin worker crashed in on_data: SIGABRT"),
        ("hang", "plugin worker did not return from on_data within --handler-timeout 1.0s (its worker was killed)"),
    ])
    func aCrashSendsOnlyThePoisonFileToFailed(_ fault: String, _ error: String) throws {
        let scratch = try Scratch()
        let spool = scratch.spool
        try spool.create()
        try spool.drop("poison", #"{"message_id":"poison","data":{"fault":"\#(fault)"}}"#)
        try spool.setModified("poison", Date(timeIntervalSinceNow: -60))
        try spool.drop("good-1", #"{"message_id":"good-1","data":{}}"#)
        try spool.drop("good-2", #"{"message_id":"good-2","data":{}}"#)
        let host = try scratch.startWatching(try scratch.worker([.data, .background]) + ["--isolate", "all", "--handler-timeout", "1"])
        let handled = eventually(timeout: .seconds(30)) { spool.count("new") == 0 && spool.count("cur") == 2 && !spool.failedFiles.isEmpty }
        #expect(handled, "new/: \(spool.names("new")), cur/: \(spool.names("cur"))\n\(host.stderr)")
        // The host itself lives on; the next files are still taken.
        try spool.drop("good-3", #"{"message_id":"good-3","data":{}}"#)
        #expect(eventually(timeout: .seconds(20)) { spool.names("cur") == ["good-1", "good-2", "good-3"] }, "\(host.stderr)")
        #expect(host.stop() == .status(0), "\(host.stderr)")

        #expect(spool.names("new").isEmpty)
        #expect(spool.failedFiles == ["poison"])
        #expect(spool.names("cur") == ["good-1", "good-2", "good-3"])
        let records = try #require(spool.errorReport("poison")["records"] as? [[String: Any]])
        #expect(records.map { $0["error"] as? String } == [error])
        #expect(records.map { $0["status"] as? String } == ["failed"])
        let report = try scratch.reportLines()
        #expect(report.first { $0.sourceFile == "poison" }?["error"] as? String == error)
        #expect(report.filter { $0["status"] as? String == "delivered" }.compactMap(\.sourceFile).sorted() == ["good-1", "good-2", "good-3"])
        // Tried once only: the crash was the worker's, not the host's.
        let calls = scratch.workerCalls()
        #expect(calls.filter { $0.id == "poison" }.map(\.call) == ["on_data poison"])
        let crashed = try #require(calls.first { $0.id == "poison" }?.pid)
        #expect(calls.filter { $0.id == "good-3" }.allSatisfy { $0.pid != crashed && $0.pid != host.pid && $0.ppid == host.pid }, "\(calls)")
        #expect(!host.stderr.contains("the last run ended"))
    }

    /// A record's source travels in its message's image: a plugin in a
    /// worker reads the id the host gives a record without one (a spool
    /// file's name, with its line in a file of several records, however
    /// long the name) as the report has it.
    @Test func aWorkerReadsTheRecordsSourceAsTheHostDoes() throws {
        let scratch = try Scratch()
        let spool = scratch.spool
        let host = try scratch.startWatching(try scratch.worker([.background]) + ["--isolate", "all"])
        let long = String(repeating: "n", count: 240)
        try spool.drop("one.json", #"{"data":{}}"#)
        try spool.drop(long, #"{"data":{}}"#)
        try spool.drop("two.ndjson", #"{"data":{}}"# + "\n" + #"{"data":{}}"# + "\n")
        let ids = ["one.json", long, "two.ndjson#1", "two.ndjson#2"]
        #expect(eventually(timeout: .seconds(20)) { scratch.workerCalls().count == 4 }, "\(host.stderr)")
        #expect(host.stop() == .status(0), "\(host.stderr)")
        #expect(scratch.workerCalls().map(\.id).sorted() == ids.sorted(), "\(scratch.workerCalls())")
        #expect(try scratch.reportLines().compactMap { $0["id"] as? String }.sorted() == ids.sorted())
    }

    /// A stop while an isolated call is under way: the call ends (the file
    /// reaches cur/), then every worker destroys its plugin; exit 0.
    @Test func aStopWaitsForTheCallInAWorkerThenEachWorkerDestroys() throws {
        let scratch = try Scratch()
        let spool = scratch.spool
        let plugins = try scratch.worker("gate", [.data]) + scratch.worker("worker", [.background])
        let host = try scratch.startWatching(plugins + ["--isolate", "all", "--stop-timeout", "10"])
        try spool.drop("slow", #"{"message_id":"slow","data":{"fault":"slow","ms":"1500","only":"worker"}}"#)
        #expect(eventually(timeout: .seconds(20)) { scratch.workerCalls().map(\.call) == ["on_background slow"] }, "\(host.stderr)")
        host.send(SIGTERM)
        #expect(host.waitForExit() == .status(0), "\(host.stderr)")
        #expect(spool.names("cur") == ["slow"])
        #expect(spool.names("new").isEmpty)
        #expect(spool.names("failed").isEmpty)
        #expect(try scratch.reportLines().map { $0["status"] as? String } == ["delivered"])
        for name in ["gate", "worker"] {
            let lines = scratch.workerLines(name)
            let pid = try #require(lines.first?.pid, "\(name): \(lines)")
            #expect(pid != host.pid, "\(name) ran in the host")
            #expect(lines.map(\.call) == ["create", name == "gate" ? "on_data slow" : "on_background slow", "destroy"], "\(name)")
            #expect(lines.last?.text == "destroy \(pid)", "\(name): \(lines)")
        }
        #expect(scratch.workerLines("gate").first?.pid != scratch.workerLines("worker").first?.pid, "one worker per plugin")
    }

    /// A SIGINT or SIGTERM that reaches a worker (a terminal's Ctrl-C goes to
    /// the whole process group) neither kills it nor fails its call.
    @Test func aWorkerIgnoresSIGINTAndSIGTERM() throws {
        let scratch = try Scratch()
        let spool = scratch.spool
        let host = try scratch.startWatching(try scratch.worker([.background]) + ["--isolate", "all"])
        try spool.drop("slow", #"{"message_id":"slow","data":{"fault":"slow","ms":"1000"}}"#)
        #expect(eventually(timeout: .seconds(20)) { !scratch.workerCalls().isEmpty }, "\(host.stderr)")
        let worker = try #require(scratch.workerCalls().first?.pid)
        try #require(worker != host.pid)
        kill(worker, SIGINT)
        kill(worker, SIGTERM)
        #expect(eventually(timeout: .seconds(20)) { spool.names("cur") == ["slow"] }, "\(host.stderr)")
        try spool.drop("next", #"{"message_id":"next","data":{}}"#)
        #expect(eventually(timeout: .seconds(20)) { spool.names("cur") == ["next", "slow"] }, "\(host.stderr)")
        #expect(host.stop() == .status(0), "\(host.stderr)")
        #expect(try scratch.reportLines().map { $0["status"] as? String } == ["delivered", "delivered"])
        #expect(scratch.workerLines().map(\.text) == [
            "create \(worker) \(host.pid)", "on_background slow \(worker) \(host.pid)", "on_background next \(worker) \(host.pid)", "destroy \(worker)",
        ])
    }

    /// A worker whose host is killed exits too, rather than live on alone.
    @Test func aWorkerExitsWhenItsHostDies() throws {
        let scratch = try Scratch()
        let spool = scratch.spool
        let host = try scratch.startWatching(try scratch.worker([.background]) + ["--isolate", "all"])
        try spool.drop("one", #"{"message_id":"one","data":{}}"#)
        #expect(eventually(timeout: .seconds(20)) { spool.names("cur") == ["one"] }, "\(host.stderr)")
        let worker = try #require(TransportWorker.find(host, plugin: scratch.file("worker.so")), "\(host.stderr)")
        try #require(worker != host.pid && Self.isRunning(worker))
        host.send(SIGKILL)
        #expect(host.waitForExit() == .signal(SIGKILL))
        #expect(eventually(timeout: .seconds(10)) { !Self.isRunning(worker) }, "worker \(worker) outlived its host")
    }

    /// Whether process `pid` runs (a zombie has ended).
    static func isRunning(_ pid: Int32) -> Bool {
        guard kill(pid, 0) == 0 else { return errno != ESRCH }
        let stat = (try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8)) ?? ""
        guard let end = stat.lastIndex(of: ")") else { return false }
        return !stat[stat.index(after: end)...].trimmingCharacters(in: .whitespaces).hasPrefix("Z")
    }
}
