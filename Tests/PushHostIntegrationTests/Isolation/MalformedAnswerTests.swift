import Foundation
import Testing

/// Issue 30, item 6: an isolated plugin must never crash the host. A
/// plugin that writes garbage into its worker's channel to the host (its
/// socket, its answer ring's positions, frames that say 4 GiB, answers to
/// calls never made) costs the message under way, which fails with
/// `plugin NAME sent a malformed answer: ...`; its worker is restarted as
/// after a crash, the messages before and after are delivered, and the
/// host exits 0.
@Suite struct MalformedAnswerTests {
    struct Case: Sendable, CustomTestStringConvertible {
        let fault: String
        /// What the error says was wrong, in part.
        let wrong: String
        var testDescription: String { fault }
    }

    static let cases = [
        // The garbage goes to its socket and to its intake channel: the host reads one of them first.
        Case(fault: "scribble", wrong: "on its "),
        Case(fault: "intake-kind", wrong: "on its intake channel, a frame of the unknown kind 200"),
        Case(fault: "intake-huge", wrong: "on its intake channel, a frame of 4294967284 bytes, more than the 67108884 it may have"),
        Case(fault: "socket-frame", wrong: "the byte 240 on its socket, where only wake-ups (1) go"),
        Case(fault: "ring-head", wrong: "its ring's write position is 2097152 bytes past the host's read position, more than the ring's 1048576"),
        Case(fault: "ring-frame", wrong: "a frame cut short: 20 bytes where it says 4294967284"),
        Case(fault: "ring-field", wrong: "a returned frame whose problem says 4294967280 bytes, where 4 follow"),
        Case(fault: "ring-call", wrong: "an answer to call 999999, which was never made"),
        Case(fault: "ring-returned", wrong: "a return from call 999999, which was never made"),
        Case(fault: "ring-returned-back", wrong: "a last returned call 0, before call 1, which it said it returned from"),
        Case(fault: "ring-complete", wrong: "a verdict for call 999999, which is not waiting for one"),
    ]

    /// m2 carries the fault, as in the crash and hang cases.
    static let input = IsolatedFaultTests.input

