import Foundation
import Testing

/// `host->fail` (ABI 1.2): a UI handler that could not do its part makes
/// its message `failed`, with its reason after the plugin's name, in the
/// host and in a worker alike; a plugin checks the table's size first.
@Suite struct FailTests {
    static let input = ndjson(
        #"{"message_id":"m1","data":{}}"#,
        #"{"message_id":"m2","data":{"fail":"the desktop did not show it"}}"#,
        #"{"message_id":"m3","data":{}}"#)

    /// `shower` (Tests/Fixtures/plugins/shower.c) fails each message whose
    /// `data.fail` is set, with that text as the reason.
    @Test(arguments: [false, true])
    func aFailedUICallFailsItsMessage(isolated: Bool) throws {
        let scratch = try Scratch()
        let file = try scratch.plugin("shower.so", PluginSource.fixture("shower"))
        let run = try scratch.run(["--plugin", file] + (isolated ? ["--isolate", "shower"] : []), stdin: Self.input)
        #expect(run.status == 0, "\(run.stderr)")
        let report = try run.report()
        #expect(report.map { $0["status"] as? String } == ["delivered", "failed", "delivered"])
        #expect(report[1]["route"] as? String == "background")
        #expect(report[1]["error"] as? String == "shower: the desktop did not show it", "\(report[1])")
    }
}
