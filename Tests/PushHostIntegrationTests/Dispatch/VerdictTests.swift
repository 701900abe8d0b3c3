import Foundation
import Testing

/// The data stage: every data plugin in load order, then the verdicts decide
/// whether the UI stage runs.
@Suite struct VerdictTests {
    /// The data probe `d` with `settings`, and the background probe `bg`.
    static func plugins(_ scratch: Scratch, _ settings: [String: String]) throws -> [String] {
        try scratch.probe("d", [.data], settings: settings) + scratch.probe("bg", [.background])
    }

    static let m1 = #"{"message_id":"m1","data":{"rx_gcm_key_target":"a"}}"#
    static let m2 = #"{"message_id":"m2","data":{"rx_gcm_key_target":"a"}}"#

    struct Case: Sendable, CustomTestStringConvertible {
        let verdict: String
        let then: String?
        let status: String
        let reported: String
        var testDescription: String { verdict + (then.map { " then \($0)" } ?? "") }
    }

    @Test(arguments: [
        Case(verdict: "continue", then: nil, status: "delivered", reported: "continue"),
        Case(verdict: "suppress", then: nil, status: "suppressed", reported: "suppress"),
        Case(verdict: "failed", then: nil, status: "failed", reported: "failed"),
        Case(verdict: "pending", then: "continue", status: "delivered", reported: "continue"),
        Case(verdict: "pending", then: "suppress", status: "suppressed", reported: "suppress"),
        Case(verdict: "pending", then: "failed", status: "failed", reported: "failed"),
    ])
    func verdictDecidesTheUIStage(_ answer: Case) throws {
        let scratch = try Scratch()
        var settings = ["verdict": answer.verdict, "delay_ms": "50"]
        if let then = answer.then { settings["then"] = then }
        let result = try scratch.run(try Self.plugins(scratch, settings), stdin: ndjson(Self.m1))
        #expect(result.status == 0, "\(result.stderr)")
        let delivered = answer.status == "delivered"
        let pending = answer.verdict == "pending"
        #expect(scratch.probeCalls() == ["d data m1"] + (pending ? ["d complete m1"] : []) + (delivered ? ["bg background m1"] : []))
        let line = try #require(try result.report().first)
        #expect(line["status"] as? String == answer.status)
        #expect(line["route"] as? String == (delivered ? "background" : "none"))
        #expect(line["ui"] as? [String] == (delivered ? ["bg"] : []))
        #expect(line["data"] as? [[String: String]] == [["plugin": "d", "verdict": answer.reported]])
        if answer.status == "failed" {
            #expect(line["error"] as? String == "d gave the verdict failed")
        } else {
            #expect(line["error"] is NSNull)
        }
    }

    /// The answer comes from the plugin's own thread about 50 ms later.
    @Test func pendingIsAnsweredFromAnotherThread() throws {
        let scratch = try Scratch()
        let start = ContinuousClock.now
        let result = try scratch.run(try Self.plugins(scratch, ["verdict": "pending", "delay_ms": "50"]), stdin: ndjson(Self.m1))
        let elapsed = ContinuousClock.now - start
        #expect(result.status == 0, "\(result.stderr)")
        #expect(elapsed >= .milliseconds(50))
        #expect(scratch.probeCalls() == ["d data m1", "d complete m1", "bg background m1"])
        #expect(try result.report().first?["status"] as? String == "delivered")
    }

