import Foundation
import Testing

/// A record whose every instance died on its last delivery (max_deliver)
/// has no done, and the server delivers it no more: it reaches the
/// dead-letter subject once, whenever an instance runs again, through the
/// MAX_DELIVERIES advisories the server keeps in a stream
/// (PUSHES_pushhost_ADVISORIES) and a consumer the instances share.
@Suite(.enabled(if: NatsPlugin.canRun, "needs nats-server and libnats-dev"))
struct StrandedRecordTests {
    /// Two deliveries at most, 1 s each.
    static let settings = ["max_deliver": "2", "ack_wait": "1"]
    static let advisories = "PUSHES_pushhost_ADVISORIES"

    /// Starts two instances whose data stage never answers, publishes `id`,
    /// and kills each one (SIGKILL) the moment it holds it: the first on
    /// delivery 1, the other on delivery 2, the last. Then waits past
    /// ack_wait: no instance runs, and no client has pulled since.
    static func strand(_ id: String, _ scratch: Scratch, _ server: NatsServer) throws {
        var holders: [String: NatsHost] = [:]
        for name in ["holda", "holdb"] {
            let host = try NatsHost(name, scratch, server: server, settings: settings,
                                    plugins: try scratch.probe(name, [.data], settings: ["verdict": "pending-never"]))
            try host.waitUntilReading()
            holders[name] = host
        }
        try server.publish([natsRecord(id)], to: "pushes.news")
        for delivery in 1...2 {
            var holder: String?
            eventually(timeout: .seconds(10)) {
                holder = holders.keys.first { scratch.probeCalls().contains("\($0) data \(id)") }
                return holder != nil
            }
            let name = try #require(holder, "delivery \(delivery): \(scratch.probeCalls()) \((try? server.state(of: "PUSHES")) ?? [:]) \(holders.values.map { $0.host.stderr })")
            let removed = holders.removeValue(forKey: name)
            let host = try #require(removed)
            host.host.send(SIGKILL)
            #expect(host.host.waitForExit() == .signal(SIGKILL))
        }
        usleep(2_500_000)
        // Neither in the dead-letter stream nor advised yet: the server
        // sends the advisory at the next pull.
        #expect(try server.messages(in: "PUSHES_DEAD").isEmpty)
        #expect(try server.messages(in: advisories).isEmpty)
        #expect(try server.state(of: "PUSHES")["ack_pending"] == 1)
    }

    /// An instance that reads the stream, then is stopped (SIGSTOP) once its
    /// last pull requests (250 ms) expired: away, but connected again when
    /// it goes on.
    static func stoppedHost(_ scratch: Scratch, _ server: NatsServer) throws -> NatsHost {
        let c = try NatsHost("c", scratch, server: server, settings: settings, plugins: try scratch.probe("probe", [.data]))
        try c.waitUntilReading()
        c.host.send(SIGSTOP)
        usleep(500_000)
        return c
    }

    /// `c` copied the stranded record to the dead-letter stream, once, and
    /// never handled it; the stream settles; `c` stops.
    static func expectSweptOnce(by c: NatsHost, _ server: NatsServer, retention: String = "workqueue") throws {
        try expectStrandedCopy(deadCopies(server), "stranded")
        #expect(c.host.stderr.components(separatedBy: wentTo).count == 2)
        #expect(!c.host.stderr.contains("is not believed"), "\(c.host.stderr)")
        #expect(c.ids.isEmpty)
        expectSettled(server, retention: retention)
        #expect(c.host.stop() == .status(0))
    }

    /// The copies in the dead-letter stream once there are `count`, and a
    /// while after (a second copy would have come by then).
    static func deadCopies(_ server: NatsServer, count: Int = 1) -> [[String: Any]] {
        eventually(timeout: .seconds(20)) { ((try? server.messages(in: "PUSHES_DEAD")) ?? []).count >= count }
        usleep(1_500_000)
        return (try? server.messages(in: "PUSHES_DEAD")) ?? []
    }

