import Foundation
import Testing
#if canImport(Glibc)
import Glibc
#endif

/// A MAX_DELIVERIES advisory is believed only when what the server says of
/// its record agrees: one that a client published on the advisory subject
/// (as any client allowed to publish there could), naming a record that was
/// delivered fewer than max_deliver times, leaves the record alone: no copy
/// on the dead-letter subject, not removed, handled once as any other.
@Suite(.enabled(if: NatsPlugin.canRun, "needs nats-server and libnats-dev"))
struct ForgedAdvisoryTests {
    static let subject = "$JS.EVENT.ADVISORY.CONSUMER.MAX_DELIVERIES.PUSHES.pushhost"
    static let advisories = "PUSHES_pushhost_ADVISORIES"
    static let settings = ["max_deliver": "3"]

    /// An advisory shaped as the server's, naming the record at `sequence`
    /// after max_deliver (3) deliveries.
    static func forged(sequence: Int) -> String {
        #"{"type":"io.nats.jetstream.advisory.v1.max_deliver","id":"f0rg3d","timestamp":"2024-05-01T10:00:00.000000001Z","stream":"PUSHES","consumer":"pushhost","stream_seq":\#(sequence),"deliveries":3}"#
    }

    /// The warning that the advisory for `sequence` was not believed, and why.
    static func notBelieved(_ sequence: Int, _ why: String) -> String {
        "warning nats: a MAX_DELIVERIES advisory for PUSHES sequence \(sequence) (consumer pushhost) is not believed, "
            + "and the record is left alone: \(why)"
    }

