import Foundation
import Testing

/// A record that waited in its stream: its time to live counts from when
/// the stream stored it (the nats plugin tells the host through
/// `submit_record_at`), not from when a host fetched it.
@Suite(.enabled(if: NatsPlugin.canRun, "needs nats-server and libnats-dev"))
struct NatsExpiryTests {
    @Test(arguments: [false, true]) func aRecordThatWaitedInItsStreamPastItsTimeToLiveExpires(isolated: Bool) throws {
        let scratch = try Scratch()
        let server = try NatsServer(scratch)
        // A first instance makes the stream and its consumer, then stops.
        let first = try NatsHost("first", scratch, server: server)
        try first.waitUntilReading()
        #expect(first.host.stop() == .status(0), "\(first.host.stderr)")
        try server.publish([
            #"{"message_id":"old","time_to_live":1,"data":{}}"#,
            #"{"message_id":"day","time_to_live":86400,"data":{}}"#,
        ], to: "pushes.a")
        // Two whole seconds in the stream: past a time to live of 1 s.
        usleep(2_200_000)
        let second = try NatsHost("second", scratch, server: server, plugins: try scratch.probe("bg", [.background]), isolated: isolated)
        let ids = reportedIDs([second], count: 2)
        #expect(ids == ["old", "day"], "\(second.host.stderr)")
        #expect(second.report.map { $0["status"] as? String } == ["expired", "delivered"], "\(second.report)")
        #expect(scratch.probeCalls() == ["bg background day"])
        #expect(eventually(timeout: .seconds(10)) { (try? server.messages(in: "PUSHES").isEmpty) == true }, "both are done with")
        #expect(second.host.stop() == .status(0), "\(second.host.stderr)")
    }
}
