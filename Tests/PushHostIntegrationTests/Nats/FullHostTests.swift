import Foundation
import Testing

/// A host that is full (it holds `--max-pending` records) leaves the
/// records it cannot start on the server, where another host takes them,
/// and a stopped host gives back at once what it had not begun.
@Suite(.enabled(if: NatsPlugin.canRun, "needs nats-server and libnats-dev"))
struct FullHostTests {
    static let maxPending = 8
    /// Nothing comes back by a timer while a test runs: a record that is
    /// not settled waits 60 s for another delivery, a retried one 60 s.
    static let slowTimers = ["ack_wait": "60", "back_off": "60"]
    /// The most records the server may count as delivered and not settled
    /// for one host: the host's `--max-pending`, one more that the plugin
    /// fetched and holds until the host has room, and the records the host
    /// just finished, whose Acks the server may not have counted yet.
    static let mostUnsettled = maxPending + 1 + maxPending

    /// The run arguments of a data plugin that answers PH_PENDING and gives
    /// each message its verdict 300 ms later, and that also plays the
    /// background role, so that each message handled is `delivered`.
    static func slowPlugin(_ scratch: Scratch) throws -> [String] {
        try scratch.probe("slow", [.data, .background], settings: ["verdict": "pending", "delay_ms": "300"])
    }

    static func start(_ name: String, _ scratch: Scratch, _ server: NatsServer, options: [String] = [], isolated: Bool = false) throws -> NatsHost {
        let host = try NatsHost(name, scratch, server: server, settings: slowTimers, plugins: try slowPlugin(scratch),
                                options: ["--max-pending", "\(maxPending)"] + options, isolated: isolated)
        try host.waitUntilReading()
        return host
    }

    static let published = (1...200).map { "r\($0)" }

    /// Samples the consumer's `ack_pending` until `hosts` reported `count`
    /// lines between them; the largest seen, or nil when they did not.
    static func mostAckPending(_ server: NatsServer, until hosts: [NatsHost], reported count: Int) -> Int? {
        var most = 0
        let reported = eventually(timeout: .seconds(90)) {
            most = max(most, (try? server.state(of: "PUSHES")["ack_pending"] ?? 0) ?? 0)
            return hosts.map(\.report.count).reduce(0, +) >= count
        }
        return reported ? most : nil
    }

    /// The stream's and consumer's counts once they are `expected`, or as they are after 10 s.
    static func state(_ server: NatsServer, becomes expected: [String: Int]) -> [String: Int] {
        var state: [String: Int] = [:]
        eventually(timeout: .seconds(10)) {
            state = (try? server.state(of: "PUSHES")) ?? [:]
            return state == expected
        }
        return state
    }

    /// Each published record was handled once, by one of `hosts`, and delivered.
    static func expectEachDeliveredOnce(_ hosts: [NatsHost]) {
        let lines = hosts.flatMap(\.report)
        #expect(lines.compactMap { $0["id"] as? String }.sorted() == published.sorted())
        #expect(lines.allSatisfy { $0["status"] as? String == "delivered" }, "\(lines.filter { $0["status"] as? String != "delivered" })")
    }

    /// Isolated too: the plugin's submit waits in its worker while the host is full.
    @Test(arguments: [false, true]) func aFullHostLeavesWhatItCannotStartOnTheServer(isolated: Bool) throws {
        let scratch = try Scratch()
        let server = try NatsServer(scratch)
        let a = try Self.start("a", scratch, server, isolated: isolated)
        #expect(try a.runsNats(isolated: isolated))
        try server.publish(Self.published.map { natsRecord($0) }, to: "pushes.news")
        let most = try #require(Self.mostAckPending(server, until: [a], reported: 200), "\(a.report.count) reported")
        // The host was full (it works 8 at a time), and the rest stayed on the server.
        #expect(most >= Self.maxPending && most <= Self.mostUnsettled, "ack_pending reached \(most)")
        Self.expectEachDeliveredOnce([a])
        // Each record was delivered once: none was given back only because the host was full.
        let settled = ["messages": 0, "pending": 0, "ack_pending": 0, "redelivered": 0, "delivered": 200]
        #expect(Self.state(server, becomes: settled) == settled)
        #expect(a.host.stop() == .status(0))
    }

