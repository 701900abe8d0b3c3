import Foundation
import Testing

/// `ph.metrics/1`: a plugin's own counters, gauges and histograms are served
/// at `/metrics` under its name, whether it runs in the host or in a worker
/// (whose values come within a second or two, and add up across a crash of
/// the worker); what the rules refuse is logged with the reason and never
/// served; misuse is ignored and logged once a series.
@Suite struct PluginMetricsTests {
    static func start(_ scratch: Scratch, isolated: Bool) throws -> MetricsHost {
        let plugin = try scratch.plugin("libcounting.so", try PluginSource.fixture("metrics-counting"))
        return try MetricsHost(scratch, ["--plugin", plugin] + (isolated ? ["--isolate", "counting-bg"] : []))
    }

    static func messages(_ titles: [String]) -> [String] {
        titles.enumerated().map { #"{"message_id":"m\#($0.offset)","data":{"title":"\#($0.element)"}}"# }
    }

    static let message = ["kind": "message"]

    @Test(arguments: [false, true])
    func countersGaugesAndHistogramsAreServed(isolated: Bool) throws {
        let scratch = try Scratch()
        let host = try Self.start(scratch, isolated: isolated)
        host.feed(Self.messages(["a", "hello", String(repeating: "x", count: 50), "1234567890"]))
        let seen = try eventually(timeout: .seconds(15)) { try host.scrape()["counting_bg_seen_total", Self.message] == 4 }
        #expect(seen, "\((try? host.scrape().text) ?? "")\n\(host.stderr)")
        let metrics = try host.scrape()
        // The other series of the same counter, its label value escaped and read back whole.
        #expect(metrics["counting_bg_seen_total", ["kind": "event \"quoted\"\\"]] == 0, "\(metrics.text)")
        #expect(metrics["counting_bg_last_title_bytes"] == 10)
        #expect(metrics["counting_bg_title_bytes_bucket", ["le": "1.0"]] == 1)
        #expect(metrics["counting_bg_title_bytes_bucket", ["le": "10.0"]] == 3)
        #expect(metrics["counting_bg_title_bytes_bucket", ["le": "100.0"]] == 4)
        #expect(metrics["counting_bg_title_bytes_bucket", ["le": "+Inf"]] == 4)
        #expect(metrics["counting_bg_title_bytes_count"] == 4)
        #expect(metrics["counting_bg_title_bytes_sum"] == 66)
        #expect(metrics.text.contains("# HELP counting_bg_seen_total Messages seen, by kind.\n# TYPE counting_bg_seen_total counter\n"), "\(metrics.text)")
        #expect(metrics.text.contains("# HELP counting_bg_title_bytes Titles' lengths in bytes.\n# TYPE counting_bg_title_bytes histogram\n"))
        // Nothing refused is served.
        for name in ["seen", "level_total", "many", "sizes", "two_lines", "odd", "late", "Bad"] {
            #expect(!metrics.text.contains("# TYPE counting_bg_\(name) "), "\(name) is served")
        }
        #expect(host.process.stop() == .status(0), "\(host.stderr)")
    }

    @Test(arguments: [false, true])
    func whatTheRulesRefuseIsLoggedWithTheReason(isolated: Bool) throws {
        let scratch = try Scratch()
        let host = try Self.start(scratch, isolated: isolated)
        host.feed(Self.messages(["a"]))
        #expect(try eventually(timeout: .seconds(15)) { try host.scrape()["counting_bg_seen_total", Self.message] == 1 })
        #expect(host.process.stop() == .status(0), "\(host.stderr)")
        let log = host.stderr
        for reason in [
            #"ph.metrics/1: Bad-Name_total refused: the name "Bad-Name_total" is not lowercase snake case"#,
            "ph.metrics/1: seen refused: the counter seen does not end in _total",
            "ph.metrics/1: level_total refused: level_total ends in _total, which only a counter's name does",
            "ph.metrics/1: many refused: many has 9 labels, over 8",
            "ph.metrics/1: sizes refused: the label name le of sizes is Prometheus's own",
            "ph.metrics/1: sizes refused: the buckets of sizes are not 1 to 64 finite bounds, each above the one before",
            "ph.metrics/1: last_title_bytes refused: last_title_bytes was declared before as a gauge; the same name takes the same kind, help, label names and buckets",
            "ph.metrics/1: seen_total refused: seen_total was declared before as a counter with other help, label names or buckets",
            "ph.metrics/1: two_lines refused: the help of two_lines is not one line",
            "ph.metrics/1: odd refused: kind 7 is none of counter (0), gauge (1), histogram (2)",
            "ph.metrics/1: late refused: metrics are declared in create, and create has returned",
            "ph.metrics/1: add(counting_bg_seen_total, -1.0) ignored: a counter does not go down (logged once a series)",
            "ph.metrics/1: observe(counting_bg_title_bytes, NaN) ignored: NaN is no number it counts (logged once a series)",
        ] {
            #expect(log.contains(reason), "missing: \(reason)\n\(log)")
        }
        // The counter's `set` was the second misuse of its series: not logged again.
        #expect(!log.contains("set(counting_bg_seen_total"), "\(log)")
    }

    /// A worker that crashes loses at most what it had not sent; what it had
    /// sent stays counted, and its next worker counts on from there. Its
    /// gauges tell nothing while no worker does.
    @Test func anIsolatedPluginsCountersAddUpAcrossACrash() throws {
        let scratch = try Scratch()
        let host = try Self.start(scratch, isolated: true)
        host.feed(Self.messages(["a", "b", "c"]))
        #expect(try eventually(timeout: .seconds(15)) { try host.scrape()["counting_bg_seen_total", Self.message] == 3 })
        host.feed([#"{"message_id":"boom","data":{"crash":"yes"}}"#])
        #expect(try eventually(timeout: .seconds(15)) {
            try host.scrape()["pushhost_worker_crashes_total", ["plugin": "counting-bg", "signal": "SIGSEGV"]] == 1
        })
        // Its gauge no longer tells the dead worker's value: gone, or the next worker's 0.
        #expect(try eventually(timeout: .seconds(15)) { try host.scrape()["counting_bg_last_title_bytes"] != 1 })
        host.feed(Self.messages(["d", "e"]).map { $0.replacingOccurrences(of: "\"m", with: "\"after-m") })
        let counted = try eventually(timeout: .seconds(15)) { try host.scrape()["counting_bg_seen_total", Self.message] == 5 }
        #expect(counted, "\((try? host.scrape().text) ?? "")")
        #expect(try host.scrape()["counting_bg_title_bytes_count"] == 5)
        #expect(try eventually(timeout: .seconds(15)) { try host.scrape()["counting_bg_last_title_bytes"] == 1 })
        #expect(try host.scrape()["pushhost_worker_starts_total", ["plugin": "counting-bg"]] == 2)
        #expect(host.process.stop() == .status(0), "\(host.stderr)")
    }

    /// A plugin disabled after its worker crashed: its gauge is no longer
    /// served (its value died with the worker), its counter still is.
    @Test func aDeadWorkersGaugeIsNotServed() throws {
        let scratch = try Scratch()
        let plugin = try scratch.plugin("libcounting.so", try PluginSource.fixture("metrics-counting"))
        let host = try MetricsHost(scratch, ["--plugin", plugin, "--isolate", "counting-bg", "--worker-crash-limit", "0"])
        host.feed(Self.messages(["abc"]))
        #expect(try eventually(timeout: .seconds(15)) { try host.scrape()["counting_bg_last_title_bytes"] == 3 })
        host.feed([#"{"message_id":"boom","data":{"crash":"yes"}}"#])
        #expect(try eventually(timeout: .seconds(15)) { try host.scrape()["pushhost_plugin_disabled", ["plugin": "counting-bg"]] == 1 })
        #expect(try eventually(timeout: .seconds(15)) { try host.scrape()["counting_bg_last_title_bytes"] == nil })
        #expect(try host.scrape()["counting_bg_seen_total", Self.message] == 1)
        #expect(host.process.stop() == .status(0), "\(host.stderr)")
    }

    @Test(.enabled(if: FileManager.default.isExecutableFile(atPath: "/usr/bin/promtool") || ProcessInfo.processInfo.environment["CI"] == "true"))
    func promtoolTakesThePluginsFamilies() throws {
        let scratch = try Scratch()
        let host = try Self.start(scratch, isolated: false)
        host.feed(Self.messages(["abc"]))
        #expect(try eventually(timeout: .seconds(15)) { try host.scrape()["counting_bg_seen_total", Self.message] == 1 })
        let text = try host.scrape().text
        let check = try Command.run("/usr/bin/promtool", ["check", "metrics"], stdin: text)
        #expect(check.status == 0 && check.stdout.isEmpty && check.rawStderr.isEmpty, "\(check.stdout)\(check.rawStderr)\n\(text)")
        #expect(host.process.stop() == .status(0), "\(host.stderr)")
    }
}
