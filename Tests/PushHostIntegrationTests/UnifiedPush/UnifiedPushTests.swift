import Foundation
import Testing

/// The unifiedpush plugin against a fake distributor on a real private
/// session bus: registration, the endpoint as the token, pushes encrypted by
/// the test (RFC 8291) and decrypted by the plugin, and what must be refused.
@Suite(.enabled(if: UnifiedPushPlugin.canRun, "needs dbus-daemon, python3-dbusmock, python3-cryptography, libsystemd-dev and libssl-dev"))
struct UnifiedPushTests {
    static let app = "org.pushhost.Test"

    /// A host with the unifiedpush plugin, `token-log` and `notify`, on a bus
    /// of its own; it runs until SIGTERM (the plugin is a source).
    /// `isolated`: every plugin in a worker (`--isolate all`).
    final class Live {
        let scratch: Scratch
        let bus: SessionBus
        let host: HostProcess

        init(_ scratch: Scratch, bus: SessionBus, settings: [String] = [], isolated: Bool = false) throws {
            self.scratch = scratch
            self.bus = bus
            host = try HostProcess(
                ["run", "--state", scratch.file("state"), "--report", scratch.file("report.ndjson"),
                 "--plugin", try UnifiedPushPlugin.path(), "--set", "unifiedpush.app_id=\(UnifiedPushTests.app)",
                 "--plugin", Paths.sample("token-log"), "--plugin", Paths.sample("notify")] + settings
                    + TransportWorker.walled(isolated, "unifiedpush", grants: ["bus=session"]),
                errorPath: scratch.file("stderr.log"), environment: bus.environment)
        }

        /// Whether the plugin runs in a worker of its own when `isolated`, and in the host else.
        func runsUnifiedPush(isolated: Bool) throws -> Bool {
            TransportWorker.runs(host, plugin: try UnifiedPushPlugin.path(), isolated: isolated)
        }

        /// The key file in the plugin's state folder.
        var keys: String { scratch.file("state/plugins/unifiedpush/keys") }

        /// The connection token, from the key file.
        func token() throws -> String {
            let line = try #require(scratch.read("state/plugins/unifiedpush/keys").split(separator: "\n").first)
            return String(line.dropFirst("token ".count))
        }

        /// Waits for the endpoint's report line; the connection token.
        func registered() throws -> String {
            _ = try report(1)
            return try token()
        }

        /// Waits until the report has `count` lines, and returns them.
        func report(_ count: Int) throws -> [[String: Any]] {
            eventually(timeout: .seconds(20)) { (try? self.scratch.reportLines().count) ?? 0 >= count }
            let lines = try scratch.reportLines()
            try #require(lines.count >= count, "\(lines.count) report lines, not \(count):\n\(host.stderr)")
            return lines
        }
    }

    /// A private bus with a fake distributor that accepts registrations.
    static func accepting(_ scratch: Scratch) throws -> (SessionBus, Distributor) {
        let bus = try SessionBus(scratch)
        let distributor = try Distributor(on: bus)
        try distributor.accept()
        return (bus, distributor)
    }

