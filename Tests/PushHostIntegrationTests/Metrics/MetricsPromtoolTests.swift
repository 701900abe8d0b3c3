import Foundation
import Testing

/// `--metrics`: what `/metrics` serves passes `promtool check metrics`
/// (Prometheus's own linter of the text format) without a word, for a host
/// with an isolated plugin that crashed and records of several kinds, so
/// that every family has series (the workers', the data plugin's, the
/// handler histograms).
@Suite struct MetricsPromtoolTests {
    static let promtool = "/usr/bin/promtool"
    static var canRun: Bool {
        FileManager.default.isExecutableFile(atPath: promtool) || ProcessInfo.processInfo.environment["CI"] == "true"
    }

    @Test(.enabled(if: canRun, "needs /usr/bin/promtool (apt-get install -y --no-install-recommends prometheus)"))
    func promtoolFindsNothingToSay() throws {
        let run = try MetricsMixedRun.start()
        let metrics = try run.host.scrape()
        // The families promtool is to look at are there.
        for name in ["pushhost_worker_crashes_total", "pushhost_worker_starts_total", "pushhost_data_verdicts_total",
                     "pushhost_handler_duration_seconds_bucket", "pushhost_token_age_seconds", "pushhost_build_info"] {
            #expect(!metrics.all(name).isEmpty, "no \(name) in:\n\(metrics)")
        }
        let check = try Command.run(Self.promtool, ["check", "metrics"], stdin: metrics.text)
        #expect(check.status == 0, "\(check.stdout)\(check.rawStderr)")
        #expect(check.stdout.isEmpty, "\(check.stdout)")
        #expect(check.rawStderr.isEmpty, "\(check.rawStderr)")
    }

    /// A scrape with no plugin at all, and none of the plugins' families: still clean.
    @Test(.enabled(if: canRun, "needs /usr/bin/promtool (apt-get install -y --no-install-recommends prometheus)"))
    func aHostWithoutPluginsServesCleanTextToo() throws {
        let scratch = try Scratch()
        let host = try MetricsHost(scratch, [])
        let text = try host.scrape().text
        let check = try Command.run(Self.promtool, ["check", "metrics"], stdin: text)
        #expect(check.status == 0 && check.stdout.isEmpty && check.rawStderr.isEmpty, "\(check.stdout)\(check.rawStderr)\n\(text)")
    }
}