    /// Checks that `dead` is the one copy of `id` at sequence 1, stranded
    /// after `deliveries`.
    static func expectStrandedCopy(_ dead: [[String: Any]], _ id: String, deliveries: Int = 2) throws {
        try #require(dead.count == 1, "\(dead)")
        let headers = try #require(dead[0]["headers"] as? [String: String])
        #expect(dead[0]["data"] as? String == natsRecord(id))
        #expect(headers["Pushhost-Reason"] == "not done after \(deliveries) deliveries")
        #expect(headers["Pushhost-Deliveries"] == "\(deliveries)")
        #expect(headers["Pushhost-Stream"] == "PUSHES")
        #expect(headers["Pushhost-Sequence"] == "1")
        #expect(headers["Pushhost-Subject"] == "pushes.news")
        #expect(headers["Pushhost-Report"] == nil)
        #expect(headers["Nats-Msg-Id"] == "PUSHES:1")
    }

    static let wentTo = "warning nats: the record at PUSHES sequence 1 went to dead.pushes: not done after 2 deliveries"

    /// The record is out of a work queue once copied; a stream with limits
    /// keeps every record. The advisory was acked, so its work queue is empty.
    static func expectSettled(_ server: NatsServer, retention: String = "workqueue") {
        #expect(eventually(timeout: .seconds(10)) {
            (try? server.state(of: "PUSHES")["messages"]) == (retention == "workqueue" ? 0 : 1)
        })
        #expect(eventually(timeout: .seconds(10)) { (try? server.messages(in: advisories))?.isEmpty == true })
    }

    @Test(arguments: ["workqueue", "limits"]) func aRecordStrandedWhenEveryHostDiedGoesToTheDeadLetterStreamOnce(retention: String) throws {
        let scratch = try Scratch()
        let server = try NatsServer(scratch)
        try server.makeStream("PUSHES", subject: "pushes.>", retention: retention)
        try Self.strand("stranded", scratch, server)

        let c = try NatsHost("c", scratch, server: server, settings: Self.settings, plugins: try scratch.probe("probe", [.data]))
        try c.waitUntilReading()
        try Self.expectStrandedCopy(Self.deadCopies(server), "stranded")
        #expect(c.host.stderr.components(separatedBy: Self.wentTo).count == 2)
        #expect(!c.host.stderr.contains("is not believed"), "\(c.host.stderr)")
        #expect(c.ids.isEmpty)
        #expect(!scratch.probeCalls().contains("probe data stranded"))
        Self.expectSettled(server, retention: retention)
        #expect(c.host.stop() == .status(0))
    }

    /// Why the plugin keeps the advisories rather than look at the records:
    /// the server's state shows a stranded record as one in flight until
    /// the advisory, and with limits retention as one acked after the next Ack.
    @Test func theServerShowsAStrandedRecordAsInFlightThenAsAcked() throws {
        let scratch = try Scratch()
        let server = try NatsServer(scratch)
        try server.makeStream("PUSHES", subject: "pushes.>", retention: "limits")
        try Self.strand("stranded", scratch, server)
        #expect(try server.floor(of: "PUSHES") == ["delivered": 1, "ack_floor": 0, "ack_pending": 1])

        let c = try NatsHost("c", scratch, server: server, settings: Self.settings, plugins: try scratch.probe("probe", [.data]))
        try c.waitUntilReading()
        try Self.expectStrandedCopy(Self.deadCopies(server), "stranded")
        // Advised, it is no longer pending, and the floor stays below it until an Ack.
        #expect(try server.floor(of: "PUSHES") == ["delivered": 1, "ack_floor": 0, "ack_pending": 0])
        try server.publish([natsRecord("next")], to: "pushes.news")
        #expect(reportedIDs([c], count: 1) == ["next"])
        #expect(eventually(timeout: .seconds(10)) {
            (try? server.floor(of: "PUSHES")) == ["delivered": 2, "ack_floor": 2, "ack_pending": 0]
        })
        #expect(try server.messages(in: "PUSHES").compactMap { $0["data"] as? String } == [natsRecord("stranded"), natsRecord("next")])
        #expect(c.host.stop() == .status(0))
    }

    /// Another client's pull (an operator's tool) makes the server send the
    /// advisory while no instance runs: the stream keeps it for the next.
    @Test(arguments: ["workqueue", "limits"]) func anAdvisorySentWhileNoHostRanIsSweptAtStart(retention: String) throws {
        let scratch = try Scratch()
        let server = try NatsServer(scratch)
        try server.makeStream("PUSHES", subject: "pushes.>", retention: retention)
        try Self.strand("stranded", scratch, server)
        #expect(try server.fetch(from: "PUSHES", consumer: "pushhost").isEmpty)
        #expect(eventually(timeout: .seconds(5)) { ((try? server.messages(in: Self.advisories)) ?? []).count == 1 })

        let c = try NatsHost("c", scratch, server: server, settings: Self.settings, plugins: try scratch.probe("probe", [.data]))
        try c.waitUntilReading()
        try Self.expectSweptOnce(by: c, server, retention: retention)
    }

    /// The server is killed and started again while the record is stranded
    /// and its instance away (stopped): the advisory the server sends then
    /// is read once the instance has reconnected.
    @Test func aRecordStrandedAcrossAServerRestartIsSweptAfterTheReconnect() throws {
        let scratch = try Scratch()
        let server = try NatsServer(scratch)
        let c = try Self.stoppedHost(scratch, server)
        try Self.strand("stranded", scratch, server)
        server.kill()
        try server.start()
        // The restarted server knows the record's deliveries: a pull by
        // another client, waiting past ack_wait, has it send the advisory,
        // which no instance hears.
        #expect(try server.fetch(from: "PUSHES", consumer: "pushhost", waitMs: 3000).isEmpty)
        #expect(eventually(timeout: .seconds(5)) { ((try? server.messages(in: Self.advisories)) ?? []).count == 1 })
        #expect(try server.messages(in: "PUSHES_DEAD").isEmpty)
        c.host.send(SIGCONT)
        #expect(c.host.waitForStderr("info nats: connected again to \(server.url)"))
        try Self.expectSweptOnce(by: c, server)
    }

    /// The same with nothing but the instance to pull: its own first pull
    /// after the reconnect has the server send the advisory.
    @Test func aRecordStrandedWhileTheServerWasDownIsSweptAfterTheReconnect() throws {
        let scratch = try Scratch()
        let server = try NatsServer(scratch)
        let c = try Self.stoppedHost(scratch, server)
        try Self.strand("stranded", scratch, server)
        server.kill()
        c.host.send(SIGCONT)
        #expect(c.host.waitForStderr("warning nats: lost the connection to \(server.url): reconnecting"))
        try server.start()
        #expect(c.host.waitForStderr("info nats: connected again to \(server.url)"))
        try Self.expectSweptOnce(by: c, server)
    }

    @Test func twoHostsStartingAtOnceDeadLetterTheRecordOnce() throws {
        let scratch = try Scratch()
        let server = try NatsServer(scratch)
        try Self.strand("stranded", scratch, server)
        let probe = try scratch.probe("probe", [.data])
        let b = try NatsHost("b", scratch, server: server, settings: Self.settings, plugins: probe, options: ["--metrics", "127.0.0.1:0"])
        let c = try NatsHost("c", scratch, server: server, settings: Self.settings, plugins: probe, options: ["--metrics", "127.0.0.1:0"])
        try b.waitUntilReading()
        try c.waitUntilReading()
        try Self.expectStrandedCopy(Self.deadCopies(server), "stranded")
        // One of them copied it, and neither copied it twice.
        let logs = b.host.stderr + c.host.stderr
        #expect(logs.components(separatedBy: Self.wentTo).count == 2, "\(logs)")
        #expect(!logs.contains("was in dead.pushes already"), "\(logs)")
        let counted = try [b, c].map { host in
            try MetricsEndpoint.scrape(port: try TransportMetrics.port(of: host.host))["nats_dead_lettered_total"] ?? -1
        }
        #expect(counted.sorted() == [0, 1])
        #expect(b.ids.isEmpty && c.ids.isEmpty)
        Self.expectSettled(server)
        #expect(b.host.stop() == .status(0))
        #expect(c.host.stop() == .status(0))
    }

    /// A record on its last delivery whose instance lives (and says
    /// InProgress) is not stranded: no instance starting, however often,
    /// touches it. Once its instance dies, it is.
    @Test func aRecordInFlightWithALiveHostIsNotSwept() throws {
        let scratch = try Scratch()
        let server = try NatsServer(scratch)
        let settings = ["max_deliver": "1", "ack_wait": "1"]
        let a = try NatsHost("a", scratch, server: server, settings: settings,
                             plugins: try scratch.probe("holder", [.data], settings: ["verdict": "pending-never"]))
        try a.waitUntilReading()
        try server.publish([natsRecord("held")], to: "pushes.news")
        #expect(eventually(timeout: .seconds(10)) { scratch.probeCalls().contains("holder data held") })
        let probe = try scratch.probe("probe", [.data])
        for name in ["b", "c"] {
            let other = try NatsHost(name, scratch, server: server, settings: settings, plugins: probe)
            try other.waitUntilReading()
            usleep(1_500_000)
            #expect(other.host.stop() == .status(0))
        }
        let d = try NatsHost("d", scratch, server: server, settings: settings, plugins: probe)
        try d.waitUntilReading()
        usleep(2_500_000)
        #expect(try server.messages(in: "PUSHES_DEAD").isEmpty)
        #expect(try server.messages(in: Self.advisories).isEmpty)
        #expect(try server.state(of: "PUSHES") == ["messages": 1, "pending": 0, "ack_pending": 1, "redelivered": 0, "delivered": 1])
        #expect(!d.host.stderr.contains("went to dead.pushes"))

        a.host.send(SIGKILL)
        #expect(a.host.waitForExit() == .signal(SIGKILL))
        try Self.expectStrandedCopy(Self.deadCopies(server), "held", deliveries: 1)
        #expect(d.ids.isEmpty)
        Self.expectSettled(server)
        #expect(d.host.stop() == .status(0))
    }

    /// Without create the advisories' stream and consumer must be there; a
    /// consumer deleted while the host runs is made again with create.
    @Test func theAdvisoriesConsumerIsCheckedOrMadeAgain() throws {
        let scratch = try Scratch()
        let server = try NatsServer(scratch)
        let a = try NatsHost("a", scratch, server: server, settings: Self.settings)
        try a.waitUntilReading()
        #expect(a.host.stderr.contains("info nats: created the stream \(Self.advisories) for the MAX_DELIVERIES advisories of pushhost"))
        #expect(a.host.stderr.contains("info nats: created the advisory consumer pushhost on \(Self.advisories)"))
        // An instance without create finds them.
        let b = try NatsHost("b", scratch, server: server, settings: Self.settings.merging(["create": ""]) { $1 })
        try b.waitUntilReading()
        #expect(b.host.stop() == .status(0))

        try server.delete(consumer: "pushhost", of: Self.advisories)
        #expect(a.host.waitForStderr("error nats: cannot read the MAX_DELIVERIES advisories (the consumer pushhost on \(Self.advisories))"))
        #expect(a.host.waitForStderr("info nats: reading the MAX_DELIVERIES advisories (the consumer pushhost on \(Self.advisories)) again"))
        #expect(a.host.stderr.components(separatedBy: "created the advisory consumer pushhost").count == 3)
        #expect(a.host.stderr.components(separatedBy: "cannot read the MAX_DELIVERIES advisories").count == 2)
        #expect(a.host.stop() == .status(0))

        try server.delete(consumer: "pushhost", of: Self.advisories)
        let c = try NatsHost("c", scratch, server: server, settings: Self.settings.merging(["create": ""]) { $1 })
        #expect(c.host.waitForExit() == .status(1))
        #expect(c.host.stderr.contains("error nats: the stream \(Self.advisories) has no consumer pushhost: create it, or set create=true"))
    }
}