    /// A consumer made with max_ack_pending hands out no more than that to
    /// all the hosts together, however much room they have: what a fleet
    /// sets so that the consumer's in-flight records fit its instances.
    @Test func maxAckPendingBoundsWhatTheHostsHoldTogether() throws {
        let scratch = try Scratch()
        let server = try NatsServer(scratch)
        let settings = Self.slowTimers.merging(["max_ack_pending": "5"]) { $1 }
        let hosts = try ["a", "b"].map { name in
            let host = try NatsHost(name, scratch, server: server, settings: settings, plugins: try Self.slowPlugin(scratch),
                                    options: ["--max-pending", "64"])
            try host.waitUntilReading()
            return host
        }
        let ids = Array(Self.published.prefix(40))
        try server.publish(ids.map { natsRecord($0) }, to: "pushes.news")
        var most = 0
        #expect(eventually(timeout: .seconds(60)) {
            most = max(most, (try? server.state(of: "PUSHES")["ack_pending"] ?? 0) ?? 0)
            return hosts.map(\.report.count).reduce(0, +) >= ids.count
        })
        #expect(most >= 2 && most <= 5, "ack_pending reached \(most)")
        #expect(hosts.flatMap(\.report).compactMap { $0["id"] as? String }.sorted() == ids.sorted())
        for host in hosts { #expect(host.host.stop() == .status(0)) }
    }

    /// Publishes a record for each of `ids` while `host` is stopped
    /// (SIGSTOP), so that its next fetch finds them all on the server.
    static func publish(_ ids: [String], whileStopped host: NatsHost, _ server: NatsServer) throws {
        host.host.send(SIGSTOP)
        defer { host.host.send(SIGCONT) }
        try server.publish(ids.map { natsRecord($0) }, to: "pushes.news")
    }

    /// Records of one fetch that wait behind a record waiting for room in a
    /// full host are held for their whole wait: the server hears InProgress
    /// for each, so none is delivered again however long the host stays
    /// full. Here another source (the sample fifo-source) fills the host
    /// for 8 s, eight ack_waits, just before a fetch of four records: long
    /// enough that a loaded machine still sees the fetch wait.
    @Test func recordsWaitingBehindAFullHostAreNotDeliveredAgain() throws {
        let scratch = try Scratch()
        let server = try NatsServer(scratch)
        let (fifo, fifoSource) = try SourcePluginTests.fifoSource(scratch)
        let a = try NatsHost("a", scratch, server: server, settings: ["ack_wait": "1", "batch": "4"],
                             plugins: fifoSource + scratch.probe("probe", [.data, .background]),
                             options: ["--max-pending", "\(Self.maxPending)"])
        try a.waitUntilReading()
        let fd = SourcePluginTests.openWhenRead(fifo, host: a.host)
        try #require(fd >= 0, "the FIFO was never opened for reading:\n\(a.host.stderr)")
        defer { close(fd) }
        // Quick records, all on the server before the first fetch: each
        // fetch the host takes whole lets the next ask for one more, so that
        // the fetches come to ask for batch (4).
        let quick = (1...24).map { "q\($0)" }
        try Self.publish(quick, whileStopped: a, server)
        #expect(reportedIDs([a], count: quick.count).count == quick.count)
        // The FIFO's records fill the host: the probe answers each 8 s later.
        let filling = (1...Self.maxPending).map { #"{"message_id":"f\#($0)","data":{"verdict":"pending","delay_ms":"8000"}}"# }
        try #require(SourcePluginTests.write(fd, filling.joined(separator: "\n") + "\n"), "cannot write to the FIFO")
        #expect(eventually(timeout: .seconds(10)) { scratch.probeCalls().contains("probe data f\(Self.maxPending)") })
        // A fetch brings them (all four, unless a busy machine splits the
        // fetches): the first waits for room, the others behind it.
        let waiting = (1...4).map { "w\($0)" }
        try Self.publish(waiting, whileStopped: a, server)
        #expect(eventually(timeout: .seconds(10)) { (try? server.state(of: "PUSHES")["ack_pending"]) ?? 0 >= 2 },
                "\((try? server.state(of: "PUSHES")) ?? [:])")
        let all = quick + filling.indices.map { "f\($0 + 1)" } + waiting
        #expect(reportedIDs([a], count: all.count).count == all.count)
        // A record delivered again would be handled again within an ack_wait or two.
        usleep(2_500_000)
        #expect(a.ids.sorted() == all.sorted())
        #expect(!a.host.stderr.contains("is not settled here"), "\(a.host.stderr)")
        let settled = ["messages": 0, "pending": 0, "ack_pending": 0, "redelivered": 0, "delivered": quick.count + waiting.count]
        #expect(Self.state(server, becomes: settled) == settled)
        #expect(a.host.stop() == .status(0))
    }

    @Test func aSecondHostGetsAShareOfWhatTheFirstCannotStart() throws {
        let scratch = try Scratch()
        let server = try NatsServer(scratch)
        let a = try Self.start("a", scratch, server)
        try server.publish(Self.published.map { natsRecord($0) }, to: "pushes.news")
        // a works on its first records before b comes.
        #expect(eventually(timeout: .seconds(20)) { a.report.count >= Self.maxPending })
        let b = try Self.start("b", scratch, server)
        let left = Self.published.count - a.report.count
        let most = try #require(Self.mostAckPending(server, until: [a, b], reported: 200))
        #expect(most <= 2 * Self.mostUnsettled, "ack_pending reached \(most)")
        // Both work 8 at a time: b gets about half of what was left when it came.
        #expect(b.report.count >= left / 4, "a: \(a.report.count), b: \(b.report.count) of the \(left) left when b came")
        Self.expectEachDeliveredOnce([a, b])
        #expect(eventually(timeout: .seconds(10)) { (try? server.state(of: "PUSHES")["delivered"]) == 200 })
        #expect(a.host.stop() == .status(0))
        #expect(b.host.stop() == .status(0))
    }

    @Test func aStopGivesBackWhatTheHostHadNotBegunToTheNextHostAtOnce() throws {
        let scratch = try Scratch()
        let server = try NatsServer(scratch)
        let a = try Self.start("a", scratch, server, options: ["--stop-timeout", "2"])
        try server.publish(Self.published.map { natsRecord($0) }, to: "pushes.news")
        #expect(eventually(timeout: .seconds(20)) { a.report.count >= 2 * Self.maxPending })
        let begunBefore = scratch.probeCalls().filter { $0.hasPrefix("slow data ") }.count
        a.host.send(SIGTERM)
        #expect(a.host.waitForExit() == .status(0), "\(a.host.stderr)")
        #expect(!a.host.stderr.contains("exiting without it"), "\(a.host.stderr)")
        // Nothing began after the stop but what the host had taken already,
        // and each record that began ended in a's report.
        let begun = scratch.probeCalls().filter { $0.hasPrefix("slow data ") }.count
        #expect(begun <= begunBefore + Self.maxPending, "\(begunBefore) begun at the stop, \(begun) in all")
        #expect(a.report.count == begun)
        // What a did not finish is on the server: never delivered (pending),
        // or given back at the stop (a Nak: counted in ack_pending until it is
        // delivered again), never more than the host held.
        let state = try server.state(of: "PUSHES")
        let givenBack = try #require(state["ack_pending"])
        #expect(state["messages"] == Self.published.count - a.report.count, "\(state)")
        #expect(state["pending"].map { $0 + givenBack } == state["messages"], "\(state)")
        #expect(givenBack <= Self.maxPending + 1, "\(state)")
        // b takes the rest at once: a record not given back would wait for ack_wait (60 s), one given back with a back-off 60 s.
        let b = try Self.start("b", scratch, server)
        #expect(reportedIDs([a, b], count: Self.published.count, timeout: .seconds(45)).count == Self.published.count)
        Self.expectEachDeliveredOnce([a, b])
        // Each record given back was delivered once more, to b, and no other record was.
        let settled = ["messages": 0, "pending": 0, "ack_pending": 0, "redelivered": 0, "delivered": Self.published.count + givenBack]
        #expect(Self.state(server, becomes: settled) == settled)
        #expect(b.host.stop() == .status(0))
    }
}
