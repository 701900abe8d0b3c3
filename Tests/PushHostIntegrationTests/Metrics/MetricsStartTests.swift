import Foundation
import Testing

/// `--metrics`: the port is served from before the plugins are created,
/// and `/healthz` is 503 (`starting: ...`) until the host is ready, then
/// 200. A plugin whose create waits for a file holds the host in its start
/// (Tests/Fixtures/plugins/metrics-slow-start.c).
@Suite struct MetricsStartTests {
    @Test func aStartingHostIsNotYetHealthy() throws {
        let scratch = try Scratch()
        try scratch.spool.create()
        let gate = scratch.file("gate")
        let plugin = try scratch.plugin("slowstart.so", PluginSource.fixture("metrics-slow-start"))
        let host = try HostProcess(
            ["run", "--state", scratch.file("state"), "--report", scratch.file("report.ndjson"), "--watch", scratch.spool.path,
             "--metrics", "127.0.0.1:0"] + loading(plugin, as: "slowstart", ["gate": gate]),
            errorPath: scratch.file("stderr.log"))
        #expect(host.waitForStderr("serving metrics at"), "\(host.stderr)")
        let port = try #require(MetricsEndpoint.port(inLog: host.stderr), "\(host.stderr)")

        let starting = try MetricsEndpoint.health(port: port)
        #expect(starting.status == 503, "\(starting)")
        #expect(starting.body.hasPrefix("starting:"), "\(starting)")
        #expect(!host.stderr.contains("watching"), "the host got ready before its plugin was created:\n\(host.stderr)")

        try scratch.write("gate", "")
        let ready = eventually(timeout: .seconds(20)) { (try? MetricsEndpoint.health(port: port))?.status == 200 }
        #expect(ready, "\(host.stderr)")
        let health = try MetricsEndpoint.health(port: port)
        #expect(health.body.hasPrefix("dispatching:"), "\(health)")
        #expect(host.stop() == .status(0), "\(host.stderr)")
    }
}
