import Foundation
import Testing

/// The UI stage takes exactly one route: background, target, mismatch, or
/// none (undelivered), chosen by the app state that the host events set.
@Suite struct RouteTests {
    /// Two screens (s1 claims a, s2 claims b) and a background plugin.
    static func app(_ scratch: Scratch) throws -> [String] {
        try scratch.probe("s1", [.foreground], targets: ["a"])
            + scratch.probe("s2", [.foreground], targets: ["b", "c"])
            + scratch.probe("bg", [.background])
    }

    static func message(_ id: String, target: String? = nil) -> String {
        let data = target.map { #"{"rx_gcm_key_target":"\#($0)"}"# } ?? #"{"k":"v"}"#
        return #"{"message_id":"\#(id)","data":\#(data)}"#
    }

    @Test func backgroundCallsEveryBackgroundPluginInLoadOrder() throws {
        let scratch = try Scratch()
        let plugins = try scratch.probe("zeta", [.background]) + scratch.probe("alpha", [.background])
            + scratch.probe("s1", [.foreground], targets: ["a"]) + scratch.probe("mid", [.background, .token])
        let result = try scratch.run(plugins, stdin: ndjson(Self.message("m1", target: "a"), Self.message("m2")))
        #expect(result.status == 0, "\(result.stderr)")
        #expect(scratch.probeCalls() == [
            "zeta background m1", "alpha background m1", "mid background m1",
            "zeta background m2", "alpha background m2", "mid background m2",
        ])
        let report = try result.report()
        try #require(report.count == 2)
        for (line, id) in zip(report, ["m1", "m2"]) {
            #expect(line["id"] as? String == id)
            #expect(line["status"] as? String == "delivered")
            #expect(line["route"] as? String == "background")
            #expect(line["ui"] as? [String] == ["zeta", "alpha", "mid"])
            #expect(line["error"] is NSNull)
        }
        #expect(report[0]["target"] as? String == "a")
        #expect(report[1]["target"] is NSNull)
    }

    @Test func targetGoesToTheScreenThatClaimsIt() throws {
        let scratch = try Scratch()
        let result = try scratch.run(try Self.app(scratch), stdin: ndjson(
            #"{"pushhost":"foreground","screens":["s1"]}"#,
            Self.message("m1", target: "a")))
        #expect(result.status == 0, "\(result.stderr)")
        #expect(scratch.probeCalls() == ["s1 target m1"])
        let report = try result.report()
        try #require(report.count == 2)
        #expect(report[0]["event"] as? String == "foreground")
        #expect(report[0]["status"] as? String == "applied")
        #expect(report[0]["screens"] as? [String] == ["s1"])
        #expect(report[1]["route"] as? String == "target")
        #expect(report[1]["status"] as? String == "delivered")
        #expect(report[1]["ui"] as? [String] == ["s1"])
    }

    @Test func targetMatchedOnTheSecondVisibleScreen() throws {
        let scratch = try Scratch()
        let result = try scratch.run(try Self.app(scratch), stdin: ndjson(
            #"{"pushhost":"foreground","screens":["s1","s2"]}"#,
            Self.message("m1", target: "c"),
            #"{"pushhost":"foreground","screens":["s2","s1"]}"#,
            Self.message("m2", target: "a")))
        #expect(result.status == 0, "\(result.stderr)")
        #expect(scratch.probeCalls() == ["s2 target m1", "s1 target m2"])
        let report = try result.report()
        try #require(report.count == 4)
        #expect(report[1]["route"] as? String == "target")
        #expect(report[1]["ui"] as? [String] == ["s2"])
        #expect(report[3]["ui"] as? [String] == ["s1"])
    }

    @Test func noMatchingScreenGoesToTheTopScreensMismatch() throws {
        let scratch = try Scratch()
        let result = try scratch.run(try Self.app(scratch), stdin: ndjson(
            #"{"pushhost":"foreground","screens":["s2","s1"]}"#,
            Self.message("m1", target: "elsewhere"),
            Self.message("m2")))
        #expect(result.status == 0, "\(result.stderr)")
        #expect(scratch.probeCalls() == ["s2 mismatch m1", "s2 mismatch m2"])
        let report = try result.report()
        try #require(report.count == 3)
        for line in report.dropFirst() {
            #expect(line["route"] as? String == "mismatch")
            #expect(line["status"] as? String == "delivered")
            #expect(line["ui"] as? [String] == ["s2"])
        }
        #expect(report[1]["target"] as? String == "elsewhere")
    }

    @Test func noBackgroundPluginMeansUndelivered() throws {
        let scratch = try Scratch()
        let plugins = try scratch.probe("s1", [.foreground], targets: ["a"]) + scratch.probe("d", [.data])
        let result = try scratch.run(plugins, stdin: ndjson(Self.message("m1", target: "a")))
        #expect(result.status == 0, "\(result.stderr)")
        #expect(scratch.probeCalls() == ["d data m1"])
        let line = try #require(try result.report().first)
        #expect(line["status"] as? String == "undelivered")
        #expect(line["route"] as? String == "none")
        #expect(line["ui"] as? [String] == [])
        #expect(line["data"] as? [[String: String]] == [["plugin": "d", "verdict": "continue"]])
    }

    @Test func unknownScreenRejectsTheEventAndKeepsTheState() throws {
        let scratch = try Scratch()
        let result = try scratch.run(try Self.app(scratch), stdin: ndjson(
            #"{"pushhost":"foreground","screens":["s1"]}"#,
            #"{"pushhost":"foreground","screens":["s2","nosuch"]}"#,
            Self.message("m1", target: "b")))
        #expect(result.status == 0, "\(result.stderr)")
        // Still s1 alone: not s2, and not the background.
        #expect(scratch.probeCalls() == ["s1 mismatch m1"])
        let report = try result.report()
        try #require(report.count == 3)
        #expect(report[1]["event"] as? String == "foreground")
        #expect(report[1]["status"] as? String == "rejected")
        let error = try #require(report[1]["error"] as? String)
        #expect(error.contains(#"no screen plugin is named "nosuch""#), "\(error)")
        #expect((report[1]["source"] as? [String: Any])?["line"] as? Int == 2)
        #expect(result.stderr.contains(#"rejected line 2: no screen plugin is named "nosuch" (screens: s1, s2)"#), "\(result.stderr)")
        #expect(report[2]["route"] as? String == "mismatch")
    }

    @Test func screenIsShortForOneScreen() throws {
        let scratch = try Scratch()
        let result = try scratch.run(try Self.app(scratch), stdin: ndjson(
            #"{"pushhost":"foreground","screen":"s2"}"#,
            Self.message("m1", target: "b"),
            Self.message("m2", target: "a")))
        #expect(result.status == 0, "\(result.stderr)")
        #expect(scratch.probeCalls() == ["s2 target m1", "s2 mismatch m2"])
        let report = try result.report()
        #expect(report.first?["screens"] as? [String] == ["s2"])
    }

    @Test func noVisibleScreenAndTheBackgroundEventBothMeanBackground() throws {
        let scratch = try Scratch()
        let result = try scratch.run(try Self.app(scratch), stdin: ndjson(
            #"{"pushhost":"foreground","screens":[]}"#,
            Self.message("m1", target: "a"),
            #"{"pushhost":"foreground","screens":["s1"]}"#,
            Self.message("m2", target: "a"),
            #"{"pushhost":"background"}"#,
            Self.message("m3", target: "a")))
        #expect(result.status == 0, "\(result.stderr)")
        #expect(scratch.probeCalls() == ["bg background m1", "s1 target m2", "bg background m3"])
        let report = try result.report()
        try #require(report.count == 6)
        #expect(report.map { $0["route"] as? String } == [nil, "background", nil, "target", nil, "background"])
        #expect(report[4]["event"] as? String == "background")
        #expect(report[4]["status"] as? String == "applied")
    }

    @Test func foregroundFlagSetsTheStartState() throws {
        let scratch = try Scratch()
        let result = try scratch.run(try Self.app(scratch) + ["--foreground", "s1,s2"], stdin: ndjson(
            Self.message("m1", target: "b"),
            Self.message("m2", target: "zzz")))
        #expect(result.status == 0, "\(result.stderr)")
        #expect(scratch.probeCalls() == ["s2 target m1", "s1 mismatch m2"])
    }

    @Test func foregroundFlagNamingAnUnknownScreenIsASetupError() throws {
        let scratch = try Scratch()
        let result = try scratch.run(try Self.app(scratch) + ["--foreground", "s1,nosuch"], stdin: ndjson(Self.message("m1", target: "a")))
        #expect(result.status == 1)
        #expect(result.stderr.contains(#"--foreground nosuch: no screen plugin is named "nosuch""#), "\(result.stderr)")
        #expect(result.stdout.isEmpty)
        // The plugins were created, so they are destroyed; no message reached them.
        #expect(scratch.probeCalls().isEmpty)
        #expect(Set(scratch.probeLines().map(\.text)) == ["s1 destroy", "s2 destroy", "bg destroy"])
    }
}
