import Foundation
import Testing

/// Several pushhost instances sharing one durable consumer on a real
/// nats-server: each record handled once, a killed instance's record
/// handled by another, and nothing settled that the host was not done with.
@Suite(.enabled(if: NatsPlugin.canRun, "needs nats-server and libnats-dev"))
struct SharedConsumerTests {
    @Test(arguments: [false, true]) func twoHostsSharingOneConsumerHandleEachRecordOnce(isolated: Bool) throws {
        let scratch = try Scratch()
        let server = try NatsServer(scratch)
        // Each message takes the probe 2 ms, so that both instances get a share.
        let probe = try scratch.probe("probe", [.data], settings: ["verdict": "pending", "delay_ms": "2"])
        let a = try NatsHost("a", scratch, server: server, settings: ["batch": "4"], plugins: probe, isolated: isolated)
        try a.waitUntilReading()
        let b = try NatsHost("b", scratch, server: server, settings: ["batch": "4"], plugins: probe, isolated: isolated)
        try b.waitUntilReading()
        #expect(try a.runsNats(isolated: isolated) && b.runsNats(isolated: isolated))

        let records = (1...300).map { natsRecord("r\($0)") }
        try server.publish(records, to: "pushes.news")
        let ids = reportedIDs([a, b], count: 300)
        #expect(ids.count == 300)
        #expect(Set(ids) == Set((1...300).map { "r\($0)" }))
        #expect(!a.ids.isEmpty && !b.ids.isEmpty, "a: \(a.ids.count), b: \(b.ids.count)")
        // No screen or background plugin: handled, and undelivered.
        #expect((a.report + b.report).allSatisfy { $0["status"] as? String == "undelivered" })
        // Each was handled once, and the work queue is empty: all were acked.
        #expect(scratch.probeCalls().filter { $0.hasPrefix("probe data ") }.count == 300)
        var state: [String: Int] = [:]
        eventually(timeout: .seconds(10)) {
            state = (try? server.state(of: "PUSHES")) ?? [:]
            return state["messages"] == 0
        }
        #expect(state == ["messages": 0, "pending": 0, "ack_pending": 0, "redelivered": 0, "delivered": 300])
        #expect(a.host.stop() == .status(0))
        #expect(b.host.stop() == .status(0))
    }

    @Test func aRecordOfAKilledHostGoesToTheOther() throws {
        let scratch = try Scratch()
        let server = try NatsServer(scratch)
        // a holds each record forever: its data stage never answers.
        let holding = try scratch.probe("holder", [.data], settings: ["verdict": "pending-never"])
        let a = try NatsHost("a", scratch, server: server, settings: ["ack_wait": "1"], plugins: holding)
        try a.waitUntilReading()
        try server.publish([natsRecord("kept")], to: "pushes.news")
        #expect(eventually(timeout: .seconds(10)) { scratch.probeCalls().contains("holder data kept") })
        // Under way in a for longer than ack_wait: neither acked nor
        // redelivered, because a tells the server it is working on it.
        usleep(2_500_000)
        #expect(try server.state(of: "PUSHES") == ["messages": 1, "pending": 0, "ack_pending": 1, "redelivered": 0, "delivered": 1])

        let probe = try scratch.probe("probe", [.data])
        let b = try NatsHost("b", scratch, server: server, settings: ["ack_wait": "1"], plugins: probe)
        try b.waitUntilReading()
        a.host.send(SIGKILL)
        #expect(a.host.waitForExit() == .signal(SIGKILL))
        #expect(reportedIDs([b], count: 1) == ["kept"])
        #expect(b.report.first?["status"] as? String == "undelivered")
        #expect(scratch.probeCalls().filter { $0 == "holder data kept" }.count == 1)
        #expect(scratch.probeCalls().contains("probe data kept"))
        #expect(eventually(timeout: .seconds(10)) { (try? server.state(of: "PUSHES")["messages"]) == 0 })
        #expect(b.host.stop() == .status(0))
    }

    @Test(arguments: [false, true]) func aStoppedHostSettlesOnlyWhatItFinished(isolated: Bool) throws {
        let scratch = try Scratch()
        let server = try NatsServer(scratch)
        // "held" never gets its verdict; the others do at once.
        let probe = try scratch.probe("probe", [.data])
        let a = try NatsHost("a", scratch, server: server, settings: ["back_off": "60"], plugins: probe,
                             options: ["--stop-timeout", "1"], isolated: isolated)
        try a.waitUntilReading()
        #expect(try a.runsNats(isolated: isolated))
        try server.publish([natsRecord("done-1"), #"{"message_id":"held","data":{"probe":{"verdict":"pending-never"}}}"#, natsRecord("done-2")],
                           to: "pushes.news")
        #expect(eventually(timeout: .seconds(10)) { scratch.probeCalls().contains("probe data done-2") })
        #expect(a.host.stop() == .status(0))
        // done-1 and done-2 were acked; held was not: the host stopped before
        // its data stage ended, so a gave it back at once (a Nak without the
        // 60 s back-off), and the next host gets it well before then.
        #expect(a.ids == ["done-1", "done-2"])
        #expect(try server.state(of: "PUSHES")["messages"] == 1)
        let b = try NatsHost("b", scratch, server: server, plugins: try scratch.probe("later", [.data]))
        #expect(reportedIDs([b], count: 1) == ["held"])
        #expect(b.host.stop() == .status(0))
    }

    @Test func aStoppedHostGivesBackWhatItFetchedAndCouldNotHandOver() throws {
        let scratch = try Scratch()
        let server = try NatsServer(scratch)
        // One message may wait for its data stage, and it never ends: the
        // host's queue fills, submit blocks, and a batch stays in the plugin.
        let holding = try scratch.probe("holder", [.data], settings: ["verdict": "pending-never"])
        let slow = ["ack_wait": "60", "back_off": "60", "batch": "64"]
        let a = try NatsHost("a", scratch, server: server, settings: slow, plugins: holding,
                             options: ["--max-pending", "1", "--stop-timeout", "1"])
        try a.waitUntilReading()
        try server.publish((1...400).map { natsRecord("r\($0)") }, to: "pushes.news")
        #expect(eventually(timeout: .seconds(10)) { scratch.probeCalls().contains("holder data r1") })
        usleep(500_000)
        #expect(a.host.stop() == .status(0))
        // Every record comes to the next host at once, not after ack_wait.
        let b = try NatsHost("b", scratch, server: server, settings: slow, plugins: try scratch.probe("probe", [.data]))
        #expect(Set(reportedIDs([b], count: 400, timeout: .seconds(30))) == Set((1...400).map { "r\($0)" }))
        #expect(b.host.stop() == .status(0))
    }
}
