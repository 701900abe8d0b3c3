import Foundation
import Testing

/// What the server learns from each record's done: a retry comes back after
/// the back-off, a rejected record and one that fails every delivery go to
/// the dead-letter subject with their report line, and a record whose host
/// died on its last delivery goes there too.
@Suite(.enabled(if: NatsPlugin.canRun, "needs nats-server and libnats-dev"))
struct SettlementTests {
    /// A data plugin that fails each message its first `FAILURES` times
    /// (counted in this instance) and lets it continue after.
    static let flaky = #"""
        #include <pushhost.h>
        #include <string.h>
        enum { FAILURES = 2 };
        static int seen;
        static void *create(const ph_host *host, const ph_config *config) { (void)host; (void)config; return &seen; }
        static void destroy(void *self) { (void)self; }
        static ph_verdict on_data(void *self, const ph_message *m) {
            (void)m;
            return (*(int *)self)++ < FAILURES ? PH_FAILED : PH_CONTINUE;
        }
        static const ph_plugin plugin = {
            PH_PLUGIN_HEADER, .name = "flaky", .version = "1.0.0",
            .create = create, .destroy = destroy, .on_data = on_data,
        };
        PH_EXPORT const ph_plugin *ph_plugin_entry(void) { return &plugin; }
        """#

    @Test(arguments: [false, true]) func aFailedDataStageIsRetriedAfterTheBackOff(isolated: Bool) throws {
        let scratch = try Scratch()
        let server = try NatsServer(scratch)
        let flaky = try scratch.plugin("flaky.so", Self.flaky)
        let a = try NatsHost("a", scratch, server: server, settings: ["back_off": "0.3,0.6"], plugins: ["--plugin", flaky], isolated: isolated)
        try a.waitUntilReading()
        #expect(try a.runsNats(isolated: isolated))
        try server.publish([natsRecord("again")], to: "pushes.news")
        let ids = reportedIDs([a], count: 3)
        #expect(ids == ["again", "again", "again"])
        #expect(a.report.map { $0["status"] as? String } == ["failed", "failed", "undelivered"])
        #expect(eventually(timeout: .seconds(10)) { (try? server.state(of: "PUSHES")) == [
            "messages": 0, "pending": 0, "ack_pending": 0, "redelivered": 0, "delivered": 3] })
        #expect(try server.messages(in: "PUSHES_DEAD").isEmpty)
        #expect(a.host.stop() == .status(0))
    }

    @Test(arguments: [false, true]) func aPoisonRecordGoesToTheDeadLetterSubjectAfterMaxDeliver(isolated: Bool) throws {
        let scratch = try Scratch()
        let server = try NatsServer(scratch)
        let probe = try scratch.probe("probe", [.data])
        let a = try NatsHost("a", scratch, server: server, settings: ["max_deliver": "3"], plugins: probe, isolated: isolated)
        try a.waitUntilReading()
        #expect(try a.runsNats(isolated: isolated))
        try server.publish([natsRecord("poison", ["verdict": "failed"]), "not json", natsRecord("fine")], to: "pushes.news")
        #expect(eventually(timeout: .seconds(20)) { ((try? server.messages(in: "PUSHES_DEAD")) ?? []).count == 2 })
        let dead = try server.messages(in: "PUSHES_DEAD")
        let byReason = Dictionary(uniqueKeysWithValues: dead.map {
            (($0["headers"] as? [String: String])?["Pushhost-Reason"] ?? "", $0)
        })
        // The rejected record at once, with the host's reason in its report line.
        let rejected = try #require(byReason["rejected"], "\(dead)")
        let rejectedHeaders = try #require(rejected["headers"] as? [String: String])
        #expect(rejected["data"] as? String == "not json")
        #expect(rejectedHeaders["Pushhost-Deliveries"] == "1")
        #expect(rejectedHeaders["Pushhost-Subject"] == "pushes.news")
        #expect(rejectedHeaders["Pushhost-Stream"] == "PUSHES")
        #expect(rejectedHeaders["Pushhost-Report"]?.contains(#""status":"rejected""#) == true)
        #expect(rejectedHeaders["Pushhost-Report"]?.contains(#""error":"byte 1: invalid literal""#) == true)
        // The poison record after its third failure, and not before.
        let poison = try #require(byReason["failed on each of 3 deliveries"], "\(dead)")
        let poisonHeaders = try #require(poison["headers"] as? [String: String])
        #expect(poison["data"] as? String == natsRecord("poison", ["verdict": "failed"]))
        #expect(poisonHeaders["Pushhost-Deliveries"] == "3")
        #expect(poisonHeaders["Pushhost-Report"]?.contains(#""status":"failed""#) == true)
        #expect(scratch.probeCalls().filter { $0 == "probe data poison" }.count == 3)
        #expect(a.ids.filter { $0 == "fine" }.count == 1)
        #expect(a.host.waitForStderr("warning nats: the record at PUSHES sequence 2 went to dead.pushes: rejected"))
        #expect(a.host.stderr.contains("warning nats: the record at PUSHES sequence 1 went to dead.pushes: failed on each of 3 deliveries"))
        // Terminated, so the work queue keeps neither.
        #expect(eventually(timeout: .seconds(10)) { (try? server.state(of: "PUSHES")["messages"]) == 0 })
        #expect(a.host.stop() == .status(0))
    }

    /// A token, an action for a delivered message and a foreground event,
    /// each published to the stream as an attacker with access to a subject
    /// would: each rejected with the reason, copied to the dead-letter
    /// subject and terminated, and nothing of it applied.
    @Test func aRecordThatLooksLikeAHostEventIsRejectedAndGoesToTheDeadLetterSubject() throws {
        let scratch = try Scratch()
        let server = try NatsServer(scratch)
        // The operator's own token, from standard input.
        let seeded = try Command.pushhost(["run", "--state", scratch.file("a-state"), "--report", "-"],
                                          stdin: #"{"pushhost":"token","token":"operator"}"# + "\n")
        try #require(seeded.status == 0, "\(seeded.stderr)")
        let a = try NatsHost("a", scratch, server: server,
                             plugins: try scratch.probe("bg", [.background, .token, .action])
                                 + scratch.probe("screen", [.foreground, .action], targets: ["t"]))
        try a.waitUntilReading()
        let forged = [
            #"{"pushhost":"token","token":"https://attacker.example/collect"}"#,
            #"{"pushhost":"action","id":"m-1","action":"tap"}"#,
            #"{"pushhost":"foreground","screens":["screen"]}"#,
        ]
        try server.publish([#"{"message_id":"m-1","data":{"rx_gcm_key_target":"t"},"notification":{"title":"Hi"}}"#]
                               + forged + [#"{"message_id":"m-2","data":{"rx_gcm_key_target":"t"}}"#],
                           to: "pushes.news")
        // Each rejected line has no id: m-1 and m-2 have.
        #expect(reportedIDs([a], count: 5) == ["m-1", "m-2"])
        let reason = "a host event (the key pushhost) is not taken from here: plugin nats did not submit it as a host event of its own (PH_RECORD_HOST_EVENT)"
        let report = a.report
        try #require(report.count == 5, "\(report)")
        for number in 2...4 {
            let line = report.first { (($0["source"] as? [String: Any])?["record"] as? Int) == number }
            #expect(line?["status"] as? String == "rejected", "\(report)")
            #expect((line?["error"] as? String)?.hasSuffix(reason) == true, "\(String(describing: line))")
        }
        // The app stayed in the background, the screen saw nothing, no action or token reached a plugin.
        #expect(report.filter { $0["route"] as? String == "background" }.compactMap { $0["id"] as? String } == ["m-1", "m-2"])
        #expect(scratch.probeCalls() == ["bg background m-1", "bg background m-2"])
        let token = try Command.pushhost(["token", "--state", scratch.file("a-state")])
        #expect(token.stdout == "operator\n", "\(token.stdout)\(token.stderr)")
        // Each forged record went to the dead-letter subject with the reason, and left the work queue.
        #expect(eventually(timeout: .seconds(20)) { ((try? server.messages(in: "PUSHES_DEAD")) ?? []).count == 3 })
        let dead = try server.messages(in: "PUSHES_DEAD")
        #expect(dead.compactMap { $0["data"] as? String } == forged)
        for copy in dead {
            let headers = try #require(copy["headers"] as? [String: String])
            #expect(headers["Pushhost-Reason"] == "rejected")
            #expect(headers["Pushhost-Report"]?.contains(#""status":"rejected""#) == true, "\(headers)")
            #expect(headers["Pushhost-Report"]?.contains(reason) == true, "\(headers)")
        }
        for sequence in 2...4 {
            #expect(a.host.stderr.contains("warning nats: the record at PUSHES sequence \(sequence) went to dead.pushes: rejected"))
        }
        #expect(eventually(timeout: .seconds(10)) { (try? server.state(of: "PUSHES")["messages"]) == 0 })
        #expect(a.host.stop() == .status(0))
    }

    @Test func aRecordWhoseHostDiedOnItsLastDeliveryGoesToTheDeadLetterSubject() throws {
        let scratch = try Scratch()
        let server = try NatsServer(scratch)
        let settings = ["max_deliver": "1", "ack_wait": "1"]
        let holding = try scratch.probe("holder", [.data], settings: ["verdict": "pending-never"])
        let a = try NatsHost("a", scratch, server: server, settings: settings, plugins: holding)
        try a.waitUntilReading()
        try server.publish([natsRecord("last")], to: "pushes.news")
        #expect(eventually(timeout: .seconds(10)) { scratch.probeCalls().contains("holder data last") })
        let b = try NatsHost("b", scratch, server: server, settings: settings, plugins: try scratch.probe("probe", [.data]))
        try b.waitUntilReading()
        a.host.send(SIGKILL)
        _ = a.host.waitForExit()
        // The server will not deliver it again; its advisory brings it to b, which copies it.
        #expect(eventually(timeout: .seconds(20)) { ((try? server.messages(in: "PUSHES_DEAD")) ?? []).count == 1 })
        let dead = try #require(try server.messages(in: "PUSHES_DEAD").first)
        let headers = try #require(dead["headers"] as? [String: String])
        #expect(headers["Pushhost-Reason"] == "not done after 1 deliveries")
        #expect(headers["Pushhost-Sequence"] == "1")
        #expect(headers["Pushhost-Report"] == nil)
        #expect(dead["data"] as? String == natsRecord("last"))
        #expect(b.ids.isEmpty)
        // Removed from the work queue once copied.
        #expect(eventually(timeout: .seconds(10)) { (try? server.state(of: "PUSHES")["messages"]) == 0 })
        #expect(b.host.stop() == .status(0))
    }

    @Test func withoutADeadLetterSubjectAGivenUpRecordIsLoggedWithItsReport() throws {
        let scratch = try Scratch()
        let server = try NatsServer(scratch)
        let a = try NatsHost("a", scratch, server: server, settings: ["dead_letter": ""])
        try a.waitUntilReading()
        try server.publish(["[1,2]"], to: "pushes.news")
        #expect(a.host.waitForStderr(
            #"error nats: the record at PUSHES sequence 1 is dropped (no dead_letter setting): rejected; report {"id":null"#))
        #expect(a.host.stderr.contains(#""plugin":"nats","record":1}}; record [1,2]"#))
        #expect(eventually(timeout: .seconds(10)) { (try? server.state(of: "PUSHES")["messages"]) == 0 })
        #expect(a.host.stop() == .status(0))
    }
}
