import Foundation
import Testing

/// `--metrics`: what the interceptors and the data stage do is counted as
/// the report tells it: each stop by its interceptor and verdict, each
/// data verdict, and how long each pending verdict took to come (or the
/// `--data-timeout` it did not come within).
@Suite struct MetricsStageTests {
    @Test func stopsVerdictsAndPendingVerdictsAgreeWithTheReport() throws {
        let scratch = try Scratch()
        let plugins = try scratch.probe("icpt", [.interceptor]) + scratch.probe("pend", [.data, .background])
        let host = try MetricsHost(scratch, plugins + ["--data-timeout", "1"])
        let input = [
            #"{"message_id":"a","data":{"intercept":"suppress"}}"#,
            #"{"message_id":"b","data":{"intercept":"fail"}}"#,
            #"{"message_id":"c","data":{"verdict":"pending","delay_ms":"20"}}"#,
            #"{"message_id":"d","data":{"intercept":"hold","delay_ms":"20"}}"#,
            #"{"message_id":"e","data":{"verdict":"pending-never"}}"#,
            #"{"message_id":"f","data":{"verdict":"suppress"}}"#,
        ]
        host.feed(input)
        let complete = try eventually(timeout: .seconds(20)) { try scratch.reportLines().count == input.count }
        try #require(complete, "\(scratch.read("report.ndjson"))\n\(host.stderr)")
        let report = try scratch.reportLines()
        let metrics = try host.scrape()

        for (verdict, status) in [("suppress", "suppressed"), ("failed", "failed")] {
            let expected = report.filter { $0["by"] as? String == "icpt" && $0["status"] as? String == status }.count
            #expect(expected == 1, "\(report)")
            #expect(metrics["pushhost_interceptor_stops_total", ["plugin": "icpt", "verdict": verdict]] == Double(expected), "\(verdict)")
        }
        let items = report.flatMap { ($0["data"] as? [[String: Any]]) ?? [] }.filter { $0["plugin"] as? String == "pend" }
        for verdict in ["continue", "suppress", "failed"] {
            let expected = items.filter { $0["verdict"] as? String == verdict }.count
            #expect(expected > 0, "\(report)")
            #expect(metrics["pushhost_data_verdicts_total", ["plugin": "pend", "verdict": verdict]] == Double(expected), "\(verdict)")
        }
        // Two verdicts were pending: one came, one never did (and failed at --data-timeout).
        let completed = scratch.probeLines().filter { $0.name == "pend" && $0.event == "complete" }.count
        let timedOut = report.filter { ($0["error"] as? String)?.contains("did not complete within --data-timeout") == true }.count
        #expect(completed == 1 && timedOut == 1, "\(report)")
        let pending = ["plugin": "pend"]
        #expect(metrics["pushhost_data_pending_seconds_count", pending] == Double(completed + timedOut))
        #expect(metrics["pushhost_data_pending_seconds_bucket", pending.merging(["le": "+Inf"]) { $1 }] == Double(completed + timedOut))
        // The interceptor saw every message, and its own calls are timed.
        let intercepts = scratch.probeLines().filter { $0.name == "icpt" && $0.event == "intercept" }.count
        #expect(intercepts == input.count)
        #expect(metrics["pushhost_handler_duration_seconds_count", ["plugin": "icpt", "handler": "intercept"]] == Double(intercepts))
        #expect(host.process.stop() == .status(0), "\(host.stderr)")
    }
}
