import Foundation
import Testing

/// A bad action event is rejected with a line that says which and why, and
/// the host goes on with the next record.
@Suite struct ActionBadInputTests {
    typealias Route = ActionRouteTests

    @Test func malformedEventsAreRejectedWithTheReason() throws {
        let scratch = try Scratch()
        let result = try scratch.run(try Route.app(scratch), stdin: ndjson(
            #"{"pushhost":"action","action":"tap"}"#,
            #"{"pushhost":"action","id":"m1"}"#,
            #"{"pushhost":"action","id":"m1","action":"reply","input":42}"#,
            #"{"pushhost":"action","id":7,"action":"tap"}"#,
            Route.message("m1", target: "a")))
        #expect(result.status == 0, "\(result.stderr)")
        let report = try result.report()
        try #require(report.count == 5)
        let errors = report.prefix(4).map { $0["error"] as? String }
        #expect(errors == [
            #"an action event needs "id": the id of the message acted on"#,
            #"an action event needs "action": "tap" or the id of one of the message's notification.actions"#,
            #""input" must be a string (the text of a reply action), not a number"#,
            #""id" must be the id of the message acted on, a non-empty string"#,
        ])
        for line in report.prefix(4) {
            #expect(line["event"] as? String == "action")
            #expect(line["status"] as? String == "rejected")
        }
        #expect(report[4]["status"] as? String == "delivered")
        #expect(result.stderr.contains("rejected line 3: \"input\" must be a string"))
    }

    @Test func anActionOnAMessageNeverDeliveredIsRejected() throws {
        let scratch = try Scratch()
        let plugins = try Route.app(scratch) + scratch.probe("gate", [.data])
        let result = try scratch.run(plugins, stdin: ndjson(
            #"{"message_id":"m-supp","data":{"rx_gcm_key_target":"a","verdict":"suppress"}}"#,
            #"{"message_id":"m-bad","data":{"title":"oops",}}"#,
            Route.action("m-supp", "tap"),
            Route.action("m-bad", "tap"),
            Route.action("nowhere", "tap"),
            Route.message("m1", target: "a"),
            Route.action("m1", "archive"),
            Route.action("m1", "tap")))
        #expect(result.status == 0, "\(result.stderr)")
        let report = try result.report()
        try #require(report.count == 8)
        #expect(report[2]["error"] as? String == #"message "m-supp" was suppressed, not delivered: there is no notification to act on"#)
        #expect(report[3]["error"] as? String == #"no delivered message has id "m-bad" (the store keeps the last 10000 to 20000)"#)
        #expect(report[4]["error"] as? String == #"no delivered message has id "nowhere" (the store keeps the last 10000 to 20000)"#)
        #expect(report[6]["error"] as? String == #"message "m1" offers no action "archive" (its actions: open, reply)"#)
        for line in report[2...6] where line["event"] != nil {
            #expect(line["status"] as? String == "rejected")
        }
        #expect(report[7]["status"] as? String == "retained")
        #expect(Route.actionCalls(scratch) == ["bg m1 tap NULL"])
        #expect(result.stderr.contains(#"rejected line 5: no delivered message has id "nowhere""#))
    }

    @Test func theStoreKeepsTheLastMessagesAndForgetsOlderOnes() throws {
        let scratch = try Scratch()
        let plugins = try Route.app(scratch)
        let messages = (1...7).map { Route.message("m\($0)", target: "a") }
        let input = messages + [Route.action("m1", "tap"), Route.action("m4", "tap"), Route.action("m7", "tap")]
        let result = try scratch.run(plugins + ["--store-limit", "3"], stdin: input.joined(separator: "\n") + "\n")
        #expect(result.status == 0, "\(result.stderr)")
        let statuses = try result.report().suffix(3).map { $0["status"] as? String }
        #expect(statuses == ["rejected", "retained", "retained"])
        let files = try FileManager.default.contentsOfDirectory(atPath: scratch.file("state")).sorted()
        #expect(files.contains("delivered.ndjson") && files.contains("delivered.1.ndjson"))
        let mode = try FileManager.default.attributesOfItem(atPath: scratch.file("state/delivered.ndjson"))[.posixPermissions] as? Int
        #expect(mode == 0o600)
    }

    /// Lines an earlier run wrote are older than a burst that fills the
    /// store's buffer twice over: they are forgotten with the lines the
    /// burst dropped, not kept beside its newest ones.
    @Test func aBurstForgetsWhatEarlierRunsWrote() throws {
        let scratch = try Scratch()
        let plugins = try Route.app(scratch)
        let first = try scratch.run(plugins + ["--store-limit", "3"], stdin: Route.message("m1", target: "a") + "\n")
        #expect(first.status == 0, "\(first.stderr)")
        let burst = (2...8).map { Route.message("m\($0)", target: "a") } + [Route.action("m1", "tap"), Route.action("m5", "tap")]
        let result = try scratch.run(plugins + ["--store-limit", "3"], stdin: burst.joined(separator: "\n") + "\n")
        #expect(result.status == 0, "\(result.stderr)")
        let statuses = try result.report().suffix(2).map { $0["status"] as? String }
        #expect(statuses == ["rejected", "retained"])
    }

    @Test func aStoreLineCutShortByACrashDoesNotSpoilTheNextOne() throws {
        let scratch = try Scratch()
        let plugins = try Route.app(scratch)
        try FileManager.default.createDirectory(atPath: scratch.file("state"), withIntermediateDirectories: true)
        try Data(#"{"id":"m0","status":"delivered","source":{"kind":"stdin","li"#.utf8).write(to: URL(fileURLWithPath: scratch.file("state/delivered.ndjson")))
        let result = try scratch.run(plugins, stdin: ndjson(Route.message("m1", target: "a"), Route.action("m1", "tap"), Route.action("m0", "tap")))
        #expect(result.status == 0, "\(result.stderr)")
        let statuses = try result.report().map { $0["status"] as? String }
        #expect(statuses == ["delivered", "retained", "rejected"])
    }

    @Test func hostileStateFilesAreRefusedOrLeftOutWithTheReason() throws {
        let scratch = try Scratch()
        let plugins = try Route.app(scratch)
        let state = scratch.file("state")
        try FileManager.default.createDirectory(atPath: state, withIntermediateDirectories: true)
        try Data("not json\n".utf8).write(to: URL(fileURLWithPath: state + "/retained.ndjson"))
        let garbled = try scratch.run(plugins, stdin: ndjson(Route.message("m1", target: "a")))
        #expect(garbled.status == 0, "\(garbled.stderr)")
        #expect(garbled.stderr.contains("retained actions \(state)/retained.ndjson, line 1: not an action this host wrote; left out"), "\(garbled.stderr)")

        try FileManager.default.removeItem(atPath: state + "/delivered.ndjson")
        try FileManager.default.createSymbolicLink(atPath: state + "/delivered.ndjson", withDestinationPath: scratch.file("elsewhere"))
        let linked = try scratch.run(plugins, stdin: ndjson(Route.message("m1", target: "a")))
        #expect(linked.status == 1)
        #expect(linked.stderr.contains("delivered store \(state)/delivered.ndjson: a symbolic link"), "\(linked.stderr)")
        #expect(!FileManager.default.fileExists(atPath: scratch.file("elsewhere")))
    }
}
