import Foundation
import Testing

/// A worker that dies between two calls loses neither: a call the host
/// had sent and the worker never began (it notes each call it begins)
/// goes to the next worker, and no message fails for a crash it did not meet.
@Suite struct UnbegunCallTests {
    /// The host is stopped while its worker dies and the next message
    /// arrives, so that the host may send the call to the dead worker
    /// before it learns of the death.
    @Test func aCallTheDeadWorkerNeverBeganGoesToTheNext() throws {
        let scratch = try Scratch()
        let plugin = try scratch.worker([.background])
        let input = Pipe()
        let host = try HostProcess(
            ["run", "--state", scratch.file("state"), "--report", scratch.file("report.ndjson"), "--isolate", "all"] + plugin,
            errorPath: scratch.file("stderr.log"), input: input)
        func send(_ id: String) {
            input.fileHandleForWriting.write(Data((#"{"message_id":"\#(id)","data":{}}"# + "\n").utf8))
        }
        send("m1")
        try #require(eventually(timeout: .seconds(20)) { (try? scratch.reportLines().count) == 1 }, "\(host.stderr)")
        let worker = try #require(TransportWorker.find(host, plugin: plugin[1]), "\(host.stderr)")

        func state(_ pid: pid_t) -> String {
            (try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8)) ?? ""
        }
        host.send(SIGSTOP)
        let stopped = eventually(timeout: .seconds(20)) { state(host.pid).contains(") T ") }
        kill(worker, SIGSEGV)
        // Dead, and not yet reaped by the host, which is stopped (a walled worker's first process reaps it, and ends).
        let dead = stopped && eventually(timeout: .seconds(20)) { state(worker).isEmpty || state(worker).contains(") Z ") }
        send("m2")
        host.send(SIGCONT)
        try #require(dead, "the worker did not die")
        try input.fileHandleForWriting.close()
        #expect(host.waitForExit() == .status(0), "\(host.stderr)")

        let report = try scratch.reportLines()
        #expect(report.map { $0["status"] as? String } == ["delivered", "delivered"], "\(report)\n\(host.stderr)")
        #expect(host.stderr.contains("error pushhost: plugin worker crashed between calls: SIGSEGV; restarting its worker"), "\(host.stderr)")
        let workers = scratch.workerLines().byProcess
        #expect(workers.map { $0.lines.filter(\.isCall).map(\.call) } == [["on_background m1"], ["on_background m2"]], "\(workers)")
    }
}