    @Test(arguments: [false, true]) func theEndpointIsTheTokenAndPushesArriveDecrypted(isolated: Bool) throws {
        let scratch = try Scratch()
        let (bus, distributor) = try Self.accepting(scratch)
        let live = try Live(scratch, bus: bus, isolated: isolated)
        let endpointLine = "info token-log: token https://push.example.net/up/"
        #expect(live.host.waitForStderr(endpointLine), "\(live.host.stderr)")
        #expect(try live.runsUnifiedPush(isolated: isolated))

        // Registered once, with our service, token and description.
        let token = try live.token()
        #expect(try distributor.registrations() == [["service": Self.app, "token": token, "description": "pushhost"]])
        // The keys are the plugin's alone.
        let mode = try FileManager.default.attributesOfItem(atPath: live.keys)[.posixPermissions] as? Int
        #expect(mode == 0o600)
        let endpoint = "https://push.example.net/up/" + token.prefix(8)
        #expect(try Command.pushhost(["token", "--state", scratch.file("state")]).stdout == endpoint + "\n")
        // And the subscription a server needs: the endpoint with the plugin's keys.
        let keyLines = Dictionary(uniqueKeysWithValues: scratch.read("state/plugins/unifiedpush/keys")
            .split(separator: "\n").map { line in (String(line.prefix { $0 != " " }), String(line.drop { $0 != " " }.dropFirst())) })
        let subscription = try Command.pushhost(["token", "--state", scratch.file("state"), "--subscription"]).stdout
        #expect(subscription == #"{"endpoint":"\#(endpoint)","keys":{"p256dh":"\#(keyLines["public"] ?? "")","auth":"\#(keyLines["auth"] ?? "")"}}"# + "\n")

        // A push in each version of the interface, encrypted to the plugin's keys.
        try distributor.push(
            to: Self.app, token: token, keys: live.keys,
            #"{"message_id":"up-1","notification":{"title":"Hello","body":"from UnifiedPush"}}"#, id: "d-1")
        try distributor.push(
            to: Self.app, token: token, keys: live.keys, #"{"message_id":"up-2","notification":{"title":"Version 1"}}"#,
            version: 1)
        let report = try live.report(3)
        #expect(report[0]["event"] as? String == "token")
        #expect(report[1...].map { $0["id"] as? String } == ["up-1", "up-2"])
        #expect(report[1...].map { $0["status"] as? String } == ["delivered", "delivered"])
        #expect(live.host.waitForStderr("notify: Version 1"))
        #expect(live.host.stderr.contains("notify: Hello: from UnifiedPush"))
        #expect(live.host.stop() == .status(0))
    }

    @Test(arguments: [false, true]) func whatDoesNotDecryptOrIsNotOursNeverReachesTheHost(isolated: Bool) throws {
        let scratch = try Scratch()
        let (bus, distributor) = try Self.accepting(scratch)
        let live = try Live(scratch, bus: bus, isolated: isolated)
        let token = try live.registered()
        #expect(try live.runsUnifiedPush(isolated: isolated))

        // Encrypted to other keys: a key file of another connector.
        let other = try scratch.write("other-keys", """
            token 00000000-0000-4000-8000-000000000000
            private q1dXpw3UpT5VOmu_cf_v6ih07Aems3njxI-JWgLcM94
            public BCVxsr7N_eNgVRqvHtD0zTZsEc6-VV-JvLexhqUzORcxaOzi6-AYWXvTBHm4bjyPjs7Vd8pZGH6SRpkNtoIAiw4
            auth BTBZMqHH6r4Tts7J_aSIgg

            """)
        try distributor.push(to: Self.app, token: token, keys: other, #"{"message_id":"x-1"}"#, id: "d-other")
        try distributor.pushRaw(to: Self.app, token: token, [0, 1, 2, 3])
        try distributor.pushRaw(to: Self.app, token: token, Array(repeating: 7, count: 4097))
        try distributor.push(to: Self.app, token: "not-ours", keys: live.keys, #"{"message_id":"x-2"}"#)
        // Then one that is fine: once it is reported, the others were handled.
        try distributor.push(to: Self.app, token: token, keys: live.keys, #"{"message_id":"up-3","data":{"n":"3"}}"#)
        let report = try live.report(2)
        #expect(report.count == 2 && report[1]["id"] as? String == "up-3")
        let stderr = live.host.stderr
        #expect(stderr.contains("error unifiedpush: message d-other rejected: it does not decrypt with these keys (wrong keys, or altered)"))
        #expect(stderr.contains("error unifiedpush: message raw rejected: shorter than the aes128gcm header (21 bytes)"))
        #expect(stderr.contains("error unifiedpush: message raw rejected: 4097 bytes, not 1 to 4096"))
        #expect(stderr.contains(#"warning unifiedpush: Message with an unknown token "not-ours": ignored"#))
        #expect(live.host.stop() == .status(0))
    }

    @Test func withoutADistributorItSaysSoOnceAndRegistersWhenOneComes() throws {
        let scratch = try Scratch()
        let bus = try SessionBus(scratch)
        let live = try Live(scratch, bus: bus)
        let missing = "error unifiedpush: no UnifiedPush distributor on the session bus (no name starts with org.unifiedpush.Distributor.): retrying"
        #expect(live.host.waitForStderr(missing))
        // Tried again after 1 s and 2 s: still said once.
        usleep(3_500_000)
        #expect(live.host.stderr.components(separatedBy: missing).count == 2)

        let distributor = try Distributor(on: bus)
        try distributor.accept()
        #expect(live.host.waitForStderr("info unifiedpush: registered with org.unifiedpush.Distributor.fake as org.pushhost.Test"))
        #expect(try live.report(1)[0]["event"] as? String == "token")
        #expect(live.host.stop() == .status(0))
    }

    @Test func aRefusalIsLoggedWithTheDistributorsReason() throws {
        let scratch = try Scratch()
        let bus = try SessionBus(scratch)
        let distributor = try Distributor(on: bus)
        try distributor.refuse("ACTION_REQUIRED")
        let live = try Live(scratch, bus: bus)
        #expect(live.host.waitForStderr(
            "error unifiedpush: org.unifiedpush.Distributor.fake refused the registration: ACTION_REQUIRED: retrying"))
        // The distributor asks again later; once it accepts, the endpoint comes.
        try distributor.accept()
        #expect(live.host.waitForStderr("info token-log: token https://push.example.net/up/"))
        #expect(live.host.stop() == .status(0))
    }

    @Test func theKeysAndTheTokenSurviveARestartAndUnregisteringRegistersAgain() throws {
        let scratch = try Scratch()
        let (bus, distributor) = try Self.accepting(scratch)
        var live = try Live(scratch, bus: bus)
        let token = try live.registered()
        let keys = scratch.read("state/plugins/unifiedpush/keys")
        let subscription = try Command.pushhost(["token", "--state", scratch.file("state"), "--subscription"]).stdout
        try distributor.unregister(Self.app, token: token)
        #expect(live.host.waitForStderr(
            "warning unifiedpush: the distributor unregistered this connector: the token is removed; registering again"))
        // The token is removed, then the registration made again, with the
        // same connection token and keys, brings the same subscription back.
        #expect(try live.report(3).map { $0["status"] as? String } == ["stored", "removed", "stored"])
        #expect(try distributor.registrations().map { $0["token"] } == [token, token])
        #expect(try Command.pushhost(["token", "--state", scratch.file("state"), "--subscription"]).stdout == subscription)
        #expect(live.host.stop() == .status(0))

        try FileManager.default.removeItem(atPath: scratch.file("report.ndjson"))
        live = try Live(scratch, bus: bus)
        _ = try live.report(1)
        #expect(scratch.read("state/plugins/unifiedpush/keys") == keys)
        #expect(try distributor.registrations().map { $0["token"] } == [token, token, token])
        // The same endpoint again: the stored token is unchanged.
        #expect(try live.report(1)[0]["status"] as? String == "unchanged")
        #expect(live.host.stop() == .status(0))
    }

