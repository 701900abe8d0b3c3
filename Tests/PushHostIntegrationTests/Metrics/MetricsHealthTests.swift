import Foundation
import Testing

/// `--metrics`: `/healthz` is 200 while the host dispatches, and 503 from
/// the start of a stop until it exits, or once its report cannot be
/// written; each answer a one-line reason.
@Suite struct MetricsHealthTests {
    @Test func aWatchingHostIsHealthy() throws {
        let scratch = try Scratch()
        let host = try MetricsHost(scratch, try scratch.probe("bg", [.background]))
        let health = try host.health()
        #expect(health.status == 200, "\(health)")
        #expect(health.body.hasPrefix("dispatching:"), "\(health)")
        #expect(health.body.hasSuffix("\n") && health.body.dropLast().split(separator: "\n").count == 1, "one line: \(health)")
        // HEAD answers the same status, without the body.
        let head = try MetricsEndpoint.request("HEAD", "/healthz", port: host.port)
        #expect(head.status == 200 && head.body.isEmpty, "\(head)")
        // A query string is ignored.
        #expect(try MetricsEndpoint.request("GET", "/healthz?verbose=1", port: host.port).status == 200)
        #expect(host.process.stop() == .status(0), "\(host.stderr)")
    }

    /// SIGTERM while a message waits for a data verdict that never comes
    /// (`--stop-timeout 3`): from the stop on, every answer is 503 with a
    /// reason that starts `stopping:`, until the host is gone.
    @Test func aStoppingHostIsUnhealthyUntilItExits() throws {
        let scratch = try Scratch()
        let plugins = try scratch.probe("pend", [.data, .background], settings: ["verdict": "pending-never"])
        let host = try MetricsHost(scratch, plugins + ["--stop-timeout", "3"])
        try scratch.spool.drop("m0.json", #"{"message_id":"m0","data":{}}"#)
        let pending = try eventually(timeout: .seconds(10)) { try host.scrape()["pushhost_messages_pending"] == 1 }
        #expect(pending, "\(scratch.probeCalls())\n\(host.stderr)")
        #expect(try host.health().status == 200)

        host.process.send(SIGTERM)
        #expect(host.process.waitForStderr("info pushhost: stopping:"), "\(host.stderr)")
        var answers: [MetricsEndpoint.Answer] = []
        // Until the port is gone with the host.
        let gone = eventually(timeout: .seconds(30), every: .milliseconds(20)) {
            guard let answer = try? host.health() else { return true }
            answers.append(answer)
            return false
        }
        #expect(gone, "the host still answers: \(answers.last.map { "\($0)" } ?? "")")
        #expect(host.process.waitForExit() == .status(0), "\(host.stderr)")
        #expect(!answers.isEmpty, "no answer between the stop and the exit")
        for answer in answers {
            #expect(answer.status == 503, "\(answer)")
            #expect(answer.body.hasPrefix("stopping:"), "\(answer)")
        }
        // The record still under way was given up on: the spool file stays for the next run.
        #expect(scratch.spool.names("new") == ["m0.json"])
    }

    /// `--report /dev/full`: the first report line cannot be written, and
    /// the host stops. To see it stop, an interceptor holds an earlier
    /// message from a thread of its own, which the plugin's destroy waits
    /// for: the host is then still there, unhealthy, for a few seconds.
    @Test func aHostWhoseReportCannotBeWrittenIsUnhealthy() throws {
        let scratch = try Scratch()
        let plugins = try scratch.probe("hold", [.interceptor, .background])
        let host = try MetricsHost(scratch, plugins, report: "/dev/full")
        #expect(try host.health().status == 200)
        try scratch.spool.drop("held.json", #"{"message_id":"held","data":{"intercept":"hold","delay_ms":"10000"}}"#)
        #expect(eventually(timeout: .seconds(10)) { scratch.probeCalls().contains("hold intercept held") }, "\(host.stderr)")

        try scratch.spool.drop("m1.json", #"{"message_id":"m1","data":{}}"#)
        var answer: MetricsEndpoint.Answer?
        eventually(timeout: .seconds(20), every: .milliseconds(5)) {
            answer = try? host.health()
            return answer == nil || answer?.status != 200
        }
        let unhealthy = try #require(answer, "the host was gone before /healthz answered:\n\(host.stderr)")
        #expect(unhealthy.status == 503, "\(unhealthy)")
        #expect(unhealthy.body.contains("report /dev/full: write failed"), "\(unhealthy)")
        if let metrics = try? host.scrape() {
            #expect(metrics["pushhost_report_write_failures_total"] == 1, "\(metrics)")
        }
        #expect(host.process.waitForExit() == .status(1), "\(host.stderr)")
        #expect(host.stderr.contains("error pushhost: report /dev/full: write failed"), "\(host.stderr)")
    }
}