    /// The forged advisory was dropped, nothing reached the dead-letter
    /// subject, and `ids` were each handled once and delivered.
    static func expectLeftAlone(_ a: NatsHost, _ server: NatsServer, handled ids: [String], deliveries: Int) {
        #expect(reportedIDs([a], count: ids.count).sorted() == ids.sorted())
        #expect(a.report.allSatisfy { $0["status"] as? String == "delivered" }, "\(a.report)")
        #expect(eventually(timeout: .seconds(10)) { (try? server.messages(in: Self.advisories))?.isEmpty == true })
        usleep(1_000_000)
        #expect(a.ids.sorted() == ids.sorted())
        #expect((try? server.messages(in: "PUSHES_DEAD"))?.isEmpty == true)
        #expect(!a.host.stderr.contains("went to dead.pushes"), "\(a.host.stderr)")
        let settled = ["messages": 0, "pending": 0, "ack_pending": 0, "redelivered": 0, "delivered": deliveries]
        #expect(eventually(timeout: .seconds(10)) { (try? server.state(of: "PUSHES")) == settled },
                "\((try? server.state(of: "PUSHES")) ?? [:])")
    }

    /// An instance whose data stage holds the record `healthy` (3 s), once it does.
    static func holdingHealthy(_ scratch: Scratch, _ server: NatsServer) throws -> NatsHost {
        let a = try NatsHost("a", scratch, server: server, settings: settings,
                             plugins: try scratch.probe("slow", [.data, .background], settings: ["verdict": "pending", "delay_ms": "3000"]))
        try a.waitUntilReading()
        try server.publish([natsRecord("healthy")], to: "pushes.news")
        #expect(eventually(timeout: .seconds(10)) { scratch.probeCalls().contains("slow data healthy") })
        return a
    }

    /// The record is in the host, delivered once: the server's count in its
    /// delivery (its reply subject) is 1, fewer than max_deliver.
    @Test func aForgedAdvisoryForARecordThisHostHoldsLeavesItAlone() throws {
        let scratch = try Scratch()
        let server = try NatsServer(scratch)
        let a = try Self.holdingHealthy(scratch, server)
        try server.publish([Self.forged(sequence: 1)], to: Self.subject)
        #expect(a.host.waitForStderr(Self.notBelieved(1, "this instance holds it within its ack_wait, delivered 1 time of max_deliver 3")),
                "\(a.host.stderr)")
        Self.expectLeftAlone(a, server, handled: ["healthy"], deliveries: 1)
        #expect(a.host.stop() == .status(0))
    }

    /// The record was delivered once to another client, which holds it (it
    /// settles nothing): the consumer counts no record delivered again, so
    /// none can have run out of deliveries. It comes to the host after
    /// that client's ack_wait.
    @Test func aForgedAdvisoryForARecordAnotherClientHoldsLeavesItAlone() throws {
        let scratch = try Scratch()
        let server = try NatsServer(scratch)
        let a = try NatsHost("a", scratch, server: server, settings: Self.settings,
                             plugins: try scratch.probe("probe", [.data, .background]))
        try a.waitUntilReading()
        a.host.send(SIGSTOP)
        usleep(500_000) // its last pull requests (250 ms) expire
        try server.publish([natsRecord("healthy")], to: "pushes.news")
        let fetched = try server.fetch(from: "PUSHES", consumer: "pushhost")
        #expect(fetched.count == 1 && fetched.first?["deliveries"] as? Int == 1, "\(fetched)")
        try server.publish([Self.forged(sequence: 1)], to: Self.subject)
        a.host.send(SIGCONT)
        #expect(a.host.waitForStderr(Self.notBelieved(1, "the consumer counts no record delivered again (num_redelivered 0), "
                                                          + "so none has run out of deliveries")), "\(a.host.stderr)")
        Self.expectLeftAlone(a, server, handled: ["healthy"], deliveries: 2)
        #expect(a.host.stop() == .status(0))
    }

    /// The record waits on the server, never delivered: the consumer hands
    /// out one record at a time (max_ack_pending 1) and the host holds the first.
    @Test func aForgedAdvisoryForARecordNotYetDeliveredLeavesItAlone() throws {
        let scratch = try Scratch()
        let server = try NatsServer(scratch)
        let a = try NatsHost("a", scratch, server: server, settings: Self.settings.merging(["max_ack_pending": "1"]) { $1 },
                             plugins: try scratch.probe("slow", [.data, .background], settings: ["verdict": "pending", "delay_ms": "3000"]))
        try a.waitUntilReading()
        try server.publish([natsRecord("first"), natsRecord("second")], to: "pushes.news")
        #expect(eventually(timeout: .seconds(10)) { scratch.probeCalls().contains("slow data first") })
        try server.publish([Self.forged(sequence: 2)], to: Self.subject)
        #expect(a.host.waitForStderr(Self.notBelieved(2, "the consumer has delivered the records up to sequence 1 only")),
                "\(a.host.stderr)")
        Self.expectLeftAlone(a, server, handled: ["first", "second"], deliveries: 2)
        #expect(a.host.stop() == .status(0))
    }

    /// Advisories that are not shaped as the server's: its fields only
    /// deeper in, not JSON at all, or naming another stream. Each is
    /// dropped with a warning (its bytes escaped), and the record is handled.
    @Test func anAdvisoryNotShapedAsTheServersIsDropped() throws {
        let scratch = try Scratch()
        let server = try NatsServer(scratch)
        let a = try Self.holdingHealthy(scratch, server)
        let nested = #"{"note":{"stream_seq":1,"deliveries":3}}"#
        let otherStream = Self.forged(sequence: 1).replacingOccurrences(of: #""stream":"PUSHES""#, with: #""stream":"OTHER""#)
        try server.publish([nested, "stream_seq 1\u{1b}[2J", otherStream], to: Self.subject)
        let unreadable = "warning nats: a MAX_DELIVERIES advisory (consumer pushhost) is not believed: it is not one JSON "
            + "object holding type, stream, consumer, stream_seq and deliveries once each: "
        #expect(a.host.waitForStderr(unreadable + #""{\"note\":{\"stream_seq\":1,\"deliveries\":3}}""#), "\(a.host.stderr)")
        #expect(a.host.waitForStderr(unreadable + #""stream_seq 1\u001b[2J""#), "\(a.host.stderr)")
        #expect(a.host.waitForStderr(Self.notBelieved(1, "it names another stream")), "\(a.host.stderr)")
        Self.expectLeftAlone(a, server, handled: ["healthy"], deliveries: 1)
        #expect(a.host.stop() == .status(0))
    }

    /// Publishes `text` on `subject` with core NATS, as `user` (user and
    /// password; nil: the server's no_auth_user): the tool's outcome.
    static func publishCore(_ text: String, to subject: String, on server: NatsServer, as user: (String, String)?) throws -> Command {
        let environment = user.map { ProcessInfo.processInfo.environment.merging(["JETSTREAM_USER": $0.0, "JETSTREAM_PASSWORD": $0.1]) { $1 } }
        return try Command.run(try NatsPlugin.tool(), ["pub", server.url, subject], stdin: text + "\n", environment: environment)
    }

    /// docs/nats.md's permissions block, as it is there, with passwords for
    /// its variables: the instances work under it, the server's own
    /// advisory still reaches the dead-letter subject, and a forged one is
    /// refused to every user.
    @Test func theDocumentedPermissionsRefuseForgedAdvisoriesAndLetTheHostsWork() throws {
        let scratch = try Scratch()
        let docs = try String(contentsOf: Paths.packageRoot.appendingPathComponent("docs/nats.md"), encoding: .utf8)
        let block = try #require(docs.components(separatedBy: "```").first { $0.contains("authorization {") && $0.contains("$PUSHHOST_PASSWORD") })
        let passwords = ["$PUSHHOST_PASSWORD": "pushhost-pw", "$SENDER_PASSWORD": "sender-pw", "$ADMIN_PASSWORD": "admin-pw"]
        let config = passwords.reduce(block) { $0.replacingOccurrences(of: $1.key, with: "\"\($1.value)\"") }
        // The test's tools connect as the administrator (no user given), its publishing as the sender.
        let server = try NatsServer(scratch, extra: config + "\nno_auth_user: admin\n",
                                    clientEnvironment: ["JETSTREAM_USER": "sender", "JETSTREAM_PASSWORD": "sender-pw"])
        let settings = ["max_deliver": "1", "ack_wait": "1"]
        // The administrator makes the streams and consumers once.
        let setup = try NatsHost("setup", scratch, server: server, settings: settings)
        try setup.waitUntilReading()
        #expect(setup.host.stop() == .status(0))

        let password = try scratch.write("password", "pushhost-pw\n")
        chmod(password, 0o600)
        let instance = settings.merging(["user": "pushhost", "password_file": password, "create": ""]) { $1 }
        let a = try NatsHost("a", scratch, server: server, settings: instance,
                             plugins: try scratch.probe("holder", [.data], settings: ["verdict": "pending-never"]))
        try a.waitUntilReading()
        try server.publish([natsRecord("last")], to: "pushes.news")
        #expect(eventually(timeout: .seconds(10)) { scratch.probeCalls().contains("holder data last") })
        let b = try NatsHost("b", scratch, server: server, settings: instance, plugins: try scratch.probe("probe", [.data, .background]))
        try b.waitUntilReading()

        for user in [("sender", "sender-pw"), ("pushhost", "pushhost-pw"), nil] {
            let forged = try Self.publishCore(Self.forged(sequence: 1), to: Self.subject, on: server, as: user)
            #expect(forged.status == 1, "\(String(describing: user)): \(forged.rawStderr)")
            #expect(forged.rawStderr.contains(#"Permissions Violation for Publish to "\#(Self.subject)""#), "\(forged.rawStderr)")
        }
        #expect(try server.messages(in: Self.advisories).isEmpty)
        #expect(try server.messages(in: "PUSHES_DEAD").isEmpty)

        // The holder dies on the record's only delivery: the server's own advisory comes, and b copies the record.
        a.host.send(SIGKILL)
        _ = a.host.waitForExit()
        #expect(eventually(timeout: .seconds(20)) { ((try? server.messages(in: "PUSHES_DEAD")) ?? []).count == 1 })
        let dead = try #require(try server.messages(in: "PUSHES_DEAD").first)
        #expect((dead["headers"] as? [String: String])?["Pushhost-Reason"] == "not done after 1 deliveries", "\(dead)")
        // b handles, settles and dead-letters under its permissions.
        try server.publish([natsRecord("fine"), "not json"], to: "pushes.news")
        #expect(reportedIDs([b], count: 2).count == 1)
        #expect(b.ids == ["fine"])
        #expect(eventually(timeout: .seconds(10)) { ((try? server.messages(in: "PUSHES_DEAD")) ?? []).count == 2 })
        #expect(eventually(timeout: .seconds(10)) { (try? server.state(of: "PUSHES")["messages"]) == 0 })
        #expect(!b.host.stderr.contains("error nats") && !b.host.stderr.contains("not believed"), "\(b.host.stderr)")
        #expect(b.host.stop() == .status(0))
    }
}
