import Foundation
import Testing
@testable import PushHostIsolation
@testable import PushHostPipeline
@testable import PushHostRecords

/// What the watchdog knows of the call it gives up on (from the crash
/// journal), and the line of a host event whose handler it was: shaped as a
/// failed event's line.
@Suite struct GivenUpCallTests {
    @Test func aTokenEventGivenUpOn() {
        let line = FailedEventLine(
            kind: .token, reason: "plugin log did not return from on_token within --handler-timeout 1.0s (the host exited with status 4)",
            source: .stdin(line: 3))
        #expect(ReportLineTests.text(line) == #"{"event":"token","status":"failed","error":"plugin log did not return from on_token within --handler-timeout 1.0s (the host exited with status 4)","source":{"kind":"stdin","line":3}}"#)
    }

    /// The journal gives back the source of the call under way as `enter` noted it.
    @Test(arguments: [RecordSource.stdin(line: 7), .spool(file: "x.json", line: 2), .spool(file: "y.json", line: nil), .plugin(name: "nats", record: 12)])
    func theJournalKnowsTheRecordOfTheCall(_ source: RecordSource) throws {
        let journal = try CrashJournal(path: nil)
        journal.name(plugins: ["a", "slow"])
        journal.enter(.onBackground, plugin: 1, source: source)
        let call = GivenUpCall(in: journal, reason: "why")
        #expect(call.source == source)
        #expect(call.handler == .onBackground)
        #expect(call.plugin == 1)
        #expect(call.name(of: call.plugin) == "slow")
        journal.leave()
    }
}
