import Foundation
import Testing

/// ntfy records from a source plugin (the sample fifo-source): the stream's
/// own events are handled, so the source learns `PH_DONE` for them, as for
/// a message; a record of an unknown event is rejected.
@Suite struct NtfySourceTests {
    @Test func skippedRecordsAreDoneForTheirSource() throws {
        let scratch = try Scratch()
        let fifo = scratch.file("records.fifo")
        let host = try SourcePluginTests.startHost(
            scratch, ["--plugin", Paths.sample("fifo-source"), "--set", "fifo-source.path=\(fifo)"] + scratch.probe("bg", [.background]))
        let fd = SourcePluginTests.openWhenRead(fifo, host: host)
        try #require(fd >= 0, "the FIFO was never opened for reading:\n\(host.stderr)")
        defer { close(fd) }

        let records = ndjson(
            #"{"id":"o1","time":1700000000,"event":"open","topic":"alerts"}"#,
            #"{"id":"m1","time":1700000001,"event":"message","topic":"alerts","message":"Door open"}"#,
            #"{"id":"k1","time":1700000002,"event":"keepalive","topic":"alerts"}"#,
            #"{"id":"x1","time":1700000003,"event":"subscribe","topic":"alerts"}"#)
        try #require(SourcePluginTests.write(fd, records), "cannot write to the FIFO")
        let fourth = host.waitForStderr("info fifo-source: record 4:")
        try #require(fourth, "no done for record 4:\n\(host.stderr)")

        let done = host.stderr.split(separator: "\n").filter { $0.hasPrefix("info fifo-source: record ") }
        #expect(done == ["info fifo-source: record 1: done", "info fifo-source: record 2: done",
                         "info fifo-source: record 3: done", "info fifo-source: record 4: rejected"], "\(host.stderr)")
        let report = try scratch.reportLines()
        #expect(report.map { $0["status"] as? String ?? "nil" } == ["skipped", "delivered", "skipped", "rejected"])
        #expect(report.map(SourcePluginTests.source) == (1...4).map { "plugin fifo-source \($0)" })
        #expect(report[3]["error"] as? String == #"unknown ntfy event "subscribe" (known: message, open, keepalive, poll_request)"#)
        #expect(scratch.probeCalls() == ["bg background m1"])
        #expect(host.stop() == .status(0), "\(host.stderr)")
    }
}
