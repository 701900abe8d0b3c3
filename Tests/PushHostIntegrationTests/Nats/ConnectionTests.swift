import Foundation
import Testing
#if canImport(Glibc)
import Glibc
#endif

/// The stream and consumer as the settings describe them, and the connection
/// when the server goes away and comes back.
@Suite(.enabled(if: NatsPlugin.canRun, "needs nats-server and libnats-dev"))
struct ConnectionTests {
    @Test func aServerThatDisagreesWithTheSettingsRefusesTheStart() throws {
        let scratch = try Scratch()
        let server = try NatsServer(scratch)
        let first = try NatsHost("first", scratch, server: server)
        try first.waitUntilReading()
        #expect(first.host.stop() == .status(0))

        let cases: [(settings: [String: String], line: String)] = [
            (["create": "", "stream": "NOPE"], "error nats: the server has no stream NOPE: create it, or set create=true"),
            (["create": "", "durable": "other"], "error nats: the stream PUSHES has no consumer other: create it, or set create=true"),
            (["ack_wait": "5"], "error nats: the consumer pushhost waits 2 s for an Ack, the ack_wait setting 5 s"),
            (["max_deliver": "3"], "error nats: the consumer pushhost delivers a record at most 5 times, the max_deliver setting 3"),
            (["filter": "pushes.news"], #"error nats: the consumer pushhost filters "", the filter setting "pushes.news""#),
            (["create": "", "subjects": "orders.>"], "error nats: the stream PUSHES does not hold the subject orders.> (setting subjects)"),
            (["replicas": "3"], "error nats: the stream PUSHES keeps 1 replicas, the replicas setting 3"),
            // The server's default, 1,000, is what a consumer made without the setting has.
            (["max_ack_pending": "50"], "error nats: the consumer pushhost lets 1000 records be pending, the max_ack_pending setting 50"),
            // One server is no cluster: the server's reason.
            (["stream": "THREE", "subjects": "three.>", "replicas": "3"], "error nats: cannot create the stream: replicas > 1 not supported in non-clustered mode"),
        ]
        for (index, item) in cases.enumerated() {
            let host = try NatsHost("case\(index)", scratch, server: server, settings: item.settings)
            #expect(host.host.waitForExit() == .status(1), "\(item.settings)")
            #expect(host.host.stderr.contains(item.line), "\(host.host.stderr)")
        }
    }

    @Test func badSettingsRefuseThePluginWithTheReason() throws {
        let scratch = try Scratch()
        let cases: [(settings: [String], line: String)] = [
            ([], "error nats: the stream setting is required"),
            (["stream=a.b"], #"error nats: setting stream: "a.b" is not a stream or consumer name"#),
            (["stream=S", "batch=0"], #"error nats: setting batch: "0" is not a number of records from 1 to 1024"#),
            (["stream=S", "subjects=a..b"], #"error nats: setting subjects: "a..b" is not a NATS subject"#),
            (["stream=S", "dead_letter=dead.*"], #"error nats: setting dead_letter: "dead.*" has a wildcard"#),
            (["stream=S", "partitions=2"], "error nats: setting filter: partitions needs a filter with {partition}"),
            (["stream=S", "create=true"], "error nats: setting subjects: create=true needs the subjects the stream holds"),
            (["stream=S", "back_off=1,x"], #"error nats: setting back_off: "x" is not a number of seconds"#),
            (["stream=S", "replicas=7"], #"error nats: setting replicas: "7" is not a number of replicas from 1 to 5"#),
            (["stream=S", "replicas=1.5"], "error nats: settings batch, max_deliver, partitions, replicas and max_ack_pending are whole numbers"),
            (["stream=S", "max_ack_pending=0"], #"error nats: setting max_ack_pending: "0" is not a number of records from 1 to 100000"#),
            (["stream=S", "partitions=2", "filter=a.{partition}", "max_ack_pending=5"],
             "error nats: settings partitions and max_ack_pending: a partition's consumer hands out one record at a time"),
        ]
        for (index, item) in cases.enumerated() {
            // In the background: a host that took the settings would run on, waiting for a server.
            let host = try HostProcess(
                ["run", "--state", scratch.file("state"), "--plugin", try NatsPlugin.path()]
                    + item.settings.flatMap { ["--set", "nats.\($0)"] },
                errorPath: scratch.file("stderr-\(index).log"))
            let exit = host.waitForExit(timeout: .seconds(10))
            #expect(exit != nil && exit != .status(0), "\(item.settings)")
            #expect(host.stderr.contains(item.line), "\(host.stderr)")
        }
    }

    @Test func credentialsThatDoNotWorkRefuseTheStartWithTheReason() throws {
        let scratch = try Scratch()
        let server = try NatsServer(scratch)
        let garbage = try scratch.write("garbage.creds", "not a credentials file\n")
        chmod(garbage, 0o600)
        let cases = [
            (scratch.file("missing.creds"), "error nats: setting credentials: \(scratch.file("missing.creds")): No such file or directory"),
            (garbage, "error nats: cannot connect to \(server.url): no nkey user seed found in '\(garbage)'"),
        ]
        for (index, (file, line)) in cases.enumerated() {
            let host = try NatsHost("case\(index)", scratch, server: server, settings: ["credentials": file])
            #expect(host.host.waitForExit() == .status(1))
            #expect(host.host.stderr.contains(line), "\(host.host.stderr)")
            #expect(!host.host.stderr.contains("no NATS server answers"))
        }
    }

    @Test func itReconnectsAfterTheServerCameBackAndSaysSoOnce() throws {
        let scratch = try Scratch()
        let server = try NatsServer(scratch)
        let a = try NatsHost("a", scratch, server: server, plugins: try scratch.probe("probe", [.data]))
        try a.waitUntilReading()
        try server.publish([natsRecord("before")], to: "pushes.news")
        #expect(reportedIDs([a], count: 1) == ["before"])

        server.kill()
        let lost = "warning nats: lost the connection to \(server.url): reconnecting"
        #expect(a.host.waitForStderr(lost))
        usleep(1_500_000) // several attempts to reconnect, in silence
        try server.start()
        #expect(a.host.waitForStderr("info nats: connected again to \(server.url)"))
        try server.publish([natsRecord("after")], to: "pushes.news")
        // A SIGKILLed server may not have stored the Ack of "before": it comes
        // again then (at least once), and "after" comes in any case.
        #expect(eventually(timeout: .seconds(20)) { a.ids.contains("after") })
        #expect(Set(a.ids) == ["before", "after"])
        #expect(a.host.stderr.components(separatedBy: lost).count == 2)
        #expect(!a.host.stderr.contains("cannot fetch"))
        #expect(a.host.stop() == .status(0))
    }

    @Test func aConsumerDeletedWhileTheHostRunsIsCreatedAgain() throws {
        let scratch = try Scratch()
        let server = try NatsServer(scratch)
        let a = try NatsHost("a", scratch, server: server, plugins: try scratch.probe("probe", [.data]))
        try a.waitUntilReading()
        try server.delete(consumer: "pushhost", of: "PUSHES")
        #expect(a.host.waitForStderr("error nats: cannot fetch from the consumer pushhost: Consumer Deleted"))
        #expect(eventually(timeout: .seconds(10)) {
            a.host.stderr.components(separatedBy: "info nats: created the consumer pushhost on PUSHES").count == 3
        })
        try server.publish([natsRecord("after")], to: "pushes.news")
        #expect(reportedIDs([a], count: 1) == ["after"])
        #expect(a.host.stderr.contains("info nats: fetching from the consumer pushhost again"))
        #expect(a.host.stop() == .status(0))
    }

    @Test func aHostStartedBeforeItsServerReadsOnceTheServerComes() throws {
        let scratch = try Scratch()
        let server = try NatsServer(scratch)
        server.kill()
        let a = try NatsHost("a", scratch, server: server, plugins: try scratch.probe("probe", [.data]))
        #expect(a.host.waitForStderr("warning nats: no NATS server answers at \(server.url): trying again"))
        try server.start()
        try a.waitUntilReading()
        try server.publish([natsRecord("late")], to: "pushes.news")
        #expect(reportedIDs([a], count: 1) == ["late"])
        #expect(a.host.stderr.components(separatedBy: "no NATS server answers").count == 2)
        #expect(a.host.stop() == .status(0))
    }

    /// A consumer hands out no more than its MaxAckPending before it waits
    /// for settlements (1 for a partition's), so no pull asks for more: a
    /// pull for more would wait its whole expiry for records the server
    /// holds back. Read from the server's own trace of the pull requests.
    @Test(arguments: [
        (["partitions": "2", "filter": "orders.{partition}.*"], "pushhost-", 1),
        (["max_ack_pending": "3"], "pushhost", 3),
    ])
    func noPullAsksForMoreThanTheConsumerHandsOut(settings: [String: String], consumer: String, most: Int) throws {
        let scratch = try Scratch()
        let server = try NatsServer(scratch, mappings: ["orders.*": "orders.{{partition(2,1)}}.{{wildcard(1)}}"], extra: "trace: true")
        let all = ["stream": "ORDERS", "subjects": "orders.*.*", "dead_letter": "", "batch": "16"].merging(settings) { $1 }
        let a = try NatsHost("a", scratch, server: server, settings: all, plugins: try scratch.probe("probe", [.data]))
        try a.waitUntilReading()
        try server.publish((1...20).map { #"orders.k\#($0 % 5) {"message_id":"r\#($0)"}"# })
        #expect(reportedIDs([a], count: 20).count == 20)
        // Each pull: a PUB to $JS.API.CONSUMER.MSG.NEXT.ORDERS.CONSUMER, then its
        // payload, which the server may trace a moment after the host read it.
        var pulls: [Int] = [], batches: [Int] = []
        _ = eventually(timeout: .seconds(5)) {
            let trace = scratch.read("nats/server-1.log").components(separatedBy: "\n")
            pulls = trace.indices.filter { trace[$0].contains("PUB $JS.API.CONSUMER.MSG.NEXT.ORDERS.\(consumer)") }
            batches = pulls.compactMap { index in
                trace[(index + 1)...].first { $0.contains("MSG_PAYLOAD") }?.components(separatedBy: #"\"batch\":"#).dropFirst().first
                    .flatMap { Int($0.prefix { $0.isNumber }) }
            }
            return !pulls.isEmpty && batches.count == pulls.count
        }
        #expect(!pulls.isEmpty && batches.count == pulls.count, "\(pulls.count) pulls, \(batches.count) read")
        #expect(batches.allSatisfy { $0 <= most }, "batches asked for: \(Set(batches).sorted())")
        #expect(a.host.stop() == .status(0))
    }

    @Test func partitionsKeepTheOrderOfEachKeyAcrossHosts() throws {
        let scratch = try Scratch()
        let server = try NatsServer(scratch, mappings: ["orders.*": "orders.{{partition(2,1)}}.{{wildcard(1)}}"])
        let settings = ["stream": "ORDERS", "subjects": "orders.*.*", "partitions": "2", "filter": "orders.{partition}.*",
                        "dead_letter": "", "batch": "8"]
        // Each message waits 0..9 ms for its verdict, by its number.
        let probe = try scratch.probe("probe", [.data], settings: ["verdict": "pending", "get": "data.key,data.n"])
        let a = try NatsHost("a", scratch, server: server, settings: settings, plugins: probe)
        try a.waitUntilReading()
        #expect(a.host.stderr.contains("info nats: created the consumer pushhost-0 on ORDERS"))
        #expect(a.host.stderr.contains("info nats: created the consumer pushhost-1 on ORDERS"))
        let b = try NatsHost("b", scratch, server: server, settings: settings, plugins: probe)
        try b.waitUntilReading()

        let keys = ["alice", "bob", "carol", "dave"]
        var records: [String] = []
        for n in 1...25 {
            for key in keys {
                records.append(#"orders.\#(key) {"message_id":"\#(key)-\#(n)","data":{"key":"\#(key)","n":"\#(n)","delay_ms":"\#(n * 7 % 10)"}}"#)
            }
        }
        try server.publish(records)
        #expect(reportedIDs([a, b], count: 100).count == 100)
        // The probe log is shared: per key, the numbers come in publishing order.
        var seen: [String: [Int]] = [:]
        for line in scratch.probeLines() where line.event == "data" {
            let key = line.text.components(separatedBy: "data.key=").last?.prefix { $0 != " " } ?? ""
            let n = Int(line.text.components(separatedBy: "data.n=").last?.prefix { $0 != " " } ?? "") ?? 0
            seen[String(key), default: []].append(n)
        }
        for key in keys { #expect(seen[key] == Array(1...25), "\(key): \(seen[key] ?? [])") }
        #expect(a.host.stop() == .status(0))
        #expect(b.host.stop() == .status(0))
    }
}
