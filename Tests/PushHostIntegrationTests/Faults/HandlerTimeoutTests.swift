import Foundation
import Testing

/// A handler that never returns does not freeze the host: after
/// `--handler-timeout` the host writes out its report and exits with status
/// 4, and the spool file under way counts as a crash; on SIGINT or SIGTERM a
/// blocked handler delays the stop by `--stop-timeout` at most.
@Suite struct HandlerTimeoutTests {
    @Test func aDataHandlerThatNeverReturnsEndsTheRunAndItsFileFailsAtTheLimit() throws {
        let scratch = try Scratch()
        let spool = scratch.spool
        try spool.create()
        try spool.drop("stuck", #"{"data":{"fault":"hang"}}"#)
        try spool.setModified("stuck", Date(timeIntervalSinceNow: -60))
        try spool.drop("fine", #"{"data":{}}"#)
        let arguments = try scratch.faulty() + ["--handler-timeout", "0.3", "--crash-limit", "1"]
        let first = try scratch.startHost(arguments, report: "report1.ndjson", errors: "stderr1.log")
        #expect(first.waitForExit() == .status(4), "\(first.stderr)")
        #expect(first.stderr.contains("error pushhost: plugin faulty did not return from on_data on spool file stuck within --handler-timeout"), "\(first.stderr)")
        #expect(spool.names("new") == ["fine", "stuck"])

        let second = try scratch.startHost(arguments, report: "report2.ndjson", errors: "stderr2.log")
        let handled = eventually(timeout: .seconds(20)) { spool.count("new") == 0 }
        try #require(handled, "\(second.stderr)")
        #expect(second.stop() == .status(0), "\(second.stderr)")
        #expect(spool.failedFiles == ["stuck"])
        #expect(spool.names("cur") == ["fine"])
        let problems = try #require(spool.errorReport("stuck")["records"] as? [[String: Any]])
        #expect(problems.map { $0["error"] as? String } == [
            "plugin faulty did not return from on_data within --handler-timeout (once: --crash-limit 1)"
        ])
        #expect(scratch.faultyCalls == ["on_data stuck", "on_data fine"])
    }

    /// On standard input, the lines before the stuck one are in the report, and its own (HungRecordLineTests).
    @Test func aBackgroundHandlerThatNeverReturnsOnStandardInput() throws {
        let scratch = try Scratch()
        let input = ndjson(#"{"message_id":"a","data":{}}"#, #"{"message_id":"b","data":{"fault":"hang"}}"#, #"{"message_id":"c","data":{}}"#)
        let result = try scratch.run(try scratch.faulty("on_background") + ["--handler-timeout", "0.3"], stdin: input)
        #expect(result.status == 4, "\(result.stderr)")
        #expect(result.stderr.contains("plugin faulty did not return from on_background on standard input, line 2 within --handler-timeout"), "\(result.stderr)")
        let report = try result.stdout.split(separator: "\n").map { try JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any] }
        #expect(report.map { $0?["id"] as? String } == ["a", "b"])
        #expect(scratch.faultyCalls == ["on_background a", "on_background b"])
    }

    @Test(arguments: [SIGTERM, SIGINT])
    func aStopDoesNotWaitForeverForABlockedHandler(_ signal: Int32) throws {
        let scratch = try Scratch()
        let spool = scratch.spool
        let host = try scratch.startWatching(try scratch.faulty() + ["--handler-timeout", "600", "--stop-timeout", "0.5"])
        try spool.drop("stuck", #"{"data":{"fault":"hang"}}"#)
        #expect(eventually(timeout: .seconds(20)) { scratch.faultyCalls == ["on_data stuck"] })
        host.send(signal)
        #expect(host.waitForExit() == .status(4), "\(host.stderr)")
        #expect(host.stderr.contains("stopping: plugin faulty is still in on_data on spool file stuck after"), "\(host.stderr)")
        #expect(spool.names("new") == ["stuck"])
        #expect(spool.names("failed").isEmpty)
        // A stop is not a crash: the next start does not count it.
        let next = try scratch.startWatching(try scratch.faulty() + ["--handler-timeout", "600", "--stop-timeout", "0.5"], errors: "stderr2.log")
        #expect(eventually(timeout: .seconds(20)) { scratch.faultyCalls.count == 2 })
        #expect(!next.stderr.contains("the last run ended"), "\(next.stderr)")
        next.send(SIGKILL)
        _ = next.waitForExit()
    }
}
