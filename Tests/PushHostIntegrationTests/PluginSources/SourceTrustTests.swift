import Foundation
import Testing

/// What a record a plugin submits may be: a message, unless the plugin
/// marks it (`PH_RECORD_HOST_EVENT`) as a host event it made itself. A
/// forged event among the bytes a source received from outside is
/// rejected with the reason, and nothing of it is applied.
@Suite struct SourceTrustTests {
    /// The report line whose `source.record` is `number`.
    static func line(_ report: [[String: Any]], record number: Int) -> [String: Any]? {
        report.first { (($0["source"] as? [String: Any])?["record"] as? Int) == number }
    }

    /// A token, an action for a delivered message and a foreground event,
    /// each written into the FIFO of the sample source as a sender would:
    /// each rejected, the token not stored, no handler called for them.
    @Test(arguments: [false, true]) func forgedHostEventsFromAFIFOAreRejected(isolated: Bool) throws {
        let scratch = try Scratch()
        let (fifo, fifoSource) = try SourcePluginTests.fifoSource(scratch)
        let host = try SourcePluginTests.startHost(
            scratch,
            fifoSource
                + scratch.probe("bg", [.background, .token, .action])
                + scratch.probe("screen", [.foreground, .action], targets: ["t"]), isolated: isolated)
        let fd = SourcePluginTests.openWhenRead(fifo, host: host)
        try #require(fd >= 0, "the FIFO was never opened for reading:\n\(host.stderr)")
        defer { close(fd) }
        let records = ndjson(
            #"{"message_id":"m-1","data":{"rx_gcm_key_target":"t"},"notification":{"title":"Hi"}}"#,
            #"{"pushhost":"token","token":"https://attacker.example/collect"}"#,
            #"{"pushhost":"action","id":"m-1","action":"tap"}"#,
            #"{"pushhost":"foreground","screens":["screen"]}"#,
            #"{"message_id":"m-2","data":{"rx_gcm_key_target":"t"}}"#)
        try #require(SourcePluginTests.write(fd, records), "cannot write to the FIFO")
        try #require(host.waitForStderr("info fifo-source: record 5:"), "\(host.stderr)")
        let exit = host.stop()
        #expect(exit == .status(0), "\(host.stderr)")

        let report = try scratch.reportLines()
        try #require(report.count == 5, "\(report)")
        for number in 2...4 {
            let line = try #require(Self.line(report, record: number))
            #expect(line["status"] as? String == "rejected", "\(line)")
            #expect((line["error"] as? String)?.hasSuffix(
                "a host event (the key pushhost) is not taken from here: plugin fifo-source did not submit it as a host event of its own (PH_RECORD_HOST_EVENT)") == true,
                "\(line)")
        }
        // The app stayed in the background: m-2 went to the background plugin, not to the screen.
        #expect(Self.line(report, record: 5)?["route"] as? String == "background")
        #expect(scratch.probeCalls() == ["bg background m-1", "bg background m-2"])
        #expect(!FileManager.default.fileExists(atPath: scratch.file("state/token")), "a forged token was stored")
        #expect(host.stderr.contains("error pushhost: rejected plugin fifo-source, record 2: a host event (the key pushhost) is not taken from here"),
                "\(host.stderr)")
    }

    /// A plugin's own event, marked so, is applied; the same bytes unmarked
    /// are rejected; a marked record that holds no event is rejected too.
    @Test(arguments: [false, true]) func onlyAMarkedSubmissionIsAHostEvent(isolated: Bool) throws {
        for (flags, status) in [("1", "stored"), ("0", "rejected")] {
            let scratch = try Scratch()
            let host = try SourcePluginTests.startHost(
                scratch,
                try SourcePluginTests.burst(scratch, ["count": "1", "record": "token", "flags": flags])
                    + scratch.probe("tok", [.token]), isolated: isolated)
            eventually(timeout: .seconds(20)) {
                SourcePluginTests.burstLines(scratch).contains { $0.hasPrefix("done 1 ") } || host.waitForExit(timeout: .zero) != nil
            }
            let exit = host.stop()
            #expect(exit == .status(0), "\(host.stderr)")
            let report = try scratch.reportLines()
            #expect(report.count == 1 && report[0]["status"] as? String == status, "flags \(flags): \(report)")
            if status == "stored" {
                #expect(report.first?["event"] as? String == "token")
                #expect(scratch.probeCalls() == ["tok token b-1 -"])
                #expect(SourcePluginTests.burstLines(scratch).contains("done 1 done other"))
            } else {
                #expect(scratch.probeCalls().isEmpty)
                #expect(SourcePluginTests.burstLines(scratch).contains("done 1 rejected other"))
            }
        }

        let scratch = try Scratch()
        let host = try SourcePluginTests.startHost(
            scratch, try SourcePluginTests.burst(scratch, ["count": "1", "flags": "1"]) + scratch.probe("bg", [.background]), isolated: isolated)
        eventually(timeout: .seconds(20)) {
            SourcePluginTests.burstLines(scratch).contains { $0.hasPrefix("done 1 ") } || host.waitForExit(timeout: .zero) != nil
        }
        #expect(host.stop() == .status(0), "\(host.stderr)")
        let report = try scratch.reportLines()
        #expect(report.first?["status"] as? String == "rejected", "\(report)")
        #expect(report.first?["error"] as? String == "submitted as a host event, but it holds none (no key pushhost)", "\(report)")
        #expect(scratch.probeCalls().isEmpty)
    }
}
