import Foundation
import Testing

/// Interceptors (docs/plugins.md, interceptors): each push message passes them in load
/// order before the data stage; they edit it, pass it on now or later, or
/// stop it, and learn its report line.
@Suite struct InterceptorChainTests {
    /// A message with a title, for target `a`, with `data` members added.
    static func message(_ id: String, _ data: String = "") -> String {
        #"{"message_id":"\#(id)","notification":{"title":"Hello"},"data":{"rx_gcm_key_target":"a"\#(data.isEmpty ? "" : "," + data)}}"#
    }

    /// The lines of the probes' log for `event`, as `NAME ID TARGET REST`.
    static func lines(_ scratch: Scratch, _ event: String) -> [String] {
        scratch.probeLines().filter { $0.event == event }.map { $0.fields.prefix(1) + $0.fields.dropFirst(2) + [$0.rest] }
            .map { $0.filter { !$0.isEmpty }.joined(separator: " ") }
    }

    @Test func anEditIsSeenByTheNextInterceptorAndEveryPlugin() throws {
        let scratch = try Scratch()
        let plugins = try scratch.probe("first", [.interceptor], settings: ["set": #"notification.image="https://img.test/a.png""#])
            + scratch.probe("second", [.interceptor], settings: ["get": "notification.image"])
            + scratch.probe("gate", [.data], settings: ["get": "notification.image,data.k"])
            + scratch.probe("bg", [.background], settings: ["json": "true"])
        let result = try scratch.run(plugins, stdin: ndjson(Self.message("m1", #""k":"v""#)))
        #expect(result.status == 0, "\(result.stderr)")
        let report = try result.report()
        try #require(report.count == 1)
        #expect(report[0]["status"] as? String == "delivered")
        #expect(report[0]["by"] == nil)
        #expect(Self.lines(scratch, "intercept") == ["first m1 a set=0", "second m1 a notification.image=https://img.test/a.png"])
        #expect(Self.lines(scratch, "data") == ["gate m1 a notification.image=https://img.test/a.png data.k=v"])
        let json = try #require(scratch.probeLines().first { $0.event == "background" }?.rest)
        let message = try #require(try JSONSerialization.jsonObject(with: Data(json.utf8)) as? [String: Any])
        #expect((message["notification"] as? [String: Any])?["image"] as? String == "https://img.test/a.png")
        #expect((message["notification"] as? [String: Any])?["title"] as? String == "Hello")
    }

    @Test func aStopEndsTheMessageWithTheInterceptorsNameAndReason() throws {
        let scratch = try Scratch()
        let plugins = try scratch.probe("outer", [.interceptor])
            + scratch.probe("inner", [.interceptor])
            + scratch.probe("gate", [.data])
            + scratch.probe("bg", [.background])
        let result = try scratch.run(plugins, stdin: ndjson(
            Self.message("m1", #""inner":{"intercept":"suppress","reason":"seen it"}"#),
            Self.message("m2", #""inner":{"intercept":"fail","reason":"no quota"}"#),
            Self.message("m3", #""outer":{"intercept":"suppress"}"#),
            Self.message("m4")))
        #expect(result.status == 0, "\(result.stderr)")
        let report = try result.report()
        try #require(report.count == 4)
        #expect(report.map { $0["status"] as? String } == ["suppressed", "failed", "suppressed", "delivered"])
        #expect(report.map { $0["by"] as? String } == ["inner", "inner", "outer", nil])
        #expect(report[0]["reason"] as? String == "seen it")
        #expect(report[0]["error"] is NSNull)
        #expect(report[1]["error"] as? String == "no quota")
        #expect(report[1]["reason"] == nil)
        #expect(report[2]["reason"] as? String == "told to")
        for line in report.prefix(3) {
            #expect(line["route"] as? String == "none")
            #expect((line["data"] as? [Any])?.isEmpty == true)
            #expect((line["ui"] as? [Any])?.isEmpty == true)
        }
        // No data or UI stage for a stopped message.
        #expect(Self.lines(scratch, "data") == ["gate m4 a"])
        #expect(Self.lines(scratch, "background") == ["bg m4 a"])
        // The output side: only those that proceeded the message, the last one first.
        let outcomes = scratch.probeLines().filter { $0.event == "outcome" }
        #expect(outcomes.map { "\($0.name) \($0.id)" } == ["outer m1", "outer m2", "inner m4", "outer m4"])
        let line = try #require(outcomes.first.map(\.rest))
        let told = try #require(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])
        #expect(told["status"] as? String == "suppressed")
        #expect(told["by"] as? String == "inner")
        // The report exits 0 without --strict; with it, the failed message counts.
        let strict = try scratch.run(plugins + ["--strict"], stdin: ndjson(Self.message("m5", #""inner":{"intercept":"fail"}"#)))
        #expect(strict.status == 3)
        #expect(try strict.report().first?["error"] as? String == "told to")
    }

    @Test func aHeldMessageDoesNotHoldBackTheOnesBehindIt() throws {
        let scratch = try Scratch()
        let plugins = try scratch.probe("hold", [.interceptor], settings: ["delay_ms": "300"])
            + scratch.probe("gate", [.data], settings: ["get": "data.late"])
            + scratch.probe("bg", [.background])
        let result = try scratch.run(plugins, stdin: ndjson(
            Self.message("m1", #""intercept":"hold","set_later":"data.late=\"yes\"""#),
            Self.message("m2"),
            Self.message("m3", #""intercept":"hold-suppress","delay_ms":"600""#),
            Self.message("m4")))
        #expect(result.status == 0, "\(result.stderr)")
        let report = try result.report()
        try #require(report.count == 4)
        // The held ones join the stream when released, behind what came meanwhile.
        #expect(report.map { $0["id"] as? String } == ["m2", "m4", "m1", "m3"])
        #expect(report.map { $0["status"] as? String } == ["delivered", "delivered", "delivered", "suppressed"])
        #expect(report[3]["reason"] as? String == "held, then told to")
        #expect(Self.lines(scratch, "later") == ["hold m1 a set=0", "hold m3 a"])
        // The edit made from the interceptor's own thread reaches the data stage.
        #expect(Self.lines(scratch, "data") == ["gate m2 a data.late=NULL", "gate m4 a data.late=NULL", "gate m1 a data.late=yes"])
        #expect(Self.lines(scratch, "background") == ["bg m2 a", "bg m4 a", "bg m1 a"])
    }
}