    @Test func afterASIGKILLTheSameKeysDecryptAndTheSameTokenRegisters() throws {
        let scratch = try Scratch()
        let (bus, distributor) = try Self.accepting(scratch)
        var live = try Live(scratch, bus: bus)
        let token = try live.registered()
        live.host.send(SIGKILL)
        #expect(live.host.waitForExit() == .signal(SIGKILL))

        live = try Live(scratch, bus: bus)
        #expect(live.host.waitForStderr("info unifiedpush: registered with org.unifiedpush.Distributor.fake"))
        #expect(try distributor.registrations().map { $0["token"] } == [token, token])
        // A push encrypted to the keys as they were before the kill.
        try distributor.push(to: Self.app, token: token, keys: live.keys, #"{"message_id":"up-9","data":{"n":"9"}}"#)
        #expect(try live.report(3).last?["id"] as? String == "up-9")
        #expect(live.host.stop() == .status(0))
    }

    @Test(arguments: [
        ("", "the app_id setting is required: the connector's bus name, such as org.example.Pushhost"),
        ("pushhost", #"setting app_id: "pushhost" is not a bus name in reverse DNS form (such as org.example.Pushhost)"#),
    ])
    func aBadAppIDRefusesThePlugin(appID: String, reason: String) throws {
        let scratch = try Scratch()
        let result = try Command.pushhost(
            ["run", "--state", scratch.file("state"), "--plugin", try UnifiedPushPlugin.path(),
             "--set", "unifiedpush.app_id=\(appID)"])
        #expect(result.status == 1)
        #expect(result.stderr.contains("error unifiedpush: \(reason)"), "\(result.stderr)")
    }
}
