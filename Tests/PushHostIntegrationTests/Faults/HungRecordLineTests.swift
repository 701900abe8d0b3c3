import Foundation
import Testing

/// Issue 39, item 3: when the watchdog ends the host (exit status 4) on a
/// handler that never returns, the record of standard input under way gets
/// its report line first (`failed`, naming the plugin and the handler and
/// why), after the lines of the records before it, and so does a message
/// an interceptor holds; the records not taken yet get none, as at a stop.
@Suite struct HungRecordLineTests {
    static let input = ndjson(
        #"{"message_id":"a","data":{}}"#, #"{"message_id":"b","data":{"fault":"hang"}}"#, #"{"message_id":"c","data":{}}"#)

    /// The plugins: `faulty` hangs in `handler`; with `on_data`, the probe
    /// `bg` is the background plugin, so that the other messages are delivered.
    static func plugins(_ scratch: Scratch, hanging handler: String) throws -> [String] {
        let faulty = try scratch.faulty(handler)
        return handler == "on_data" ? faulty + (try scratch.probe("bg", [.background])) : faulty
    }

    /// Expects the hung message's line: failed, the plugin named where
    /// the handler's stage names it, and `error`.
    static func expectHung(_ line: [String: Any]?, handler: String, error: String) {
        #expect(line?["id"] as? String == "b")
        #expect(line?["status"] as? String == "failed")
        #expect(line?["error"] as? String == error, "\(line ?? [:])")
        #expect((line?["source"] as? [String: Any])?["line"] as? Int == 2)
        if handler == "on_data" {
            #expect(line?["data"] as? [[String: String]] == [["plugin": "faulty", "verdict": "failed"]])
            #expect(line?["route"] as? String == "none")
            #expect(line?["ui"] as? [String] == [])
        } else {
            #expect(line?["route"] as? String == "background")
            #expect(line?["ui"] as? [String] == ["faulty"])
        }
    }

    @Test(arguments: ["on_data", "on_background"])
    func theHungRecordGetsItsLineAfterHandlerTimeout(_ handler: String) throws {
        let scratch = try Scratch()
        let run = try scratch.runHost(try Self.plugins(scratch, hanging: handler) + ["--handler-timeout", "1"], stdin: Self.input)
        #expect(run.exit == .status(4), "\(run.stderr)")
        #expect(run.ids == ["a", "b"], "\(run.report)")
        #expect(run.statuses == ["delivered", "failed"])
        Self.expectHung(
            run.line("b"), handler: handler,
            error: "plugin faulty did not return from \(handler) within --handler-timeout 1.0s (the host exited with status 4)")
        #expect(scratch.faultyCalls == ["\(handler) a", "\(handler) b"])
    }

    /// The same on standard output (`--report -`).
    @Test func theLineGoesToStandardOutputToo() throws {
        let scratch = try Scratch()
        let result = try scratch.run(try Self.plugins(scratch, hanging: "on_data") + ["--handler-timeout", "1"], stdin: Self.input)
        #expect(result.status == 4, "\(result.stderr)")
        let report = try result.report()
        #expect(report.map { $0["status"] as? String } == ["delivered", "failed"], "\(result.stdout)")
        Self.expectHung(
            report.last, handler: "on_data",
            error: "plugin faulty did not return from on_data within --handler-timeout 1.0s (the host exited with status 4)")
    }

    /// A stop whose `--stop-timeout` ran out while the handler was under
    /// way means one thing wherever the plugin runs: the handler is given
    /// up, the record under way is reported failed (standard input cannot
    /// give it again) with the plugin and the handler named, and the host
    /// exits with status 4. In the host the thread is lost, and so is the
    /// rest of the run; in a worker the worker is killed, and the records
    /// behind go on in a new one.
    @Test(arguments: [false, true], ["on_data", "on_background"])
    func theHungRecordGetsItsLineAfterStopTimeout(isolated: Bool, _ handler: String) throws {
        let scratch = try Scratch()
        let input = Pipe()
        let roles: Set<ProbeRole> = handler == "on_data" ? [.data, .background] : [.background]
        let host = try HostProcess(
            ["run", "--state", scratch.file("state"), "--report", scratch.file("report.ndjson"), "--handler-timeout", "600", "--stop-timeout", "1"]
                + (isolated ? ["--isolate", "all"] : []) + scratch.worker(roles),
            errorPath: scratch.file("stderr.log"), input: input)
        defer { try? input.fileHandleForWriting.close() }
        input.fileHandleForWriting.write(Data(Self.input.utf8))
        #expect(eventually(timeout: .seconds(20)) { scratch.workerCalls().map(\.call).contains("\(handler) b") }, "\(host.stderr)")
        host.send(SIGTERM)
        #expect(host.waitForExit() == .status(4), "\(host.stderr)")
        let report = try scratch.reportLines()
        #expect(report.prefix(2).map { $0["id"] as? String } == ["a", "b"], "\(report)")
        #expect(report.first?["status"] as? String == "delivered")
        let hung = report.count > 1 ? report[1] : nil
        #expect(hung?["status"] as? String == "failed")
        if handler == "on_background" {
            #expect(hung?["route"] as? String == "background")
            #expect(hung?["ui"] as? [String] == ["worker"])
        }
        let error = switch (isolated, handler) {
        case (false, _): "plugin worker was still in \(handler) when --stop-timeout 1.0s ran out (the host exited with status 4)"
        case (true, "on_data"): "the host stopped before its data stage ended"
        case (true, _): "plugin worker was still in \(handler) when --stop-timeout 1.0s ran out (its worker was killed)"
        }
        #expect(hung?["error"] as? String == error, "\(report)")
        if isolated {
            // The host goes on with c in a new worker, as a stop does with a record whose data stage ended.
            #expect(report.map { $0["id"] as? String } == ["a", "b", "c"], "\(report)")
            #expect(report.last?["status"] as? String == (handler == "on_data" ? "failed" : "delivered"), "\(report)")
            #expect(host.stderr.contains("plugin worker was killed when --stop-timeout 1.0s ran out in \(handler)"), "\(host.stderr)")
            #expect(host.stderr.contains("stopping: a plugin's handler was given up at the stop's deadline (--stop-timeout 1.0s); the host exits with status 4"))
        } else {
            #expect(report.count == 2, "\(report)")
            #expect(host.stderr.contains("stopping: plugin worker is still in \(handler) on standard input, line 2 after"), "\(host.stderr)")
        }
    }

    /// A spool file whose handler a stop gave up stays in new/ for the next
    /// start, wherever the plugin runs: no line now, status 4.
    @Test(arguments: [false, true])
    func aSpoolRecordGivenUpAtAStopStaysForTheNextStart(isolated: Bool) throws {
        let scratch = try Scratch()
        let spool = scratch.spool
        let host = try scratch.startWatching(
            try scratch.worker([.background]) + ["--handler-timeout", "600", "--stop-timeout", "1"] + (isolated ? ["--isolate", "all"] : []))
        try spool.drop("fine", #"{"message_id":"f","data":{}}"#)
        #expect(eventually(timeout: .seconds(20)) { spool.names("cur") == ["fine"] }, "\(host.stderr)")
        try spool.drop("stuck", #"{"message_id":"s","data":{"fault":"hang"}}"#)
        #expect(eventually(timeout: .seconds(20)) { scratch.workerCalls().map(\.call).contains("on_background s") }, "\(host.stderr)")
        #expect(host.stop() == .status(4), "\(host.stderr)")
        #expect(try scratch.reportLines().map { $0["id"] as? String } == ["f"])
        #expect(spool.names("new") == ["stuck"])
        #expect(spool.names("failed").isEmpty)
    }

    /// A line waiting for a data verdict before the hung one gets its line
    /// first, as a stop gives it: failed, before its data stage ended.
    @Test func aRecordWaitingBeforeTheHungOneIsReportedFailedFirst() throws {
        let scratch = try Scratch()
        let plugins = try scratch.probe("d", [.data]) + scratch.faulty("on_data")
        let input = ndjson(
            #"{"message_id":"a","data":{"verdict":"pending-never"}}"#, #"{"message_id":"b","data":{"fault":"hang"}}"#,
            #"{"message_id":"c","data":{}}"#)
        let run = try scratch.runHost(plugins + ["--handler-timeout", "1", "--data-timeout", "600"], stdin: input)
        #expect(run.exit == .status(4), "\(run.stderr)")
        #expect(run.ids == ["a", "b"], "\(run.report)")
        #expect(run.statuses == ["failed", "failed"])
        #expect(run.line("a")?["error"] as? String == "the host exited before its data stage ended")
        #expect(run.line("b")?["data"] as? [[String: String]] == [["plugin": "d", "verdict": "continue"], ["plugin": "faulty", "verdict": "failed"]])
        #expect(run.line("b")?["error"] as? String == "plugin faulty did not return from on_data within --handler-timeout 1.0s (the host exited with status 4)")
    }

    /// A line an interceptor still holds when the host gives up gets its
    /// line too: failed, naming the interceptor, as at a stop.
    @Test func aMessageAnInterceptorHoldsIsReportedFailed() throws {
        let scratch = try Scratch()
        let plugins = try scratch.probe("gate", [.interceptor], settings: ["intercept": "hold", "delay_ms": "30000"])
            + scratch.faulty("on_data") + scratch.probe("bg", [.background])
        let input = ndjson(#"{"message_id":"held","data":{}}"#, #"{"message_id":"b","data":{"intercept":"proceed","fault":"hang"}}"#)
        let run = try scratch.runHost(plugins + ["--handler-timeout", "1"], stdin: input)
        #expect(run.exit == .status(4), "\(run.stderr)")
        #expect(Set(run.ids) == ["held", "b"], "\(run.report)")
        #expect(run.line("b")?["error"] as? String == "plugin faulty did not return from on_data within --handler-timeout 1.0s (the host exited with status 4)")
        #expect(run.line("held")?["status"] as? String == "failed")
        #expect(run.line("held")?["route"] as? String == "none")
        #expect(run.line("held")?["error"] as? String == "the host exited while the interceptor gate held it", "\(run.report)")
    }

    /// A spool file stays in new/ for the next start, which reports it: no line now.
    @Test func aHungSpoolRecordGetsNoLineYet() throws {
        let scratch = try Scratch()
        let spool = scratch.spool
        let host = try scratch.startWatching(try scratch.faulty() + ["--handler-timeout", "1"])
        try spool.drop("fine", #"{"message_id":"f","data":{}}"#)
        #expect(eventually(timeout: .seconds(20)) { spool.names("cur") == ["fine"] }, "\(host.stderr)")
        try spool.drop("stuck", #"{"message_id":"s","data":{"fault":"hang"}}"#)
        #expect(host.waitForExit() == .status(4), "\(host.stderr)")
        #expect(try scratch.reportLines().map { $0["id"] as? String } == ["f"])
        #expect(spool.names("new") == ["stuck"])
    }

    /// Under `--isolate` a hung worker is killed and its record fails: the
    /// host goes on and exits 0, every record with its line.
    @Test func anIsolatedHungHandlerFailsItsRecordAndTheHostGoesOn() throws {
        let scratch = try Scratch()
        let run = try scratch.runHost(try scratch.worker([.data, .background]) + ["--isolate", "all", "--handler-timeout", "1"], stdin: Self.input)
        #expect(run.exit == .status(0), "\(run.stderr)")
        #expect(run.ids == ["a", "b", "c"], "\(run.report)")
        #expect(run.statuses == ["delivered", "failed", "delivered"])
        #expect(run.line("b")?["data"] as? [[String: String]] == [["plugin": "worker", "verdict": "failed"]])
        #expect(run.line("b")?["error"] as? String == "plugin worker did not return from on_data within --handler-timeout 1.0s (its worker was killed)")
    }
}
