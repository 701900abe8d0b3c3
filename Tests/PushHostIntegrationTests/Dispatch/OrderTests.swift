import Foundation
import Testing

/// Data stages may overlap, but UI calls and report lines keep input order;
/// `--max-pending` pauses reading.
@Suite struct OrderTests {
    static func message(_ id: String, verdict: String = "continue", delay: Int = 0, target: String = "a") -> String {
        #"{"message_id":"\#(id)","data":{"rx_gcm_key_target":"\#(target)","verdict":"\#(verdict)","delay_ms":"\#(delay)"}}"#
    }

    @Test func slowDataStageHoldsBackLaterUICallsButNotTheirDataStages() throws {
        let scratch = try Scratch()
        let plugins = try scratch.probe("d", [.data]) + scratch.probe("bg", [.background])
        let quick = (2...6).map { "m\($0)" }
        let result = try scratch.run(plugins, stdin: ndjson(
            Self.message("m1", verdict: "pending", delay: 200), quick.map { Self.message($0) }.joined(separator: "\n")))
        #expect(result.status == 0, "\(result.stderr)")
        let ids = ["m1"] + quick
        #expect(scratch.probeCalls() == ids.map { "d data \($0)" } + ["d complete m1"] + ids.map { "bg background \($0)" })
        let report = try result.report()
        #expect(report.map { $0["id"] as? String } == ids)
        #expect(report.allSatisfy { $0["status"] as? String == "delivered" })
    }

    /// Pending messages that complete out of order still reach the UI stage in input order.
    @Test func completionsOutOfOrderStillDeliverInInputOrder() throws {
        let scratch = try Scratch()
        let plugins = try scratch.probe("d", [.data]) + scratch.probe("bg", [.background])
        let result = try scratch.run(plugins, stdin: ndjson(
            Self.message("m1", verdict: "pending", delay: 400),
            Self.message("m2", verdict: "pending", delay: 200),
            Self.message("m3", verdict: "pending", delay: 10)))
        #expect(result.status == 0, "\(result.stderr)")
        #expect(scratch.probeCalls() == [
            "d data m1", "d data m2", "d data m3", "d complete m3", "d complete m2", "d complete m1",
            "bg background m1", "bg background m2", "bg background m3",
        ])
        #expect(try result.report().map { $0["id"] as? String } == ["m1", "m2", "m3"])
    }

    /// A host event behind a pending message takes effect at its place in the
    /// input: the message before it still sees the old state.
    @Test func hostEventsKeepTheirPlaceBehindAPendingMessage() throws {
        let scratch = try Scratch()
        let plugins = try scratch.probe("d", [.data]) + scratch.probe("bg", [.background])
            + scratch.probe("s1", [.foreground, .token], targets: ["a"])
        let result = try scratch.run(plugins, stdin: ndjson(
            Self.message("m1", verdict: "pending", delay: 150),
            #"{"pushhost":"foreground","screen":"s1"}"#,
            #"{"pushhost":"token","token":"T1"}"#,
            #"not json"#,
            Self.message("m2")))
        #expect(result.status == 0, "\(result.stderr)")
        #expect(scratch.probeCalls() == [
            "d data m1", "d data m2", "d complete m1", "bg background m1", "s1 token T1 -", "s1 target m2",
        ])
        let report = try result.report()
        #expect(report.map { ($0["event"] ?? $0["id"]) as? String } == ["m1", "foreground", "token", nil, "m2"])
        #expect(report.map { $0["status"] as? String } == ["delivered", "applied", "stored", "rejected", "delivered"])
    }

    @Test func maxPendingOnePausesReading() throws {
        let scratch = try Scratch()
        let plugins = try scratch.probe("d", [.data]) + scratch.probe("bg", [.background]) + ["--max-pending", "1"]
        let ids = (1...4).map { "m\($0)" }
        let result = try scratch.run(plugins, stdin: ids.map { Self.message($0, verdict: "pending", delay: 30) }.joined(separator: "\n"))
        #expect(result.status == 0, "\(result.stderr)")
        #expect(scratch.probeCalls().filter { $0.hasPrefix("d ") } == ids.flatMap { ["d data \($0)", "d complete \($0)"] })
        #expect(try result.report().map { $0["id"] as? String } == ids)
    }

    /// Without the limit, the same input overlaps every data stage.
    @Test func withoutMaxPendingAllDataStagesOverlap() throws {
        let scratch = try Scratch()
        let plugins = try scratch.probe("d", [.data]) + scratch.probe("bg", [.background])
        let ids = (1...4).map { "m\($0)" }
        let result = try scratch.run(plugins, stdin: ids.map { Self.message($0, verdict: "pending", delay: 300) }.joined(separator: "\n"))
        #expect(result.status == 0, "\(result.stderr)")
        let calls = scratch.probeCalls().filter { $0.hasPrefix("d ") }
        #expect(Array(calls.prefix(4)) == ids.map { "d data \($0)" })
        #expect(Set(calls.dropFirst(4)) == Set(ids.map { "d complete \($0)" }))
        #expect(scratch.probeCalls().filter { $0.hasPrefix("bg ") } == ids.map { "bg background \($0)" })
    }

    /// Report lines reach the report file in input order even when many
    /// messages are in flight at once.
    @Test func manyMessagesKeepTheirOrder() throws {
        let scratch = try Scratch()
        let plugins = try scratch.probe("d", [.data]) + scratch.probe("bg", [.background])
        let ids = (1...200).map { "m\($0)" }
        let input = ids.enumerated().map { index, id in
            index % 3 == 0 ? Self.message(id, verdict: "pending", delay: (index * 7) % 40) : Self.message(id)
        }
        let result = try scratch.run(plugins, stdin: input.joined(separator: "\n"))
        #expect(result.status == 0, "\(result.stderr)")
        #expect(try result.report().map { $0["id"] as? String } == ids)
        #expect(scratch.probeCalls().filter { $0.hasPrefix("bg ") } == ids.map { "bg background \($0)" })
    }
}
