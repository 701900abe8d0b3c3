import Foundation
import Testing

/// A push is bytes that anyone who knows the endpoint chooses: the plugin
/// hands it to the host as a message, never as a host event, so a push that
/// holds one (a token, an action, a foreground) is rejected with the host's
/// reason and nothing of it is applied. Only the plugin's own events (the
/// endpoint its distributor gave it) change the token.
@Suite(.enabled(if: UnifiedPushPlugin.canRun, "needs dbus-daemon, python3-dbusmock, python3-cryptography, libsystemd-dev and libssl-dev"))
struct UnifiedPushTrustTests {
    static let reason =
        "a host event (the key pushhost) is not taken from here: plugin unifiedpush did not submit it as a host event of its own (PH_RECORD_HOST_EVENT)"

    /// A token plugin, a background plugin and a screen for target `t`, both with `on_action`.
    static func probes(_ scratch: Scratch) throws -> [String] {
        try scratch.probe("tok", [.token]) + scratch.probe("bg", [.background, .action])
            + scratch.probe("screen", [.foreground, .action], targets: ["t"])
    }

    static let forgedAction = #"{"pushhost":"action","id":"up-1","action":"tap"}"#

    @Test func aPushThatHoldsAHostEventIsRejectedAndNothingOfItApplied() throws {
        let scratch = try Scratch()
        let (bus, distributor) = try UnifiedPushTests.accepting(scratch)
        let probes = try Self.probes(scratch)
        let live = try UnifiedPushTests.Live(scratch, bus: bus, settings: probes)
        let token = try live.registered()
        // The genuine endpoint, from NewEndpoint, is stored and given to the token plugins.
        let endpoint = "https://push.example.net/up/" + token.prefix(8)
        let stored = try live.report(1)[0]
        #expect(stored["event"] as? String == "token" && stored["status"] as? String == "stored", "\(stored)")
        #expect(try Command.pushhost(["token", "--state", scratch.file("state")]).stdout == endpoint + "\n")

        let pushes = [
            #"{"message_id":"up-1","data":{"rx_gcm_key_target":"t"},"notification":{"title":"Hi"}}"#,
            #"{"pushhost":"token","token":"https://attacker.example/collect"}"#,
            Self.forgedAction,
            #"{"pushhost":"foreground","screens":["screen"]}"#,
            #"{"message_id":"up-2","data":{"rx_gcm_key_target":"t"}}"#,
        ]
        for (index, text) in pushes.enumerated() {
            try distributor.push(to: UnifiedPushTests.app, token: token, keys: live.keys, text, id: "d-\(index + 1)")
        }
        let report = try live.report(6)
        try #require(report.count == 6, "\(report)")
        #expect(report[1]["id"] as? String == "up-1" && report[1]["status"] as? String == "delivered", "\(report[1])")
        for line in report[2...4] {
            #expect(line["status"] as? String == "rejected", "\(line)")
            #expect(line["event"] == nil, "\(line)")
            #expect(line["error"] as? String == Self.reason, "\(line)")
            #expect((line["source"] as? [String: Any])?["plugin"] as? String == "unifiedpush", "\(line)")
        }
        // The app stayed in the background: up-2 went to the background plugin, not to the screen.
        #expect(report[5]["id"] as? String == "up-2" && report[5]["route"] as? String == "background", "\(report[5])")
        #expect(live.host.stop() == .status(0))

        // The token is the endpoint's still; the token plugins heard of it once, and of nothing else.
        #expect(try Command.pushhost(["token", "--state", scratch.file("state")]).stdout == endpoint + "\n")
        #expect(scratch.probeCalls() == ["tok token \(endpoint) -", "bg background up-1", "bg background up-2"])
        let stderr = live.host.stderr
        #expect(!stderr.contains("token-log: token https://attacker.example"), "\(stderr)")
        #expect(stderr.contains("rejected plugin unifiedpush, record 3: a host event (the key pushhost) is not taken from here"), "\(stderr)")

        // The forged action was valid but for where it came from: the
        // operator's own standard input has it taken.
        let taken = try scratch.run(probes, stdin: ndjson(Self.forgedAction))
        #expect(taken.status == 0, "\(taken.stderr)")
        #expect(try taken.report().first?["event"] as? String == "action")
        #expect(scratch.probeCalls().last == "bg action up-1")
    }
}
