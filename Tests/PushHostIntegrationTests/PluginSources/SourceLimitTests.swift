import Foundation
import Testing

/// A source submits no more than the host can start (`--max-pending`), and
/// a stop starts nothing more: what the host had not begun goes back to
/// the source at once, with no report line.
@Suite struct SourceLimitTests {
    /// The number after `prefix` on the first of `lines` that has it.
    static func number(after prefix: String, in lines: [String]) -> Int? {
        lines.first { $0.hasPrefix(prefix) }.flatMap { Int($0.dropFirst(prefix.count)) }
    }

    /// 200 records whose data stage takes 100 ms each, 8 at a time: the
    /// source never has more than 8 out, waiting in submit; and, asking
    /// not to wait, it hears "full" instead.
    @Test(arguments: ["wait", "no-wait"], [false, true])
    func aSourceHasNoMoreOutThanMaxPending(_ mode: String, isolated: Bool) throws {
        let scratch = try Scratch()
        let count = 200
        var settings = ["count": "\(count)"]
        if mode == "no-wait" { settings["flags"] = "2" }
        let host = try SourcePluginTests.startHost(
            scratch,
            try SourcePluginTests.burst(scratch, settings)
                + scratch.probe("d", [.data], settings: ["verdict": "pending", "delay_ms": "100"])
                + scratch.probe("bg", [.background])
                + ["--max-pending", "8"], isolated: isolated)
        // Every record done: the last ones submitted may still wait in the host when submit returns.
        eventually(timeout: .seconds(60)) {
            let lines = SourcePluginTests.burstLines(scratch)
            return (lines.contains("submitted all") && lines.filter { $0.hasPrefix("done ") }.count == count)
                || host.waitForExit(timeout: .zero) != nil
        }
        let exit = host.stop(timeout: .seconds(30))
        #expect(exit == .status(0), "\(host.stderr)")
        let lines = SourcePluginTests.burstLines(scratch)
        let most = try #require(Self.number(after: "most outstanding ", in: lines), "\(lines.suffix(5))")
        // The 8 the host holds, and the one waiting in submit (counted before the call).
        // In a worker, a record's done crosses back a moment after the host made room
        // for the next, so the source may count a few more not yet done (never 200).
        #expect(most <= (isolated ? 9 + 8 : 9) && most >= 2, "most outstanding: \(most)")
        if mode == "no-wait" {
            #expect((Self.number(after: "full ", in: lines) ?? 0) > 0, "\(lines.suffix(5))")
        }
        let report = try scratch.reportLines()
        #expect(report.count == count)
        #expect(report.allSatisfy { $0["status"] as? String == "delivered" })
    }

    /// SIGTERM while records wait for the host: the records it began get
    /// their line and their done; the others come back at once (retry, no
    /// report line) and never reach a data plugin; the host exits 0.
    @Test(arguments: [false, true]) func aStopStartsNothingMore(isolated: Bool) throws {
        let scratch = try Scratch()
        let host = try SourcePluginTests.startHost(
            scratch,
            try SourcePluginTests.burst(scratch, [:])
                + scratch.probe("d", [.data], settings: ["verdict": "pending", "delay_ms": "300"])
                + scratch.probe("bg", [.background])
                + ["--max-pending", "8", "--stop-timeout", "2"], isolated: isolated)
        let flowing = eventually(timeout: .seconds(20)) {
            SourcePluginTests.burstLines(scratch).contains("done 16 done ok") || host.waitForExit(timeout: .zero) != nil
        }
        try #require(flowing, "\(host.stderr)")
        let exit = host.stop(timeout: .seconds(30))
        #expect(exit == .status(0), "\(host.stderr)")

        let lines = SourcePluginTests.burstLines(scratch)
        let accepted = try #require(Self.number(after: "accepted ", in: lines), "\(lines.suffix(5))")
        let done = lines.filter { $0.hasPrefix("done ") }
        #expect(done.count == accepted, "every accepted record has one done: \(done.count) of \(accepted)")
        let handled = Set(done.filter { $0.hasSuffix(" done ok") }.map { "b-" + $0.split(separator: " ")[1] })
        let givenBack = done.filter { $0.hasSuffix(" retry other") }
        #expect(done.allSatisfy { $0.hasSuffix(" done ok") || $0.hasSuffix(" retry other") }, "\(done)")
        // Nothing waited in the host beyond --max-pending, so little came back.
        #expect(givenBack.count <= 8, "\(givenBack)")
        let report = try scratch.reportLines()
        #expect(Set(report.compactMap { $0["id"] as? String }) == handled)
        // Each record a data plugin saw was begun before the stop, and has its line.
        let begun = scratch.probeCalls().filter { $0.hasPrefix("d data ") }.map { String($0.dropFirst("d data ".count)) }
        #expect(Set(begun) == handled, "begun without a line: \(Set(begun).subtracting(handled).sorted())")
        #expect(!host.stderr.contains("is still in"), "\(host.stderr)")
    }

