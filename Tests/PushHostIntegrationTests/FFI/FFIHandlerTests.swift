import Foundation
import Testing

/// ffi handlers: plain C functions bound by a manifest play the four roles,
/// receive their arguments as bound (paths, literals, defaults, the token),
/// data handlers' returns become verdicts through the manifest's map, and
/// init, fini and the log callback frame the plugin's life.
@Suite struct FFIHandlerTests {
    static func alert(_ id: String, title: String = "Hello", data: String = "{}") -> String {
        #"{"message_id":"\#(id)","notification":{"title":"\#(title)","body":"World"},"data":\#(data)}"#
    }

    static func token(_ text: String) -> String { #"{"pushhost":"token","token":"\#(text)"}"# }

    @Test func backgroundGetsPathsLiteralsAndDefaults() throws {
        let scratch = try Scratch()
        let manifest = try scratch.ffi(handlers: [Legacy.background(body: #"{"value": "fixed body"}"#)])
        let result = try scratch.run(["--ffi", manifest], stdin: ndjson(
            Self.alert("m1", data: #"{"priority":5}"#),
            Self.alert("m2", title: "Bye"),
            Self.alert("m3", data: #"{"priority":"-7"}"#)))
        #expect(result.status == 0, "\(result.stderr)")
        #expect(scratch.legacyHandlerCalls == [
            "legacy_alert title=Hello body=fixed body priority=5",
            "legacy_alert title=Bye body=fixed body priority=3",
            "legacy_alert title=Hello body=fixed body priority=-7",
        ])
        let report = try result.report()
        #expect(report.map { $0["status"] as? String } == ["delivered", "delivered", "delivered"])
        #expect(report.map { $0["route"] as? String } == ["background", "background", "background"])
        #expect(report.map { $0["ui"] as? [String] } == [["legacy"], ["legacy"], ["legacy"]])
    }

    struct VerdictCase: Sendable, CustomTestStringConvertible {
        let label: String
        /// The `verdicts` JSON, or nil for none.
        let verdicts: String?
        /// The `count` member of the message's data, or nil for none.
        let count: String?
        let verdict: String
        let status: String
        let error: String?
        var testDescription: String { label }
    }

    static let map = #"{"0": "continue", "1": "suppress", "-1": "failed", "default": "failed"}"#

    @Test(arguments: [
        VerdictCase(label: "0 continues", verdicts: map, count: "0", verdict: "continue", status: "delivered", error: nil),
        VerdictCase(label: "1 suppresses", verdicts: map, count: "1", verdict: "suppress", status: "suppressed", error: nil),
        VerdictCase(label: "-1 fails", verdicts: map, count: "-1", verdict: "failed", status: "failed",
                    error: "legacy: legacy_check returned -1 (verdict failed)"),
        VerdictCase(label: "7 takes the default", verdicts: map, count: "7", verdict: "failed", status: "failed",
                    error: "legacy: legacy_check returned 7 (verdict failed)"),
        VerdictCase(label: "missing count takes the argument's default 0", verdicts: map, count: nil, verdict: "continue",
                    status: "delivered", error: nil),
        VerdictCase(label: "a default of continue", verdicts: #"{"1": "suppress", "default": "continue"}"#, count: "9",
                    verdict: "continue", status: "delivered", error: nil),
        VerdictCase(label: "no map: 0 continues", verdicts: nil, count: "0", verdict: "continue", status: "delivered", error: nil),
        VerdictCase(label: "no map: 5 fails", verdicts: nil, count: "5", verdict: "failed", status: "failed",
                    error: "legacy: legacy_check returned 5 (verdict failed)"),
    ])
    func dataReturnPicksTheVerdict(_ answer: VerdictCase) throws {
        let scratch = try Scratch()
        let manifest = try scratch.ffi(handlers: [Legacy.data(verdicts: answer.verdicts), Legacy.background()])
        let data = answer.count.map { #"{"count":\#($0)}"# } ?? "{}"
        let result = try scratch.run(["--ffi", manifest], stdin: ndjson(Self.alert("m1", data: data)))
        #expect(result.status == 0, "\(result.stderr)")
        let delivered = answer.status == "delivered"
        #expect(scratch.legacyHandlerCalls == ["legacy_check id=m1 count=\(answer.count ?? "0")"]
            + (delivered ? ["legacy_alert title=Hello body=World priority=3"] : []))
        let line = try #require(try result.report().first)
        #expect(line["status"] as? String == answer.status)
        #expect(line["data"] as? [[String: String]] == [["plugin": "legacy", "verdict": answer.verdict]])
        if let error = answer.error {
            #expect(line["error"] as? String == error)
        } else {
            #expect(line["error"] is NSNull, "\(line)")
        }
    }

    /// Without `verdicts`, a bool return: true continues, false fails.
    @Test func boolDataReturn() throws {
        let scratch = try Scratch()
        let ready = #"{"role": "data", "symbol": "legacy_ready", "returns": "bool", "params": ["string", "bool"], "args": ["id", "data.ready"]}"#
        let manifest = try scratch.ffi(handlers: [ready, Legacy.background()])
        let result = try scratch.run(["--ffi", manifest], stdin: ndjson(
            Self.alert("m1", data: #"{"ready":true}"#), Self.alert("m2", data: #"{"ready":"false"}"#)))
        #expect(result.status == 0, "\(result.stderr)")
        #expect(scratch.legacyHandlerCalls == [
            "legacy_ready id=m1 ready=true", "legacy_alert title=Hello body=World priority=3", "legacy_ready id=m2 ready=false",
        ])
        let report = try result.report()
        #expect(report.map { $0["status"] as? String } == ["delivered", "failed"])
        #expect(report.last?["error"] as? String == "legacy: legacy_ready returned false (verdict failed)")
    }

    /// The screen handler is called as on_target with the whole message as
    /// JSON, only while visible and only for its target.
    @Test func screenGetsItsTargetWithTheWholeMessage() throws {
        let scratch = try Scratch()
        let manifest = try scratch.ffi(handlers: [Legacy.screen])
        func message(_ id: String, _ target: String) -> String {
            #"{"message_id":"\#(id)","notification":{"title":"T \#(id)"},"data":{"rx_gcm_key_target":"\#(target)","n":1}}"#
        }
        let result = try scratch.run(["--ffi", manifest], stdin: ndjson(
            message("m0", "alerts"),
            #"{"pushhost":"foreground","screens":["legacy"]}"#,
            message("m1", "alerts"),
            message("m2", "orders")))
        #expect(result.status == 0, "\(result.stderr)")
        let calls = scratch.legacyHandlerCalls
        try #require(calls.count == 1, "\(calls)")
        let prefix = "legacy_show "
        #expect(calls[0].hasPrefix(prefix))
        let json = try #require(try JSONSerialization.jsonObject(with: Data(calls[0].dropFirst(prefix.count).utf8)) as? [String: Any])
        #expect(json["id"] as? String == "m1")
        #expect(json["target"] as? String == "alerts")
        #expect(json["format"] as? String == "gcm")
        #expect((json["notification"] as? [String: Any])?["title"] as? String == "T m1")
        #expect((json["data"] as? [String: Any])?["n"] as? Int == 1)
        #expect((json["source"] as? [String: Any])?["line"] as? Int == 3)
        #expect(!calls[0].contains("\n") && !calls[0].contains(": "), "not compact: \(calls[0])")
        let report = try result.report()
        let statuses = report.map { ($0["status"] as? String) ?? "" }
        #expect(statuses == ["undelivered", "applied", "delivered", "undelivered"])
        #expect(report[2]["route"] as? String == "target")
        #expect(report[2]["ui"] as? [String] == ["legacy"])
        // Without a mismatch handler, a message for another target reaches no one.
        #expect(report[3]["route"] as? String == "none")
        #expect(report[3]["ui"] as? [String] == [])
    }

    /// A mismatch handler beside the screen is its on_mismatch: on top, the
    /// screen gets the messages for targets no visible screen claims, with
    /// the route mismatch; its own target still goes to the screen handler.
    @Test func mismatchHandlerGetsTheOtherTargets() throws {
        let scratch = try Scratch()
        let mismatch = #"{"role": "mismatch", "symbol": "legacy_alert", "returns": "int32", "params": ["string", "string", "int32"], "args": ["id", "target", {"path": "data.n", "default": -1}]}"#
        let manifest = try scratch.ffi(handlers: [Legacy.screen, mismatch])
        func message(_ id: String, _ target: String?) -> String {
            let key = target.map { #""rx_gcm_key_target":"\#($0)","# } ?? ""
            return #"{"message_id":"\#(id)","data":{\#(key)"n":7}}"#
        }
        let result = try scratch.run(["--ffi", manifest, "--foreground", "legacy"], stdin: ndjson(
            message("m1", "orders"), message("m2", nil), message("m3", "alerts")))
        #expect(result.status == 0, "\(result.stderr)")
        let calls = scratch.legacyHandlerCalls
        try #require(calls.count == 3, "\(calls)")
        #expect(Array(calls.prefix(2)) == ["legacy_alert title=m1 body=orders priority=7", "legacy_alert title=m2 body=(null) priority=7"])
        #expect(calls[2].hasPrefix("legacy_show {"), "\(calls[2])")
        let report = try result.report()
        #expect(report.map { $0["status"] as? String } == ["delivered", "delivered", "delivered"])
        #expect(report.map { $0["route"] as? String } == ["mismatch", "mismatch", "target"])
        #expect(report.map { $0["ui"] as? [String] } == [["legacy"], ["legacy"], ["legacy"]])
    }

    /// A mismatch handler's argument that does not fit fails that message, as a screen's does.
    @Test func mismatchArgumentThatDoesNotFitFailsTheMessage() throws {
        let scratch = try Scratch()
        let mismatch = #"{"role": "mismatch", "symbol": "legacy_alert", "returns": "int32", "params": ["string", "string", "int32"], "args": ["id", "target", "data.n"]}"#
        let manifest = try scratch.ffi(handlers: [Legacy.screen, mismatch])
        let result = try scratch.run(["--ffi", manifest, "--foreground", "legacy"], stdin: ndjson(
            #"{"message_id":"m1","data":{"rx_gcm_key_target":"orders","n":"lots"}}"#,
            #"{"message_id":"m2","data":{"rx_gcm_key_target":"orders","n":2}}"#))
        #expect(result.status == 0, "\(result.stderr)")
        #expect(scratch.legacyHandlerCalls == ["legacy_alert title=m2 body=orders priority=2"])
        let report = try result.report()
        #expect(report.map { $0["status"] as? String } == ["failed", "delivered"])
        #expect(report.first?["error"] as? String == #"legacy: data.n is "lots", which is not an integer (legacy_alert not called)"#)
    }

    @Test func tokenGetsTheTokenAndThePreviousOne() throws {
        let scratch = try Scratch()
        let manifest = try scratch.ffi(handlers: [Legacy.token])
        let result = try scratch.run(["--ffi", manifest], stdin: ndjson(Self.token("T1"), Self.token("T2"), Self.token("T2")))
        #expect(result.status == 0, "\(result.stderr)")
        #expect(scratch.legacyHandlerCalls == ["legacy_token token=T1 previous=(null)", "legacy_token token=T2 previous=T1"])
        #expect(try result.report().map { $0["status"] as? String } == ["stored", "stored", "unchanged"])
    }

    /// init once before anything, with its literals and the log callback;
    /// fini once after everything, however many roles the manifest binds.
    @Test func initAndFiniFrameEveryCallOnce() throws {
        let scratch = try Scratch()
        let manifest = try scratch.ffi(handlers: [Legacy.data(), Legacy.background(), Legacy.screen, Legacy.token])
        let result = try scratch.run(["--ffi", manifest], stdin: ndjson(Self.alert("m1"), Self.token("T1"), Self.alert("m2")))
        #expect(result.status == 0, "\(result.stderr)")
        #expect(scratch.legacyCalls == [
            "legacy_open path=\(scratch.legacyLog) code=0 log=set",
            "legacy_check id=m1 count=0", "legacy_alert title=Hello body=World priority=3",
            "legacy_token token=T1 previous=(null)",
            "legacy_check id=m2 count=0", "legacy_alert title=Hello body=World priority=3",
            "legacy_close",
        ])
    }

    /// Each call of the log callback is one info line under the plugin's name,
    /// from init, from a handler, and from fini.
    @Test func logCallbackWritesUnderThePluginsName() throws {
        let scratch = try Scratch()
        let manifest = try scratch.ffi(handlers: [Legacy.background()])
        let result = try scratch.run(["--ffi", manifest], stdin: ndjson(Self.alert("m1", title: "Fire")))
        #expect(result.status == 0, "\(result.stderr)")
        let lines = result.errorLines.filter { $0.contains("opened ") || $0.contains("alert Fire") || $0.contains("closing now") }
        #expect(lines == ["info legacy: opened \(scratch.legacyLog)", "info legacy: alert Fire", "info legacy: closing now"],
                "\(result.stderr)")
    }

    /// `--plugins DIR` takes `NAME.ffi.json` in name order with the `.so`
    /// files (its library here in a folder below it, by a relative path).
    @Test func pluginsDirectoryFindsTheManifestBesideSharedObjects() throws {
        let scratch = try Scratch()
        for name in ["a", "z"] {
            try scratch.plugin("\(name).so", PluginSource.probe(name: name, roles: [.background]))
        }
        try scratch.ffi(Legacy.manifest([Legacy.background()], log: scratch.legacyLog, library: #""lib/liblegacy.so""#),
                        library: "lib/liblegacy.so")
        let settings = ["--set", "a.log=\(scratch.probeLog)", "--set", "z.log=\(scratch.probeLog)"]
        let result = try scratch.run(["--plugins", scratch.path] + settings, stdin: ndjson(Self.alert("m1")))
        #expect(result.status == 0, "\(result.stderr)")
        #expect(try result.report().first?["ui"] as? [String] == ["a", "legacy", "z"])
        #expect(scratch.probeCalls() == ["a background m1", "z background m1"])
        #expect(scratch.legacyHandlerCalls == ["legacy_alert title=Hello body=World priority=3"])
        let listing = try Command.pushhost(["plugins", "--json", "--plugins", scratch.path])
        #expect(listing.status == 0, "\(listing.stdout)\(listing.stderr)")
        #expect(try jsonLines(listing.stdout).map { $0["name"] as? String } == ["a", "legacy", "z"])
    }

    /// `--ffi FILE` loads after the `--plugin FILE`s, whatever the order on the line.
    @Test func ffiFlagLoadsAfterPluginFiles() throws {
        let scratch = try Scratch()
        let manifest = try scratch.ffi(handlers: [Legacy.background()])
        let probe = try scratch.probe("a", [.background])
        let result = try scratch.run(["--ffi", manifest] + probe, stdin: ndjson(Self.alert("m1")))
        #expect(result.status == 0, "\(result.stderr)")
        #expect(try result.report().first?["ui"] as? [String] == ["a", "legacy"])
    }
}
