import Foundation
import Testing

/// SIGTERM or SIGINT: the host takes no new file, finishes the ones under
/// way (pending data stages included), calls destroy, and exits 0.
@Suite struct ShutdownTests {
    /// A data probe `d` that answers pending after `delay` ms, and a background probe `bg`.
    static func plugins(_ scratch: Scratch, delay: Int) throws -> [String] {
        try scratch.probe("d", [.data], settings: ["verdict": "pending", "delay_ms": "\(delay)"])
            + scratch.probe("bg", [.background])
    }

    @Test(arguments: [SIGTERM, SIGINT])
    func signalDuringABurstLeavesNoFileHalfHandled(_ signal: Int32) throws {
        let scratch = try Scratch()
        let spool = scratch.spool
        // One message at a time, each pending 5 ms: the burst takes 1.5 s at least.
        let host = try scratch.startWatching(try Self.plugins(scratch, delay: 5) + ["--max-pending", "1"])
        let burst = (0..<300).map { String(format: "burst-%03d", $0) }
        try spool.dropMany(burst) { #"{"data":{"n":"\#($0)"}}"# }
        let started = eventually(timeout: .seconds(20)) { spool.count("cur") >= 20 }
        try #require(started, "\(host.stderr)")
        host.send(signal)
        let exit = host.waitForExit()
        #expect(exit == .status(0), "\(host.stderr)")
        #expect(host.stderr.contains("stopping"), "\(host.stderr)")

        let lines = scratch.probeLines()
        #expect(lines.filter { $0.event == "destroy" }.map(\.name).sorted() == ["bg", "d"])
        let new = Set(spool.names("new")), cur = Set(spool.names("cur"))
        let inBoth = new.intersection(cur), inNeither = Set(burst).subtracting(new).subtracting(cur)
        #expect(inBoth.isEmpty, "in new/ and cur/: \(inBoth.sorted().prefix(5))")
        #expect(inNeither.isEmpty, "in neither new/ nor cur/: \(inNeither.sorted().prefix(5))")
        #expect(spool.names("failed").isEmpty)
        #expect(spool.names("tmp").isEmpty)
        // The signal came during the burst: the rest was never started.
        #expect(!new.isEmpty, "every file was handled before the signal")
        // What was started was finished: every message the data plugin saw
        // completed, was delivered, reported, and its file moved.
        let dataIds = Set(lines.filter { $0.event == "data" }.map(\.id))
        #expect(dataIds == cur)
        #expect(Set(lines.filter { $0.event == "complete" }.map(\.id)) == cur)
        #expect(Set(lines.filter { $0.event == "background" }.map(\.id)) == cur)
        let report = try scratch.reportLines()
        #expect(report.count == cur.count)
        #expect(Set(report.compactMap(\.sourceFile)) == cur)
        #expect(report.allSatisfy { $0["status"] as? String == "delivered" })
        // destroy comes last, after every handler call.
        #expect(lines.suffix(2).allSatisfy { $0.event == "destroy" }, "\(lines.suffix(3))")
    }

    @Test func pendingDataStageCompletesAfterSIGTERM() throws {
        let scratch = try Scratch()
        let spool = scratch.spool
        let host = try scratch.startWatching(try Self.plugins(scratch, delay: 1000))
        try spool.drop("slow.json", #"{"data":{"k":"v"}}"#)
        let pending = eventually(timeout: .seconds(20)) {
            scratch.probeCalls().contains("d data slow.json")
        }
        try #require(pending, "\(host.stderr)")
        host.send(SIGTERM)
        // The signal went out before the answer: the message was still pending.
        #expect(!scratch.probeCalls().contains("d complete slow.json"))
        #expect(spool.names("new") == ["slow.json"])
        let exit = host.waitForExit()
        #expect(exit == .status(0), "\(host.stderr)")
        #expect(scratch.probeCalls() == ["d data slow.json", "d complete slow.json", "bg background slow.json"])
        #expect(scratch.probeLines().filter { $0.event == "destroy" }.count == 2)
        #expect(spool.names("cur") == ["slow.json"])
        #expect(spool.names("new").isEmpty)
        let report = try scratch.reportLines()
        #expect(report.count == 1)
        #expect(report.first?["status"] as? String == "delivered")
        #expect(report.first?["data"] as? [[String: String]] == [["plugin": "d", "verdict": "continue"]])
    }

    /// Files that arrive after the signal are not taken.
    @Test func nothingNewIsTakenAfterTheSignal() throws {
        let scratch = try Scratch()
        let spool = scratch.spool
        let host = try scratch.startWatching(try Self.plugins(scratch, delay: 800))
        try spool.drop("first", #"{"data":{}}"#)
        let pending = eventually(timeout: .seconds(20)) { scratch.probeCalls().contains("d data first") }
        try #require(pending, "\(host.stderr)")
        host.send(SIGTERM)
        let stopping = host.waitForStderr("stopping")
        #expect(stopping, "\(host.stderr)")
        try spool.drop("late", #"{"data":{}}"#)
        let exit = host.waitForExit()
        #expect(exit == .status(0), "\(host.stderr)")
        #expect(spool.names("cur") == ["first"])
        #expect(spool.names("new") == ["late"])
        #expect(!scratch.probeCalls().contains { $0.hasSuffix(" late") })
    }
}
