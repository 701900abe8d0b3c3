import Foundation
import Testing

/// The nats plugin's own metrics (`ph.metrics/1`), served at the host's
/// `/metrics` as `nats_...`: what each record came to on the server
/// (fetched, redelivered, Acked, Naked, Termed, copied to the dead-letter
/// subject) and whether the plugin is connected, the same whether the
/// plugin runs in the host or in a worker of its own.
@Suite(.enabled(if: NatsPlugin.canRun, "needs nats-server and libnats-dev"))
struct NatsMetricsTests {
    /// Every series the plugin registers, by its full name, and its kind.
    static let kinds = [
        "nats_fetched_total": "counter", "nats_redelivered_total": "counter", "nats_acked_total": "counter",
        "nats_naked_total": "counter", "nats_terminated_total": "counter", "nats_dead_lettered_total": "counter",
        "nats_lapsed_total": "counter", "nats_connected": "gauge",
    ]

    /// Scrapes until the plugin's series are `expected`, and checks them (`TransportMetrics.expect`).
    @discardableResult
    static func expect(port: Int, _ expected: [String: Double], timeout: Duration = .seconds(10),
                       sourceLocation: SourceLocation = #_sourceLocation) throws -> MetricsText {
        try TransportMetrics.expect(port: port, expected, prefix: "nats_", kinds: kinds, timeout: timeout, sourceLocation: sourceLocation)
    }

    /// Three records that are fine, one that fails each of its three
    /// deliveries and goes to the dead-letter subject, and one that is not
    /// JSON (rejected: to the dead-letter subject at once). Then the server
    /// goes away and comes back: the gauge follows.
    @Test(arguments: [false, true]) func eachRecordIsCountedAsItWasSettled(isolated: Bool) throws {
        let scratch = try Scratch()
        let server = try NatsServer(scratch)
        let probe = try scratch.probe("probe", [.data])
        let a = try NatsHost("a", scratch, server: server, settings: ["max_deliver": "3"], plugins: probe,
                             options: ["--metrics", "127.0.0.1:0"], isolated: isolated)
        try a.waitUntilReading()
        #expect(try a.runsNats(isolated: isolated))
        let port = try TransportMetrics.port(of: a.host)

        // Registered in create: every series is there, at 0, before any record; connected.
        var expected = Self.kinds.mapValues { _ in 0.0 }
        expected["nats_connected"] = 1
        try Self.expect(port: port, expected)

        try server.publish([natsRecord("r1"), natsRecord("poison", ["verdict": "failed"]), natsRecord("r2"), "not json",
                            natsRecord("r3")], to: "pushes.news")
        // Three lines of the fine ones, three of the poison one, one of the rejected one.
        try #require(eventually(timeout: .seconds(30)) { a.report.count >= 7 }, "\(a.report)\n\(a.host.stderr)")
        #expect(eventually(timeout: .seconds(20)) { ((try? server.messages(in: "PUSHES_DEAD")) ?? []).count == 2 })
        #expect(eventually(timeout: .seconds(10)) { (try? server.state(of: "PUSHES")["messages"]) == 0 })
        let report = a.report
        let statuses = report.compactMap { $0["status"] as? String }
        #expect(statuses.filter { $0 == "failed" }.count == 3, "\(report)")
        #expect(statuses.filter { $0 == "rejected" }.count == 1, "\(report)")

        expected = [
            "nats_fetched_total": 7,        // 3 fine + 3 deliveries of the poison record + 1 rejected
            "nats_redelivered_total": 2,    // the poison record's second and third deliveries
            "nats_acked_total": 3,          // the fine ones
            "nats_naked_total": 2,          // the poison record after its first and second failures
            "nats_terminated_total": 2,     // the rejected one, the poison record after its last failure
            "nats_dead_lettered_total": 2,  // the same two
            "nats_lapsed_total": 0,         // the server answered all along
            "nats_connected": 1,
        ]
        let metrics = try Self.expect(port: port, expected)
        // As the report lines and the server tell it.
        #expect(metrics["nats_fetched_total"] == Double(report.count))
        #expect(metrics["nats_acked_total"] == Double(statuses.filter { $0 != "failed" && $0 != "rejected" }.count))
        #expect(metrics["nats_naked_total"] == Double(statuses.filter { $0 == "failed" }.count - 1))
        #expect(metrics["nats_dead_lettered_total"] == Double(try server.messages(in: "PUSHES_DEAD").count))
        #expect(metrics["nats_fetched_total"] == (try server.state(of: "PUSHES")["delivered"]).map(Double.init))
        try TransportMetrics.expectPromtoolAccepts(metrics)

        // The server goes away: not connected; it comes back on its port: connected again.
        server.kill()
        expected["nats_connected"] = 0
        try Self.expect(port: port, expected)
        try server.start()
        expected["nats_connected"] = 1
        try Self.expect(port: port, expected, timeout: .seconds(30))
        #expect(a.host.stop() == .status(0), "\(a.host.stderr)")
    }
}

