import Testing

@testable import PushHostCore
@testable import PushHostPipeline
@testable import PushHostPlugins
@testable import PushHostSystem

/// What the dispatch thread counts in its cells reaches the registry's
/// counters at each scrape, once, and the text names every series.
@Suite struct HostMetricsTests {
    /// The value of the series `series` (name and labels as written) in `text`.
    static func value(_ series: String, in text: String) -> Double? {
        text.split(separator: "\n").first { $0.hasPrefix(series + " ") }.flatMap { Double($0.split(separator: " ").last!) }
    }

    @Test func cellsReachTheCountersOnceEachScrape() {
        let metrics = HostMetrics()
        let verdicts = metrics.dataVerdicts(of: ["enrich", "filter"])
        metrics.message(0, .delivered, route: .background)
        metrics.message(0, .delivered, route: .background)
        metrics.message(1, .suppressed, route: .none)
        metrics.record(2, .rejected)
        verdicts.cells.add(verdicts.first + 1 * 3 + 1)  // filter: suppress
        var text = String(decoding: metrics.render(), as: UTF8.self)
        #expect(Self.value(#"pushhost_records_total{source="stdin",status="delivered"}"#, in: text) == 2)
        #expect(Self.value(#"pushhost_records_total{source="spool",status="suppressed"}"#, in: text) == 1)
        #expect(Self.value(#"pushhost_records_total{source="plugin",status="rejected"}"#, in: text) == 1)
        #expect(Self.value(#"pushhost_records_total{source="plugin",status="delivered"}"#, in: text) == 0)
        #expect(Self.value(#"pushhost_messages_routed_total{route="background"}"#, in: text) == 2)
        #expect(Self.value(#"pushhost_messages_routed_total{route="none"}"#, in: text) == 1)
        #expect(Self.value(#"pushhost_data_verdicts_total{plugin="filter",verdict="suppress"}"#, in: text) == 1)
        #expect(Self.value(#"pushhost_data_verdicts_total{plugin="enrich",verdict="suppress"}"#, in: text) == 0)
        // A second scrape adds only what came since.
        metrics.message(0, .delivered, route: .background)
        text = String(decoding: metrics.render(), as: UTF8.self)
        #expect(Self.value(#"pushhost_records_total{source="stdin",status="delivered"}"#, in: text) == 3)
        text = String(decoding: metrics.render(), as: UTF8.self)
        #expect(Self.value(#"pushhost_records_total{source="stdin",status="delivered"}"#, in: text) == 3)
    }

    @Test func levelsAndBuildInfoAreGauges() {
        let metrics = HostMetrics()
        metrics.publish(.held, 7)
        let text = String(decoding: metrics.render(), as: UTF8.self)
        #expect(Self.value("pushhost_messages_held", in: text) == 7)
        #expect(Self.value("pushhost_spool_new_files", in: text) == 0)
        #expect(text.contains("# TYPE pushhost_messages_held gauge"))
        #expect(text.contains(#"pushhost_build_info{version="\#(PushHostVersion.current)",abi="\#(HostABI.major).\#(HostABI.minor)"} 1"#))
        // No token file named: no age.
        #expect(!text.contains("pushhost_token_age_seconds"))
    }

    @Test func healthStartsDownAndFollowsTheNotifier() {
        let health = Health()
        #expect(health.current.healthy == false)
        #expect(health.current.reason.hasPrefix("starting"))
        health.ready("dispatching: 1 plugin")
        #expect(health.current == (true, "dispatching: 1 plugin"))
        health.down("stopping: SIGINT or SIGTERM")
        #expect(health.current.healthy == false)
    }
}
