import Foundation
import Testing

/// Action events (docs/running.md, actions): the message acted on is found in the
/// delivered store, and the action goes to the visible screen of its
/// target, else to the plugins that are not screens, and waits for the
/// screen.
@Suite struct ActionRouteTests {
    /// A screen `s1` for target `a` and a background plugin, both with
    /// `on_action`, and a screen `s2` for target `b` without it.
    static func app(_ scratch: Scratch) throws -> [String] {
        try scratch.probe("s1", [.foreground, .action], targets: ["a"])
            + scratch.probe("s2", [.foreground], targets: ["b"])
            + scratch.probe("bg", [.background, .action])
    }

    /// A message for `target` with a notification offering `open` and `reply`.
    static func message(_ id: String, target: String) -> String {
        #"{"message_id":"\#(id)","notification":{"title":"Printer jammed","actions":[{"id":"open","title":"Open"},{"id":"reply","title":"Reply","input":true}]},"data":{"rx_gcm_key_target":"\#(target)"}}"#
    }

    static func action(_ id: String, _ action: String, input: String? = nil) -> String {
        let input = input.map { #","input":"\#($0)""# } ?? ""
        return #"{"pushhost":"action","id":"\#(id)","action":"\#(action)"\#(input)}"#
    }

    /// The `on_action` calls the probes logged: `NAME ID ACTION INPUT`.
    static func actionCalls(_ scratch: Scratch) -> [String] {
        scratch.probeLines().filter { $0.event == "action" }.map { "\($0.name) \($0.id) \($0.rest)" }
    }

    @Test func aVisibleScreenGetsTheActionAtOnce() throws {
        let scratch = try Scratch()
        let result = try scratch.run(try Self.app(scratch), stdin: ndjson(
            #"{"pushhost":"foreground","screens":["s1"]}"#,
            Self.message("m1", target: "a"),
            Self.action("m1", "tap"),
            Self.action("m1", "reply", input: "on my way")))
        #expect(result.status == 0, "\(result.stderr)")
        #expect(Self.actionCalls(scratch) == ["s1 m1 tap NULL", "s1 m1 reply on my way"])
        let report = try result.report()
        try #require(report.count == 4)
        for (line, action) in zip(report[2...], ["tap", "reply"]) {
            #expect(line["event"] as? String == "action")
            #expect(line["id"] as? String == "m1")
            #expect(line["action"] as? String == action)
            #expect(line["target"] as? String == "a")
            #expect(line["status"] as? String == "delivered")
            #expect(line["ui"] as? [String] == ["s1"])
            #expect(line["error"] == nil)
            #expect((line["source"] as? [String: Any])?["kind"] as? String == "stdin")
        }
    }

    @Test func inTheBackgroundTheOthersGetItAndTheScreenGetsItWhenShown() throws {
        let scratch = try Scratch()
        let result = try scratch.run(try Self.app(scratch), stdin: ndjson(
            Self.message("m1", target: "a"),
            Self.action("m1", "tap"),
            #"{"pushhost":"foreground","screens":["s2"]}"#,
            #"{"pushhost":"foreground","screens":["s2","s1"]}"#))
        #expect(result.status == 0, "\(result.stderr)")
        #expect(Self.actionCalls(scratch) == ["bg m1 tap NULL", "s1 m1 tap NULL"])
        let report = try result.report()
        try #require(report.count == 5)
        #expect(report[1]["status"] as? String == "retained")
        #expect(report[1]["ui"] as? [String] == ["bg"])
        #expect(report[2]["event"] as? String == "foreground")
        #expect(report[3]["event"] as? String == "foreground")
        #expect(report[4]["event"] as? String == "action")
        #expect(report[4]["status"] as? String == "delivered")
        #expect(report[4]["ui"] as? [String] == ["s1"])
        #expect(report[4]["retained_at"] is Double)
        #expect((report[4]["source"] as? [String: Any])?["line"] as? Int == 2)
    }

    @Test func theMessageAStoredActionCarriesReadsAsDelivered() throws {
        let scratch = try Scratch()
        let plugins = try scratch.probe("s1", [.foreground, .action], targets: ["a"], settings: ["get": "notification.title,data.rx_gcm_key_target"])
        let first = try scratch.run(plugins + ["--foreground", "s1"], stdin: ndjson(Self.message("m1", target: "a")))
        #expect(first.status == 0, "\(first.stderr)")
        let second = try scratch.run(plugins + ["--foreground", "s1"], stdin: ndjson(Self.action("m1", "open")))
        #expect(second.status == 0, "\(second.stderr)")
        #expect(Self.actionCalls(scratch) == ["s1 m1 open NULL notification.title=Printer jammed data.rx_gcm_key_target=a"])
    }

    @Test func withoutAnyPluginToTakeItTheActionIsUndelivered() throws {
        let scratch = try Scratch()
        let plugins = try scratch.probe("bg", [.background]) + scratch.probe("s2", [.foreground], targets: ["b"])
        let result = try scratch.run(plugins, stdin: ndjson(
            Self.message("m1", target: "a"), Self.action("m1", "tap"),
            Self.message("m2", target: "b"), Self.action("m2", "tap"),
            #"{"pushhost":"foreground","screens":["s2"]}"#, Self.action("m2", "tap")))
        #expect(result.status == 0, "\(result.stderr)")
        let report = try result.report()
        try #require(report.count == 6)
        #expect(report[1]["status"] as? String == "undelivered")
        #expect(report[1]["error"] as? String == #"no screen claims target "a", and no other plugin has on_action"#)
        #expect(report[3]["status"] as? String == "undelivered")
        #expect(report[3]["error"] as? String == "screen s2 has no on_action, and no other plugin has on_action")
        #expect(report[5]["status"] as? String == "undelivered")
        #expect(report[5]["error"] as? String == "screen s2 has no on_action")
    }

    @Test func aScreenBuiltAgainstABI10IsNeverCalledForAnAction() throws {
        let scratch = try Scratch()
        let old = try scratch.plugin(
            "app.so",
            ABICompatibilityTests.guarded(PluginSource.probe(name: "app", roles: [.foreground], targets: ["a"])),
            include: ABICompatibilityTests.include10)
        let result = try scratch.run(["--plugin", old, "--set", "app.log=\(scratch.probeLog)", "--foreground", "app"], stdin: ndjson(
            Self.message("m1", target: "a"), Self.action("m1", "tap")))
        #expect(result.status == 0, "\(result.stderr)")
        #expect(scratch.probeCalls() == ["app target m1"])
        let report = try result.report()
        try #require(report.count == 2)
        #expect(report[1]["status"] as? String == "undelivered")
        #expect(report[1]["error"] as? String == "screen app has no on_action")
    }
}
