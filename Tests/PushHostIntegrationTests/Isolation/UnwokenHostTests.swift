import Foundation
import Testing

/// A worker that answers without the wake-up it owes the host cannot hold a
/// record, or the handler's deadline, off: its watcher wakes the host for
/// answers it finds waiting. The worker says its call returned (by the last
/// returned call) while the host sleeps on an open standard input, without
/// waking it, and hangs in it.
@Suite struct UnwokenHostTests {
    @Test func answersWrittenWithoutAWakeUpAreTakenAndAHangComesToItsDeadline() throws {
        let scratch = try Scratch()
        let input = Pipe()
        let host = try HostProcess(
            ["run", "--state", scratch.file("state"), "--report", scratch.file("report.ndjson"), "--isolate", "all",
             "--handler-timeout", "1", "--data-timeout", "60"] + scratch.worker("sneak", [.data]),
            errorPath: scratch.file("stderr"), input: input)
        input.fileHandleForWriting.write(Data((#"{"message_id":"m1","data":{"fault":"ring-sneak"}}"# + "\n").utf8))
        // Taken at the watcher's next look (100 ms), not never.
        let taken = eventually(timeout: .seconds(5)) { ((try? scratch.reportLines(lenient: true)) ?? []).count == 1 }
        #expect(taken, "m1 was never reported: \(host.stderr)")
        // The worker hangs: the next call meets --handler-timeout, and is
        // made again (it never began) in the worker started after it.
        input.fileHandleForWriting.write(Data((#"{"message_id":"m2","data":{}}"# + "\n").utf8))
        let failed = eventually(timeout: .seconds(10)) { ((try? scratch.reportLines(lenient: true)) ?? []).count == 2 }
        #expect(failed, "m2 was never reported: \(host.stderr)")
        try input.fileHandleForWriting.close()
        #expect(host.waitForExit(timeout: .seconds(20)) == .status(0), "\(host.stderr)")
        let lines = try scratch.reportLines()
        #expect(lines.map { $0["id"] as? String } == ["m1", "m2"])
        #expect(lines.map { $0["data"] as? [[String: String]] } == Array(repeating: [["plugin": "sneak", "verdict": "continue"]], count: 2), "\(lines)")
        #expect(host.stderr.contains("error pushhost: plugin sneak was killed after --handler-timeout 1.0s"), "\(host.stderr)")
    }
}