/// What the transports' metrics tests share (the nats, desktop and
/// unifiedpush plugins' own metrics, through `ph.metrics/1`): scraping the
/// host's `/metrics` until a plugin's series are what a test expects.
enum TransportMetrics {
    /// Scrapes `port` until the series named `expected` have its values (a
    /// worker's values reach the host a moment later), then checks that
    /// they do, that the plugin (the series named `prefix`...) has no series
    /// but those of `kinds`, each with its kind and a help line; the last
    /// scrape.
    @discardableResult
    static func expect(
        port: Int, _ expected: [String: Double], prefix: String, kinds: [String: String], timeout: Duration = .seconds(10),
        sourceLocation: SourceLocation = #_sourceLocation
    ) throws -> MetricsText {
        var last: MetricsText?
        eventually(timeout: timeout, every: .milliseconds(100)) {
            last = try? MetricsEndpoint.scrape(port: port)
            return expected.allSatisfy { last?[$0.key] == $0.value }
        }
        let metrics = try #require(last, "no scrape of port \(port)", sourceLocation: sourceLocation)
        for (name, value) in expected.sorted(by: { $0.key < $1.key }) {
            #expect(metrics[name] == value, "\(name) in:\n\(metrics)", sourceLocation: sourceLocation)
        }
        let series = Set(metrics.samples.keys.filter { $0.hasPrefix(prefix) })
        #expect(series == Set(kinds.keys), "\(metrics)", sourceLocation: sourceLocation)
        #expect(metrics.duplicates.isEmpty, "\(metrics.duplicates)", sourceLocation: sourceLocation)
        let lines = metrics.text.split(separator: "\n").map(String.init)
        for (name, kind) in kinds.sorted(by: { $0.key < $1.key }) {
            #expect(lines.contains("# TYPE \(name) \(kind)"), "\(name) in:\n\(metrics)", sourceLocation: sourceLocation)
            #expect(lines.contains { $0.hasPrefix("# HELP \(name) ") && $0.count > "# HELP \(name) ".count + 10 },
                    "\(name) in:\n\(metrics)", sourceLocation: sourceLocation)
        }
        return metrics
    }

    /// The port of the host's `serving metrics at` line, once it logged it.
    static func port(of host: HostProcess, sourceLocation: SourceLocation = #_sourceLocation) throws -> Int {
        try #require(host.waitForStderr("serving metrics at http://"), "\(host.stderr)", sourceLocation: sourceLocation)
        return try #require(MetricsEndpoint.port(inLog: host.stderr), "\(host.stderr)", sourceLocation: sourceLocation)
    }

    /// `promtool check metrics` finds nothing to say about the scrape
    /// (checked where promtool is installed, and always on CI).
    static func expectPromtoolAccepts(_ metrics: MetricsText, sourceLocation: SourceLocation = #_sourceLocation) throws {
        guard MetricsPromtoolTests.canRun else { return }
        let check = try Command.run(MetricsPromtoolTests.promtool, ["check", "metrics"], stdin: metrics.text)
        #expect(check.status == 0 && check.stdout.isEmpty && check.rawStderr.isEmpty,
                "\(check.stdout)\(check.rawStderr)\n\(metrics)", sourceLocation: sourceLocation)
    }
}
