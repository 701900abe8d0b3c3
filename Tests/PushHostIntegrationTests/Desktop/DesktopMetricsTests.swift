import Foundation
import Testing

/// The desktop plugin's own metrics (`ph.metrics/1`), served at the host's
/// `/metrics` as `desktop_...`: the notifications the server took, those
/// that replaced one, the messages not shown, the actions that came back,
/// and whether a notification server answers, the same whether the plugin
/// runs in the host or in a worker of its own.
@Suite(.enabled(if: DesktopPlugin.canRun, "needs dbus-daemon, python3-dbusmock, libsystemd-dev and libcurl4-openssl-dev"))
struct DesktopMetricsTests {
    /// Every series the plugin registers, by its full name, and its kind.
    static let kinds = [
        "desktop_posted_total": "counter", "desktop_replaced_total": "counter", "desktop_failed_total": "counter",
        "desktop_actions_total": "counter", "desktop_server_available": "gauge",
    ]

    @discardableResult
    static func expect(port: Int, _ expected: [String: Double], sourceLocation: SourceLocation = #_sourceLocation) throws -> MetricsText {
        try TransportMetrics.expect(port: port, expected, prefix: "desktop_", kinds: kinds, sourceLocation: sourceLocation)
    }

    /// Three notifications, the third in place of the first (the same
    /// collapse_key); a tap on each of the two left, and one on another
    /// application's; then a server that refuses one, and no server at all
    /// for the last.
    @Test(arguments: [false, true]) func eachNotificationAndActionIsCounted(isolated: Bool) throws {
        let scratch = try Scratch()
        let bus = try SessionBus(scratch)
        var server: NotificationServer? = try NotificationServer(on: bus)
        let host = try MetricsHost(
            scratch, ["--plugin", try DesktopPlugin.path()] + TransportWorker.walled(isolated, "desktop", grants: ["bus=session"]),
            environment: bus.environment)
        #expect(TransportWorker.runs(host.process, plugin: try DesktopPlugin.path(), isolated: isolated), "\(host.stderr)")
        let report = { (count: Int) throws -> [[String: Any]] in
            eventually(timeout: .seconds(20)) { ((try? scratch.reportLines()) ?? []).count >= count }
            let lines = try scratch.reportLines()
            try #require(lines.count >= count, "\(lines.count) report lines, not \(count):\n\(host.stderr)")
            return lines
        }

        // Registered in create: every series is there before any message; the server answered at start.
        var expected = Self.kinds.mapValues { _ in 0.0 }
        expected["desktop_server_available"] = 1
        try Self.expect(port: host.port, expected)

        host.feed([
            #"{"message_id":"m-1","collapse_key":"order-77","notification":{"title":"Order 77 packed"}}"#,
            #"{"message_id":"m-2","notification":{"title":"Toner low"}}"#,
            #"{"message_id":"m-3","collapse_key":"order-77","notification":{"title":"Order 77 shipped"}}"#,
        ])
        #expect(try #require(server).waitForCalls(3).map(\.replacesID) == [0, 0, 1])
        _ = try report(3)
        // m-3 is notification 1 now, m-2 notification 2; notification 7 is another application's.
        try #require(server).emit("ActionInvoked", "us", "1", "default")
        try #require(server).emit("ActionInvoked", "us", "7", "default")
        try #require(server).emit("ActionInvoked", "us", "2", "default")
        _ = try report(5)

        // The server refuses the next one: it answers, with an error.
        try #require(server).fail()
        host.feed([#"{"message_id":"m-4","notification":{"title":"Paper low"}}"#])
        _ = try report(6)
        expected = ["desktop_posted_total": 3, "desktop_replaced_total": 1, "desktop_failed_total": 1,
                    "desktop_actions_total": 2, "desktop_server_available": 1]
        try Self.expect(port: host.port, expected)

        // The server goes away: none answers, and the next message is not shown.
        server = nil
        expected["desktop_server_available"] = 0
        try Self.expect(port: host.port, expected)
        host.feed([#"{"message_id":"m-5","notification":{"title":"Door open"}}"#])
        let lines = try report(7)
        expected["desktop_failed_total"] = 2
        let metrics = try Self.expect(port: host.port, expected)

        // As the report lines tell it.
        let messages = lines.filter { $0["event"] == nil }
        #expect(messages.compactMap { $0["id"] as? String } == ["m-1", "m-2", "m-3", "m-4", "m-5"], "\(lines)")
        #expect(metrics["desktop_posted_total"] == Double(messages.filter { $0["status"] as? String == "delivered" }.count), "\(lines)")
        #expect(metrics["desktop_failed_total"] == Double(messages.filter { $0["status"] as? String == "failed" }.count), "\(lines)")
        let actions = lines.filter { $0["event"] as? String == "action" }
        #expect(actions.map { "\($0["id"] as? String ?? "nil") \($0["action"] as? String ?? "nil")" } == ["m-3 tap", "m-2 tap"])
        #expect(metrics["desktop_actions_total"] == Double(actions.count))
        try TransportMetrics.expectPromtoolAccepts(metrics)
        #expect(host.process.stop() == .status(0), "\(host.stderr)")
    }
}