extension NatsServer {
    /// Creates a stream as an operator would, before any host does.
    func makeStream(_ name: String, subject: String, retention: String) throws {
        let result = try Command.run(try NatsPlugin.tool(), ["stream", url, name, subject, retention])
        try #require(result.status == 0, "jetstream stream: \(result.rawStderr)")
    }

    /// The consumer's `delivered` and `ack_floor` (stream sequences) and `ack_pending`.
    func floor(of stream: String, consumer: String = "pushhost") throws -> [String: Int] {
        let result = try Command.run(try NatsPlugin.tool(), ["floor", url, stream, consumer])
        try #require(result.status == 0, "jetstream floor: \(result.rawStderr)")
        return try #require(try JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [String: Int])
    }

    /// One pull of another client from `consumer`, settling nothing: the
    /// records it got (`sequence`, `deliveries`, `data`).
    func fetch(from stream: String, consumer: String, batch: Int = 1, waitMs: Int = 500) throws -> [[String: Any]] {
        let result = try Command.run(try NatsPlugin.tool(), ["fetch", url, stream, consumer, "\(batch)", "\(waitMs)"])
        try #require(result.status == 0, "jetstream fetch: \(result.rawStderr)")
        return try result.stdout.split(separator: "\n").map { line in
            try #require(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])
        }
    }
}