    @Test func pendingThatNeverCompletesFailsAtTheDeadline() throws {
        let scratch = try Scratch()
        let plugins = try Self.plugins(scratch, ["verdict": "pending-never"]) + ["--data-timeout", "0.2"]
        let start = ContinuousClock.now
        let result = try scratch.run(plugins, stdin: ndjson(
            Self.m1,
            #"{"message_id":"m2","data":{"verdict":"continue"}}"#))
        let elapsed = ContinuousClock.now - start
        #expect(result.status == 0, "\(result.stderr)")
        #expect(elapsed >= .milliseconds(200))
        #expect(elapsed < .seconds(10))
        #expect(scratch.probeCalls() == ["d data m1", "d data m2", "bg background m2"])
        let report = try result.report()
        try #require(report.count == 2)
        #expect(report[0]["status"] as? String == "failed")
        #expect(report[0]["route"] as? String == "none")
        #expect(report[0]["data"] as? [[String: String]] == [["plugin": "d", "verdict": "failed"]])
        let error = try #require(report[0]["error"] as? String)
        #expect(error.contains("--data-timeout 0.2"), "\(error)")
        #expect(result.stderr.contains("d: no complete for message m1 within 0.2s; counted as failed"), "\(result.stderr)")
        #expect(report[1]["status"] as? String == "delivered")
    }

    @Test func secondCompleteIsLoggedAndIgnored() throws {
        let scratch = try Scratch()
        // m2 stays pending for a while, so the host is still there for m1's second complete.
        let result = try scratch.run(try Self.plugins(scratch, ["verdict": "pending-twice", "delay_ms": "20"]), stdin: ndjson(
            Self.m1,
            #"{"message_id":"m2","data":{"verdict":"pending","delay_ms":"400"}}"#))
        #expect(result.status == 0, "\(result.stderr)")
        // The second "complete m1" line and m1's UI call come from two threads: either order.
        let calls = scratch.probeCalls()
        #expect(calls.filter { !$0.contains(" complete ") } == ["d data m1", "d data m2", "bg background m1", "bg background m2"])
        #expect(calls.filter { $0.contains(" complete ") } == ["d complete m1", "d complete m1", "d complete m2"])
        let warnings = result.errorLines.filter { $0.contains("ignored") }
        #expect(warnings == ["warning pushhost: d: complete for a message that is not waiting for it (a second call, or an unknown message); ignored"],
                "\(result.stderr)")
        let report = try result.report()
        #expect(report.map { $0["status"] as? String } == ["delivered", "delivered"])
    }

    @Test func answerThatIsNoVerdictCountsAsFailed() throws {
        let scratch = try Scratch()
        let result = try scratch.run(try Self.plugins(scratch, ["verdict": "bogus"]), stdin: ndjson(Self.m1))
        #expect(result.status == 0, "\(result.stderr)")
        #expect(scratch.probeCalls() == ["d data m1"])
        let line = try #require(try result.report().first)
        #expect(line["status"] as? String == "failed")
        #expect((line["error"] as? String)?.contains("d gave 99, which is not a final verdict") == true, "\(line)")
    }

    @Test(arguments: [
        ("failed", 3), ("rejected", 3), ("suppress", 0), ("undelivered", 0),
    ])
    func strictExitsThreeForARejectedOrFailedRecord(_ what: String, _ status: Int32) throws {
        let scratch = try Scratch()
        let plugins = try scratch.probe("d", [.data])
            + (what == "undelivered" ? [] : scratch.probe("bg", [.background]))
        let record = switch what {
        case "rejected": #"{"data":{}"#
        case "failed": #"{"data":{"verdict":"failed"}}"#
        default: #"{"data":{"verdict":"suppress"}}"#
        }
        let input = ndjson(Self.m1, what == "undelivered" ? Self.m2 : record)
        let strict = try scratch.run(plugins + ["--strict"], stdin: input)
        #expect(strict.status == status, "\(strict.stderr)")
        // Every record is still handled and reported.
        #expect(try strict.report().count == 2)
        let lenient = try scratch.run(plugins, stdin: input)
        #expect(lenient.status == 0, "\(lenient.stderr)")
    }

    @Test func rejectedHostEventCountsForStrictToo() throws {
        let scratch = try Scratch()
        let result = try scratch.run(try Self.plugins(scratch, [:]) + ["--strict"], stdin: ndjson(
            #"{"pushhost":"foreground","screen":"nosuch"}"#, Self.m1))
        #expect(result.status == 3, "\(result.stderr)")
        #expect(scratch.probeCalls() == ["d data m1", "bg background m1"])
    }

    /// Three data plugins, each answering per message through `data.NAME.verdict`.
    @Test func everyDataPluginInLoadOrderAndTheVerdictsCombine() throws {
        let scratch = try Scratch()
        let plugins = try scratch.probe("d3", [.data]) + scratch.probe("d1", [.data]) + scratch.probe("d2", [.data])
            + scratch.probe("bg", [.background])
        func message(_ id: String, _ verdicts: [String: String]) -> String {
            let overrides = verdicts.sorted { $0.key < $1.key }.map { #""\#($0.key)":{"verdict":"\#($0.value)"}"# }
            return #"{"message_id":"\#(id)","data":{\#(overrides.joined(separator: ","))}}"#
        }
        let result = try scratch.run(plugins, stdin: ndjson(
            message("all-continue", [:]),
            message("one-suppress", ["d1": "suppress"]),
            message("suppress-and-failed", ["d3": "suppress", "d2": "failed"]),
            message("failed-first", ["d3": "failed"]),
            message("pending-then-continue", ["d1": "pending"])))
        #expect(result.status == 0, "\(result.stderr)")
        let ids = ["all-continue", "one-suppress", "suppress-and-failed", "failed-first", "pending-then-continue"]
        // Every data plugin is asked, whatever the ones before it said; a
        // pending one holds back the next until it completes.
        #expect(scratch.probeCalls() == [
            "d3 data all-continue", "d1 data all-continue", "d2 data all-continue", "bg background all-continue",
            "d3 data one-suppress", "d1 data one-suppress", "d2 data one-suppress",
            "d3 data suppress-and-failed", "d1 data suppress-and-failed", "d2 data suppress-and-failed",
            "d3 data failed-first", "d1 data failed-first", "d2 data failed-first",
            "d3 data pending-then-continue", "d1 data pending-then-continue", "d1 complete pending-then-continue",
            "d2 data pending-then-continue", "bg background pending-then-continue",
        ])
        let report = try result.report()
        #expect(report.map { $0["id"] as? String } == ids)
        #expect(report.map { $0["status"] as? String } == ["delivered", "suppressed", "failed", "failed", "delivered"])
        #expect(report[2]["data"] as? [[String: String]] == [
            ["plugin": "d3", "verdict": "suppress"], ["plugin": "d1", "verdict": "continue"], ["plugin": "d2", "verdict": "failed"],
        ])
        #expect(report[4]["data"] as? [[String: String]] == [
            ["plugin": "d3", "verdict": "continue"], ["plugin": "d1", "verdict": "continue"], ["plugin": "d2", "verdict": "continue"],
        ])
    }
}