    @Test(arguments: cases)
    func aMalformedAnswerFailsOnlyItsMessage(_ attack: Case) throws {
        let scratch = try Scratch()
        let run = try scratch.runHost(
            try scratch.worker([.data, .background]) + ["--isolate", "worker"],
            stdin: Self.input.replacingOccurrences(of: "FAULT", with: attack.fault))
        #expect(run.exit == .status(0), "\(run.stderr)")
        #expect(run.ids == ["m1", "m2", "m3", "m4"], "\(run.stderr)")
        #expect(run.statuses == ["delivered", "failed", "delivered", "delivered"], "\(run.report)\n\(run.stderr)")
        let failed = try #require(run.line("m2"))
        let error = try #require(failed["error"] as? String, "\(failed)")
        #expect(error.hasPrefix("plugin worker sent a malformed answer: ") && error.contains(attack.wrong), "\(error)")
        #expect(failed["data"] as? [[String: String]] == [["plugin": "worker", "verdict": "failed"]])
        #expect(run.stderrLines.contains {
            $0.contains("error pushhost: plugin worker sent a malformed answer: ") && $0.contains(attack.wrong)
                && $0.contains("restarting its worker in 0.1s (crash 1 of --worker-crash-limit 5")
        }, "\(run.stderr)")
        for id in ["m1", "m3", "m4"] {
            #expect(run.line(id)?["ui"] as? [String] == ["worker"], "\(id)")
        }
        // The attacked worker may serve a few calls more before it is killed
        // (what it answers then is not taken); m2 is not called again, and
        // m3 and m4 are delivered by the worker started after it.
        let workers = scratch.workerLines().byProcess
        try #require(workers.count == 2, "one worker before the attack, one after: \(workers)")
        #expect(workers.allSatisfy { $0.pid != run.pid }, "host \(run.pid): \(workers)")
        #expect(workers[0].lines.prefix(3).map(\.call) == ["create", "on_data m1", "on_data m2"], "\(workers[0].lines)")
        #expect(!workers[0].lines.contains { $0.kind == "destroy" }, "\(workers[0].lines)")
        #expect(workers[1].lines.first?.kind == "create")
        #expect(workers[1].lines.filter(\.isCall).map(\.call).filter { !$0.hasSuffix(" m1") }
            == ["on_data m3", "on_data m4", "on_background m3", "on_background m4"], "\(workers[1].lines)")
        #expect(workers[1].lines.last?.text == "destroy \(workers[1].pid)")
        #expect(scratch.workerCalls().filter { $0.call == "on_data m2" }.count == 1)
    }

    /// The issue's reproduction as it was: on_data scribbles on descriptors
    /// 3 to 7 and returns, and its worker goes on answering until the host
    /// notices. The host cannot tell which call wrote the garbage: the call
    /// under way then fails (or none, when all were answered), the answers
    /// given before it count, and every message gets its line.
    @Test func aWorkerThatGoesOnAfterItsGarbageCostsOneCallAtMost() throws {
        let scratch = try Scratch()
        let run = try scratch.runHost(
            try scratch.worker([.data, .background]) + ["--isolate", "worker"],
            stdin: Self.input.replacingOccurrences(of: #""fault":"FAULT""#, with: #""fault":"scribble","after":"return""#))
        #expect(run.exit == .status(0), "\(run.stderr)")
        #expect(run.ids == ["m1", "m2", "m3", "m4"], "\(run.stderr)")
        let failed = run.report.filter { $0["status"] as? String == "failed" }
        #expect(failed.count <= 1, "\(run.report)")
        #expect(run.report.count - failed.count == run.statuses.filter { $0 == "delivered" }.count, "\(run.report)")
        // The garbage reaches its socket and its intake channel: the host reads one of them first.
        let found = ["plugin worker sent a malformed answer: the byte ", "plugin worker sent a malformed answer: on its intake channel, "]
        for line in failed {
            let error = line["error"] as? String ?? ""
            #expect(found.contains { error.hasPrefix($0) }, "\(line)")
        }
        #expect(run.stderrLines.contains { line in found.contains { line.contains("error pushhost: " + $0) } }, "\(run.stderr)")
        #expect(scratch.workerCalls().filter { $0.call == "on_data m2" }.count == 1)
    }

    /// A worker that keeps sending garbage is a plugin that keeps crashing:
    /// disabled past `--worker-crash-limit`, its later messages failing
    /// with the reason, and the host still exits 0 with a line for each.
    @Test func aWorkerThatKeepsSendingGarbageIsDisabled() throws {
        let scratch = try Scratch()
        let run = try scratch.runHost(
            try scratch.worker([.data, .background]) + ["--isolate", "worker", "--worker-crash-limit", "2"],
            stdin: ndjson(messages("m", 5, data: #""fault":"scribble""#)))
        #expect(run.exit == .status(0), "\(run.stderr)")
        #expect(run.ids == ["m01", "m02", "m03", "m04", "m05"], "\(run.stderr)")
        #expect(run.statuses.allSatisfy { $0 == "failed" }, "\(run.report)")
        let errors = run.report.compactMap { $0["error"] as? String }
        #expect(errors.prefix(3).allSatisfy { $0.hasPrefix("plugin worker sent a malformed answer: ") }, "\(errors)")
        #expect(errors.dropFirst(3).allSatisfy { $0.hasPrefix("plugin worker is disabled") }, "\(errors)")
        #expect(run.stderrLines.contains { $0.contains("plugin worker disabled: its worker crashed 3 times") }, "\(run.stderr)")
    }

    /// Garbage in place of the worker's first frame refuses the plugin at
    /// the start, with the reason; the host goes on with the others.
    @Test func garbageBeforeTheFirstFrameRefusesThePlugin() throws {
        let scratch = try Scratch()
        let plugins = try scratch.worker("worker", [.background], settings: ["create_fault": "garbage"])
            + scratch.worker("inhost", [.background])
        let run = try scratch.runHost(
            plugins + ["--isolate", "worker", "--skip-bad-plugins"], stdin: ndjson(messages("m", 2)))
        #expect(run.exit == .status(0), "\(run.stderr)")
        #expect(run.stderrLines.contains {
            $0.contains("worker.so") && $0.contains("its worker sent a malformed answer: a frame of the unknown kind 97")
        }, "\(run.stderr)")
        #expect(run.statuses == ["delivered", "delivered"], "\(run.report)")
        #expect(run.line("m01")?["ui"] as? [String] == ["inhost"])
    }
}
