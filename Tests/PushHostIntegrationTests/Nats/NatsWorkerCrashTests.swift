import Foundation
import Testing

/// The nats plugin in a worker of its own (`--isolate all`), crashed while
/// records flow: nothing is lost, and what was repeated is only what it had
/// handed to the host without seeing its done (so without an Ack), which
/// the server delivers again after `ack_wait`.
@Suite(.enabled(if: NatsPlugin.canRun, "needs nats-server and libnats-dev"))
struct NatsWorkerCrashTests {
    @Test func aCrashedWorkerLosesNothingAndRepeatsOnlyWhatWasNotAcked() throws {
        let scratch = try Scratch()
        let server = try NatsServer(scratch)
        // Each message waits 100 ms for its verdict, 4 at a time: many are under way in the host at the crash.
        let slow = try scratch.probe("slow", [.data, .background], settings: ["verdict": "pending", "delay_ms": "100"])
        let a = try NatsHost("a", scratch, server: server, settings: ["ack_wait": "1", "batch": "4"], plugins: slow,
                             options: ["--max-pending", "4"], isolated: true)
        try a.waitUntilReading()
        let first = try #require(TransportWorker.find(a.host, plugin: try NatsPlugin.path()), "\(a.host.stderr)")

        let before = (1...40).map { "r\($0)" }
        try server.publish(before.map { natsRecord($0) }, to: "pushes.news")
        try #require(eventually(timeout: .seconds(20)) { a.report.count >= 8 }, "\(a.host.stderr)")
        let crash = TransportWorker.crash(first, of: a.host, plugin: "nats")
        #expect(crash?.hasPrefix("error pushhost: plugin nats crashed between calls: SIGSEGV; restarting its worker in 0.1s") == true,
                "\(a.host.stderr)")
        // A new worker, whose source was started again: it connects and reads the stream again.
        let second = TransportWorker.find(a.host, plugin: try NatsPlugin.path(), replacing: first)
        #expect(second != nil, "\(a.host.stderr)")
        #expect(eventually(timeout: .seconds(20)) { a.host.stderr.components(separatedBy: "info nats: reading the stream PUSHES").count == 3 },
                "\(a.host.stderr)")
        let after = (41...50).map { "r\($0)" }
        try server.publish(after.map { natsRecord($0) }, to: "pushes.news")

        // Every record handled, and settled on the server at last.
        let settled = eventually(timeout: .seconds(30)) {
            Set(a.ids).isSuperset(of: before + after) && (try? server.state(of: "PUSHES"))?["messages"] == 0
        }
        try #require(settled, "reported \(Set(a.ids).count) of 50:\n\(a.host.stderr)")
        #expect(a.host.stop() == .status(0), "\(a.host.stderr)")

        var times: [String: Int] = [:]
        for id in a.ids { times[id, default: 0] += 1 }
        let repeated = times.filter { $0.value > 1 }.keys.sorted()
        // Nothing lost, and nothing handled more than once more.
        #expect(Set(times.keys) == Set(before + after))
        #expect(times.values.allSatisfy { $0 <= 2 }, "\(times)")
        #expect(a.report.allSatisfy { $0["status"] as? String == "delivered" })
        // What was repeated was under way at the crash: none of the records published after it.
        #expect(!repeated.isEmpty, "nothing was under way at the crash")
        #expect(Set(repeated).isSubset(of: before), "\(repeated)")
        // At most what the host held (4), the results crossing back to the
        // worker and the Acks it had not sent yet: a few, never all.
        #expect(repeated.count <= 16, "\(repeated)")
        // The server delivered those again (after ack_wait), and what the
        // worker had fetched and not handed over (handled once).
        let delivered = try server.state(of: "PUSHES")["delivered"] ?? 0
        #expect(delivered >= 50 + repeated.count && delivered <= 50 + repeated.count + 4 + 1, "delivered \(delivered), repeated \(repeated)")
        #expect(scratch.probeCalls().filter { $0.hasPrefix("slow data ") }.count == a.ids.count)
    }
}
