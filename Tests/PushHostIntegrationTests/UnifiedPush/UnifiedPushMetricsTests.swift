import Foundation
import Testing

/// The unifiedpush plugin's own metrics (`ph.metrics/1`), served at the
/// host's `/metrics` as `unifiedpush_...`: the pushes handed to the host,
/// those that did not decrypt, the endpoints the distributor gave, and
/// whether the connector is registered, the same whether the plugin runs in
/// the host or in a worker of its own.
@Suite(.enabled(if: UnifiedPushPlugin.canRun, "needs dbus-daemon, python3-dbusmock, python3-cryptography, libsystemd-dev and libssl-dev"))
struct UnifiedPushMetricsTests {
    /// Every series the plugin registers, by its full name, and its kind.
    static let kinds = [
        "unifiedpush_messages_total": "counter", "unifiedpush_decrypt_failures_total": "counter",
        "unifiedpush_endpoint_changes_total": "counter", "unifiedpush_registered": "gauge",
    ]

    @discardableResult
    static func expect(port: Int, _ expected: [String: Double], sourceLocation: SourceLocation = #_sourceLocation) throws -> MetricsText {
        try TransportMetrics.expect(port: port, expected, prefix: "unifiedpush_", kinds: kinds, sourceLocation: sourceLocation)
    }

    /// A key file of another connector: a push encrypted to it does not decrypt with the plugin's keys.
    static let otherKeys = """
        token 00000000-0000-4000-8000-000000000000
        private q1dXpw3UpT5VOmu_cf_v6ih07Aems3njxI-JWgLcM94
        public BCVxsr7N_eNgVRqvHtD0zTZsEc6-VV-JvLexhqUzORcxaOzi6-AYWXvTBHm4bjyPjs7Vd8pZGH6SRpkNtoIAiw4
        auth BTBZMqHH6r4Tts7J_aSIgg

        """

    /// The distributor gives the connector `endpoint` (Connector2's NewEndpoint), as a distributor whose push server moved would.
    static func newEndpoint(_ endpoint: String, token: String, on bus: SessionBus) throws {
        let script = """
            import sys, dbus
            bus = dbus.bus.BusConnection(sys.argv[1])
            bus.get_object(sys.argv[2], '/org/unifiedpush/Connector', introspect=False).NewEndpoint(
                dbus.Dictionary({'token': sys.argv[3], 'endpoint': sys.argv[4]}, signature='sv'),
                dbus_interface='org.unifiedpush.Connector2')
            """
        let result = try Command.run("/usr/bin/python3", ["-c", script, bus.address, UnifiedPushTests.app, token, endpoint])
        try #require(result.status == 0, "NewEndpoint: \(result.rawStderr)")
    }

    /// Registered at start (an endpoint); three pushes that decrypt, one that
    /// does not, one too long and one for another token (neither counted);
    /// a new endpoint; unregistered while the distributor refuses, then
    /// registered again with the endpoint it gives.
    @Test(arguments: [false, true]) func pushesEndpointsAndTheRegistrationAreCounted(isolated: Bool) throws {
        let scratch = try Scratch()
        let (bus, distributor) = try UnifiedPushTests.accepting(scratch)
        let live = try UnifiedPushTests.Live(scratch, bus: bus, settings: ["--metrics", "127.0.0.1:0"], isolated: isolated)
        let token = try live.registered()
        #expect(try live.runsUnifiedPush(isolated: isolated))
        let port = try TransportMetrics.port(of: live.host)
        try Self.expect(port: port, ["unifiedpush_messages_total": 0, "unifiedpush_decrypt_failures_total": 0,
                                     "unifiedpush_endpoint_changes_total": 1, "unifiedpush_registered": 1])

        let app = UnifiedPushTests.app
        try distributor.push(to: app, token: token, keys: live.keys, #"{"message_id":"up-1","data":{"n":"1"}}"#)
        try distributor.push(to: app, token: token, keys: try scratch.write("other-keys", Self.otherKeys), #"{"message_id":"x-1"}"#,
                             id: "d-other")
        try distributor.push(to: app, token: token, keys: live.keys, #"{"message_id":"up-2","data":{"n":"2"}}"#, version: 1)
        try distributor.pushRaw(to: app, token: token, Array(repeating: 7, count: 4097))
        try distributor.push(to: app, token: "not-ours", keys: live.keys, #"{"message_id":"x-2"}"#)
        try distributor.push(to: app, token: token, keys: live.keys, #"{"message_id":"up-3","data":{"n":"3"}}"#)
        _ = try live.report(4)
        #expect(live.host.stderr.contains("error unifiedpush: message d-other rejected: it does not decrypt with these keys"))
        #expect(live.host.stderr.contains("error unifiedpush: message raw rejected: 4097 bytes, not 1 to 4096"))
        try Self.expect(port: port, ["unifiedpush_messages_total": 3, "unifiedpush_decrypt_failures_total": 1,
                                     "unifiedpush_endpoint_changes_total": 1, "unifiedpush_registered": 1])

        // The push server moved: a new endpoint, a new token.
        try Self.newEndpoint("https://push.example.net/moved/" + token.prefix(8), token: token, on: bus)
        _ = try live.report(5)
        try Self.expect(port: port, ["unifiedpush_messages_total": 3, "unifiedpush_decrypt_failures_total": 1,
                                     "unifiedpush_endpoint_changes_total": 2, "unifiedpush_registered": 1])

        // Unregistered, and the distributor refuses to register it again: not registered.
        try distributor.refuse("ACTION_REQUIRED")
        try distributor.unregister(app, token: token)
        #expect(live.host.waitForStderr("error unifiedpush: org.unifiedpush.Distributor.fake refused the registration: ACTION_REQUIRED"))
        try Self.expect(port: port, ["unifiedpush_messages_total": 3, "unifiedpush_decrypt_failures_total": 1,
                                     "unifiedpush_endpoint_changes_total": 2, "unifiedpush_registered": 0])
        // It accepts once more: registered, with the endpoint it gives.
        try distributor.accept()
        let lines = try live.report(7)
        let metrics = try Self.expect(port: port, ["unifiedpush_messages_total": 3, "unifiedpush_decrypt_failures_total": 1,
                                                   "unifiedpush_endpoint_changes_total": 3, "unifiedpush_registered": 1])

        // As the report lines tell it.
        let tokens = lines.filter { $0["event"] as? String == "token" }
        #expect(tokens.map { $0["status"] as? String } == ["stored", "stored", "removed", "stored"], "\(lines)")
        #expect(metrics["unifiedpush_endpoint_changes_total"] == Double(tokens.filter { $0["status"] as? String != "removed" }.count))
        let messages = lines.compactMap { $0["id"] as? String }
        #expect(messages == ["up-1", "up-2", "up-3"], "\(lines)")
        #expect(metrics["unifiedpush_messages_total"] == Double(messages.count))
        try TransportMetrics.expectPromtoolAccepts(metrics)
        #expect(live.host.stop() == .status(0), "\(live.host.stderr)")
    }
}
