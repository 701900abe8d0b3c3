import Foundation
import Testing

/// An interceptor that breaks the chain's rules fails only the message at
/// hand, with the reason and its name; a refused `set` leaves the message
/// as it was; the host goes on with the next one.
@Suite struct InterceptorBadInputTests {
    typealias Chain = InterceptorChainTests

    static func plugins(_ scratch: Scratch, _ settings: [String: String] = [:]) throws -> [String] {
        try scratch.probe("gate", [.interceptor], settings: settings) + scratch.probe("bg", [.background], settings: ["json": "true"])
    }

    @Test func proceedTwiceOrProceedAndStopFailsTheMessage() throws {
        let scratch = try Scratch()
        let result = try scratch.run(try Self.plugins(scratch), stdin: ndjson(
            Chain.message("m1", #""intercept":"proceed-twice""#),
            Chain.message("m2", #""intercept":"proceed-stop""#),
            Chain.message("m3", #""intercept":"continue""#),
            Chain.message("m4")))
        #expect(result.status == 0, "\(result.stderr)")
        let report = try result.report()
        try #require(report.count == 4)
        #expect(report.map { $0["status"] as? String } == ["failed", "failed", "failed", "delivered"])
        #expect(report.prefix(3).map { $0["by"] as? String } == ["gate", "gate", "gate"])
        #expect(report.map { $0["error"] as? String } == [
            "gate called proceed twice",
            "gate called proceed and then stop",
            "gate stop with the verdict 0, which is neither PH_SUPPRESS nor PH_FAILED",
            nil,
        ])
        #expect(Chain.lines(scratch, "background").map { $0.prefix(5) } == ["bg m4"])
        #expect(result.stderr.contains("gate: called proceed twice for message m1: the message fails"), "\(result.stderr)")
        #expect(result.stderr.contains("gate: called proceed and then stop for message m2: the message fails"), "\(result.stderr)")
    }

    @Test func aTurnThatNeverEndsFailsAtTheDeadlineAndTheRestGoesOn() throws {
        let scratch = try Scratch()
        let result = try scratch.run(try Self.plugins(scratch) + ["--data-timeout", "0.3"], stdin: ndjson(
            Chain.message("m1", #""intercept":"never""#),
            Chain.message("m2"),
            Chain.message("m3", #""intercept":"hold","delay_ms":"900""#),
            Chain.message("m4")))
        #expect(result.status == 0, "\(result.stderr)")
        let report = try result.report()
        try #require(report.count == 4)
        #expect(report.map { $0["id"] as? String } == ["m2", "m4", "m1", "m3"])
        #expect(report.map { $0["status"] as? String } == ["delivered", "delivered", "failed", "failed"])
        #expect(report[2]["error"] as? String == "gate did not proceed or stop within --data-timeout 0.3s")
        #expect(report[2]["by"] as? String == "gate")
        #expect(result.stderr.contains("gate: no proceed or stop for message m1 within 0.3s; it fails"), "\(result.stderr)")
        // m3's proceed comes after its deadline: ignored, and said so.
        #expect(result.stderr.contains("gate: proceed after its --data-timeout deadline passed; ignored"), "\(result.stderr)")
        #expect(Chain.lines(scratch, "background").map { $0.prefix(5) } == ["bg m2", "bg m4"])
    }

    @Test func aSecondProceedFromAnotherThreadChangesNothingElse() throws {
        let scratch = try Scratch()
        let result = try scratch.run(try Self.plugins(scratch), stdin: ndjson(
            Chain.message("m1", #""intercept":"hold-twice""#),
            Chain.message("m2", #""intercept":"hold","delay_ms":"200""#)))
        #expect(result.status == 0, "\(result.stderr)")
        let report = try result.report()
        try #require(report.count == 2)
        // The second call comes either before the host took the first (the
        // message fails) or after (it is ignored); it is logged either way.
        let first = try #require(report.first { $0["id"] as? String == "m1" })
        if first["status"] as? String == "failed" {
            #expect(first["error"] as? String == "gate called proceed twice")
        } else {
            #expect(first["status"] as? String == "delivered")
            #expect(result.stderr.contains("gate: proceed after the turn already ended"), "\(result.stderr)")
        }
        #expect(result.stderr.contains("gate: "), "\(result.stderr)")
        #expect(report.first { $0["id"] as? String == "m2" }?["status"] as? String == "delivered")
    }

    /// `set` refusals: the answer is -1, the message is unchanged, and the
    /// log says which plugin and why.
    @Test(arguments: [
        (#"no.such="x""#, "no field no in a normalized message"),
        (#"data.k={"bad""#, "the value for data.k is not JSON"),
        (#"id="other""#, "id is read-only"),
        (#"notification.title=5"#, "the value for notification.title must be a string, not a number"),
        (#"data.k.inner=1"#, "data.k is a string, not an object"),
        (#"priority="urgent""#, #"the value for priority must be "high" or "normal""#),
        (#"notification.actions=[{"id":"x"}]"#, "element 0 is not"),
        (#"data..k=1"#, "bad path"),
        (#"data"#, "data cannot be removed"),
    ])
    func aRefusedSetLeavesTheMessageAsItWas(_ edit: String, _ reason: String) throws {
        let scratch = try Scratch()
        let result = try scratch.run(try Self.plugins(scratch, ["set": edit]), stdin: ndjson(Chain.message("m1", #""k":"v""#)))
        #expect(result.status == 0, "\(result.stderr)")
        #expect(try result.report().first?["status"] as? String == "delivered")
        #expect(Chain.lines(scratch, "intercept") == ["gate m1 a set=-1"])
        #expect(result.stderr.contains("gate: set "), "\(result.stderr)")
        #expect(result.stderr.contains(reason), "\(result.stderr)")
        #expect(result.stderr.contains("the message is unchanged"), "\(result.stderr)")
        let json = try #require(scratch.probeLines().first { $0.event == "background" }?.rest)
        let message = try #require(try JSONSerialization.jsonObject(with: Data(json.utf8)) as? [String: Any])
        #expect(message["id"] as? String == "m1")
        #expect(message["priority"] as? String == "high")
        #expect(message["data"] as? [String: String] == ["rx_gcm_key_target": "a", "k": "v"])
        #expect(message["notification"] as? [String: String] == ["title": "Hello", "style": "default"])
    }

    /// What `set` may do: add, replace, remove, make objects on the way,
    /// and change the target (which the route then follows).
    @Test func setEditsTheNormalizedMessage() throws {
        let scratch = try Scratch()
        let plugins = try scratch.probe("one", [.interceptor], settings: ["set": #"data.deep.er={"n":[1,2]}"#])
            + scratch.probe("two", [.interceptor], settings: ["set": "notification.title"])
            + scratch.probe("three", [.interceptor], settings: ["set": #"target="b""#])
            + scratch.probe("four", [.interceptor], settings: ["set": #"notification.actions=[{"id":"ok","title":"OK"}]"#])
            + scratch.probe("sb", [.foreground], targets: ["b"], settings: ["json": "true"])
        let result = try scratch.run(plugins + ["--foreground", "sb"], stdin: ndjson(Chain.message("m1", #""k":"v""#)))
        #expect(result.status == 0, "\(result.stderr)")
        let report = try result.report()
        #expect(report.first?["target"] as? String == "b")
        #expect(report.first?["route"] as? String == "target")
        #expect(Chain.lines(scratch, "intercept").map { $0.suffix(5) } == ["set=0", "set=0", "set=0", "set=0"])
        let json = try #require(scratch.probeLines().first { $0.event == "target" }?.rest)
        let message = try #require(try JSONSerialization.jsonObject(with: Data(json.utf8)) as? [String: Any])
        #expect(message["target"] as? String == "b")
        let data = try #require(message["data"] as? [String: Any])
        #expect(((data["deep"] as? [String: Any])?["er"] as? [String: Any])?["n"] as? [Int] == [1, 2])
        #expect(data["k"] as? String == "v")
        let notification = try #require(message["notification"] as? [String: Any])
        #expect(notification["title"] == nil)
        #expect((notification["actions"] as? [[String: String]]) == [["id": "ok", "title": "OK"]])
    }
}
