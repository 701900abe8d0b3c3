import Foundation
import Testing

/// `--metrics`: a real Prometheus (Debian's `/usr/bin/prometheus`) scrapes
/// the host, and what it stored is what the report says. On CI it must
/// run; elsewhere it is skipped when Prometheus is not installed.
@Suite struct MetricsPrometheusTests {
    static let binary = "/usr/bin/prometheus"
    static var canRun: Bool {
        FileManager.default.isExecutableFile(atPath: binary) || ProcessInfo.processInfo.environment["CI"] == "true"
    }

    @Test(.enabled(if: canRun, "needs /usr/bin/prometheus (apt-get install -y --no-install-recommends prometheus)"))
    func prometheusScrapesTheCountsTheReportHas() throws {
        let run = try MetricsMixedRun.start()
        let prometheus = try PrometheusServer(scratch: run.scratch, target: "127.0.0.1:\(run.host.port)")
        defer { prometheus.stop() }

        let ready = eventually(timeout: .seconds(60), every: .milliseconds(200)) {
            (try? MetricsEndpoint.request("GET", "/-/ready", port: prometheus.port))?.status == 200
        }
        try #require(ready, "Prometheus never got ready:\n\(prometheus.log)")
        let scraped = eventually(timeout: .seconds(60), every: .milliseconds(200)) {
            ((try? prometheus.query(#"count_over_time(up{job="pushhost"}[1m])"#))?.first?.value ?? 0) >= 2
        }
        try #require(scraped, "Prometheus did not scrape twice:\n\(prometheus.log)")
        let up = try prometheus.query(#"up{job="pushhost"}"#)
        #expect(up.map(\.value) == [1], "\(up)")

        let stored = try prometheus.query("pushhost_records_total")
        #expect(stored.count == MetricsMixedRun.sources.count * MetricsMixedRun.statuses.count, "\(stored)")
        for sample in stored {
            #expect(sample.labels["job"] == "pushhost")
            let source = try #require(sample.labels["source"]), status = try #require(sample.labels["status"])
            #expect(sample.value == Double(run.records(source, status)), "\(sample.labels)")
        }
        // The mix has something in more than one series, so equal values mean something.
        #expect(stored.filter { $0.value > 0 }.count >= 4, "\(stored)")
    }
}
