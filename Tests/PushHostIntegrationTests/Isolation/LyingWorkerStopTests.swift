import Foundation
import Testing

/// A worker cannot escape a stop's deadline by lying in its answer ring:
/// three isolated data plugins each say, in their rings, that their call
/// returned (by a frame, or by the last returned call), and hang in it. At SIGTERM the host asks every worker to
/// destroy its plugin at once and kills each one still alive at the stop's
/// deadline, whatever its ring claims: the stop takes `--stop-timeout`,
/// not once a worker.
@Suite struct LyingWorkerStopTests {
    @Test(arguments: ["ring-lie", "ring-quiet-lie"])
    func everyLyingWorkerIsKilledAtTheStopsDeadline(_ lie: String) throws {
        let scratch = try Scratch()
        let names = ["liar1", "liar2", "liar3"]
        var plugins: [String] = []
        for name in names { plugins += try scratch.worker(name, [.data]) }
        let input = Pipe()
        let host = try HostProcess(
            ["run", "--state", scratch.file("state"), "--report", scratch.file("report.ndjson"), "--isolate", "all",
             "--stop-timeout", "1", "--handler-timeout", "60", "--data-timeout", "60"] + plugins,
            errorPath: scratch.file("stderr"), input: input)
        input.fileHandleForWriting.write(Data((#"{"message_id":"m1","data":{"fault":"\#(lie)"}}"# + "\n").utf8))
        let lied = eventually(timeout: .seconds(20)) { names.allSatisfy { scratch.workerCalls($0).count == 1 } }
        try #require(lied, "\(host.stderr)")
        // Their lies taken: the host believes every call returned.
        usleep(300_000)
        let stopped = ContinuousClock.now
        host.send(SIGTERM)
        let exit = host.waitForExit(timeout: .seconds(30))
        let took = ContinuousClock.now - stopped
        // Each was given up at the stop: status 4, as for a plugin in the host.
        #expect(exit == .status(4), "\(host.stderr)")
        // One deadline for all three (1 s and the kills), not 1 s after each.
        #expect(took < .milliseconds(2500), "the stop took \(took): \(host.stderr)")
        for name in names {
            #expect(host.stderr.contains("error pushhost: plugin \(name): its worker did not end by the stop's deadline"), "\(host.stderr)")
        }
    }
}