    /// A background plugin whose every call takes 2 ms.
    static let slow = PluginSource.descriptor(
        #".name = "slow", .on_background = on_background"#,
        prelude: """
            #include <threads.h>
            static void on_background(void *self, const ph_message *m) {
                (void)self; (void)m;
                thrd_sleep(&(struct timespec){.tv_nsec = 2000000}, NULL);
            }
            """)

    /// SIGTERM while a flood of submissions waits, each record's UI call
    /// taking 2 ms and --max-pending 1024: the host stops taking between
    /// two records, not after the 1024 it could take in one turn (2 s,
    /// past --stop-timeout 1, which the watchdog took for a hung handler).
    @Test func aStopEndsABurstBetweenTwoRecords() throws {
        let scratch = try Scratch()
        let host = try SourcePluginTests.startHost(
            scratch,
            try SourcePluginTests.burst(scratch, [:]) + ["--plugin", try scratch.plugin("slow.so", Self.slow), "--stop-timeout", "1"])
        let flowing = eventually(timeout: .seconds(20)) {
            SourcePluginTests.burstLines(scratch).contains("done 200 done ok") || host.waitForExit(timeout: .zero) != nil
        }
        try #require(flowing, "\(host.stderr)")
        let exit = host.stop(timeout: .seconds(30))
        #expect(exit == .status(0), "\(host.stderr)")
        #expect(!host.stderr.contains("is still in"), "\(host.stderr)")
        let lines = SourcePluginTests.burstLines(scratch)
        let accepted = try #require(Self.number(after: "accepted ", in: lines), "\(lines.suffix(5))")
        #expect(lines.filter { $0.hasPrefix("done ") }.count == accepted)
    }

    /// A record a source submits that is longer than `--max-bytes` is
    /// rejected as such a line of standard input is (the source learns
    /// `rejected`), and the host goes on with the next; in a worker too.
    @Test(arguments: [false, true]) func aRecordLongerThanMaxBytesIsRejected(isolated: Bool) throws {
        let scratch = try Scratch()
        let (fifo, fifoSource) = try SourcePluginTests.fifoSource(scratch)
        let host = try SourcePluginTests.startHost(
            scratch, fifoSource + scratch.probe("bg", [.background]) + ["--max-bytes", "1000"], isolated: isolated)
        let fd = SourcePluginTests.openWhenRead(fifo, host: host)
        try #require(fd >= 0, "the FIFO was never opened for reading:\n\(host.stderr)")
        defer { close(fd) }
        let long = #"{"message_id":"big","data":{"pad":"\#(String(repeating: "y", count: 5000))"}}"#
        try #require(SourcePluginTests.write(fd, ndjson(long, #"{"message_id":"small","data":{"n":"1"}}"#)), "cannot write to the FIFO")
        let second = host.waitForStderr("info fifo-source: record 2:")
        try #require(second, "no done for record 2:\n\(host.stderr)")
        #expect(host.stop() == .status(0), "\(host.stderr)")

        let report = try scratch.reportLines()
        #expect(report.map { $0["status"] as? String } == ["rejected", "delivered"])
        #expect(report.first?["error"] as? String == "byte 1000: longer than --max-bytes 1000", "\(report)")
        #expect(host.stderr.contains("info fifo-source: record 1: rejected"), "\(host.stderr)")
        #expect(scratch.probeCalls() == ["bg background small"])
    }
}
