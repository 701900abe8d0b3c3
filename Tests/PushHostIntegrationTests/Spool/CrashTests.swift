import Foundation
import Testing

/// A host killed with SIGKILL at any moment loses no file: what it had not
/// moved stays in new/ and is handled at the next start (at least once).
@Suite struct CrashTests {
    @Test func killDuringABurstThenRestartHandlesEveryFile() throws {
        let scratch = try Scratch()
        let spool = scratch.spool
        let data = try scratch.probe("d", [.data], settings: ["verdict": "pending", "delay_ms": "4"])
        let background = try scratch.probe("bg", [.background])
        let burst = (0..<500).map { String(format: "crash-%03d", $0) }

        // First run: one message at a time, each pending 4 ms, so the burst
        // takes 2 s at least and the kill lands in the middle of it.
        let first = try scratch.startWatching(
            data + background + ["--max-pending", "1"], report: "report1.ndjson", errors: "stderr1.log")
        try spool.dropMany(burst) { #"{"data":{"n":"\#($0)"}}"# }
        let underWay = eventually(timeout: .seconds(30)) { spool.count("cur") >= 100 }
        try #require(underWay, "\(first.stderr)")
        first.send(SIGKILL)
        let killed = first.waitForExit()
        #expect(killed == .signal(SIGKILL), "\(first.stderr)")
        let leftAfterKill = Set(spool.names("new"))
        let movedBeforeKill = Set(spool.names("cur"))
        #expect(!leftAfterKill.isEmpty, "the kill came after every file was handled")
        let inBoth = leftAfterKill.intersection(movedBeforeKill)
        let inNeither = Set(burst).subtracting(leftAfterKill).subtracting(movedBeforeKill)
        #expect(inBoth.isEmpty, "in new/ and cur/: \(inBoth.sorted().prefix(5))")
        #expect(inNeither.isEmpty, "in neither new/ nor cur/: \(inNeither.sorted().prefix(5))")
        #expect(spool.names("failed").isEmpty)

        // Second run on the same spool and state, without the throttle.
        let second = try scratch.startWatching(data + background, report: "report2.ndjson", errors: "stderr2.log")
        let drained = eventually(timeout: .seconds(30)) {
            spool.count("new") == 0 && spool.count("cur") + spool.failedFiles.count == burst.count
        }
        try #require(drained, "new/ still holds \(spool.count("new"))\n\(second.stderr)")
        let exit = second.stop()
        #expect(exit == .status(0), "\(second.stderr)")

        let cur = spool.names("cur"), failed = spool.failedFiles
        let bothEnds = Set(cur).intersection(failed)
        let lost = Set(burst).subtracting(cur).subtracting(failed)
        #expect(bothEnds.isEmpty, "in cur/ and failed/: \(bothEnds.sorted().prefix(5))")
        #expect(lost.isEmpty, "in neither cur/ nor failed/: \(lost.sorted().prefix(5))")
        #expect(cur.count + failed.count == burst.count)
        #expect(failed.isEmpty, "\(failed)")
        #expect(spool.names("new").isEmpty)
        #expect(spool.names("tmp").isEmpty)
        // Every message was seen by both plugins over the two runs.
        let lines = scratch.probeLines()
        for event in ["data", "background"] {
            let unseen = Set(burst).subtracting(lines.filter { $0.event == event }.map(\.id))
            #expect(unseen.isEmpty, "\(unseen.count) never seen by \(event), e.g. \(unseen.sorted().prefix(5))")
        }
        // The second run handled exactly what the kill left in new/, once each.
        let report = try scratch.reportLines("report2.ndjson")
        let secondRun = report.compactMap(\.sourceFile)
        #expect(secondRun.count == leftAfterKill.count)
        let sameFiles = Set(secondRun) == leftAfterKill
        #expect(sameFiles, "the second run handled other files than those the kill left in new/")
        #expect(report.allSatisfy { $0["status"] as? String == "delivered" })
        // What the first run had moved, it had reported before moving.
        let firstReport = Set(try scratch.reportLines("report1.ndjson", lenient: true).compactMap(\.sourceFile))
        let unreported = movedBeforeKill.subtracting(firstReport)
        #expect(unreported.isEmpty, "\(unreported.count) moved without a report line, e.g. \(unreported.sorted().prefix(5))")
    }
}
