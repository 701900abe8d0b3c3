import Foundation
import Testing

/// Per message, an argument the message cannot give: a missing string is
/// NULL (or the default), a number that does not fit fails that message only,
/// with the reason in the report and the function not called; the host goes
/// on with the next message and exits 0.
@Suite struct FFIBadInputTests {
    static func message(_ id: String, _ data: String, title: String? = "Hi") -> String {
        let notification = title.map { #","notification":{"title":"\#($0)"}"# } ?? ""
        return #"{"message_id":"\#(id)","data":\#(data)\#(notification)}"#
    }

    @Test func missingStringIsNullAndMissingDefaultIsTheDefault() throws {
        let scratch = try Scratch()
        let manifest = try scratch.ffi(handlers: [Legacy.background(body: #"{"path": "data.body", "default": "no body"}"#)])
        let result = try scratch.run(["--ffi", manifest], stdin: ndjson(
            Self.message("m1", "{}", title: nil),
            Self.message("m2", #"{"body":"some body","priority":1}"#, title: nil),
            Self.message("m3", #"{"body":null}"#)))
        #expect(result.status == 0, "\(result.stderr)")
        #expect(scratch.legacyHandlerCalls == [
            "legacy_alert title=(null) body=no body priority=3",
            "legacy_alert title=(null) body=some body priority=1",
            "legacy_alert title=Hi body=\(Self.nullBody) priority=3",
        ])
        #expect(try result.report().map { $0["status"] as? String } == ["delivered", "delivered", "delivered"])
    }

    /// What a string param bound with a default gets for a JSON null: the
    /// contract does not say; the host counts null as missing (the default).
    static let nullBody = "no body"

    struct Case: Sendable, CustomTestStringConvertible {
        let label: String
        let handler: String
        let data: String
        let error: String
        var testDescription: String { label }
    }

    static let int8 = #"{"role": "background", "symbol": "legacy_numbers", "params": ["int8", "uint8", "int64", "double", "bool"], "args": ["data.priority", 1, 1, 1.5, true]}"#
    static let doubles = #"{"role": "background", "symbol": "legacy_numbers", "params": ["int8", "uint8", "int64", "double", "bool"], "args": [1, 1, 1, "data.d", "data.b"]}"#
    static let noDefault = Legacy.background().replacingOccurrences(of: #"{"path": "data.priority", "default": 3}"#, with: #""data.priority""#)

    /// The value in a reason as JSON writes it: a number, a boolean or an
    /// object as it is, a string quoted (so "-129", a string, shows as
    /// "-129", and 1.5, a number, as 1.5), with its escapes.
    static let cases: [Case] = [
        Case(label: "300 for int8", handler: int8, data: #"{"priority":300}"#,
             error: "legacy: data.priority is 300, which does not fit int8 (legacy_numbers not called)"),
        Case(label: "-129 for int8", handler: int8, data: #"{"priority":"-129"}"#,
             error: #"legacy: data.priority is "-129", which does not fit int8 (legacy_numbers not called)"#),
        Case(label: "many for int32", handler: Legacy.background(), data: #"{"priority":"many"}"#,
             error: #"legacy: data.priority is "many", which is not an integer (legacy_alert not called)"#),
        Case(label: "1.5 for int32", handler: Legacy.background(), data: #"{"priority":1.5}"#,
             error: "legacy: data.priority is 1.5, which is not an integer (legacy_alert not called)"),
        Case(label: "\"2.5\" for int32", handler: Legacy.background(), data: #"{"priority":"2.5"}"#,
             error: #"legacy: data.priority is "2.5", which is not an integer (legacy_alert not called)"#),
        Case(label: "true for int32", handler: Legacy.background(), data: #"{"priority":true}"#,
             error: "legacy: data.priority is true, which is not an integer (legacy_alert not called)"),
        Case(label: "an object for int32", handler: Legacy.background(), data: #"{"priority":{"p": [1, "x"]}}"#,
             error: #"legacy: data.priority is {"p":[1,"x"]}, which is not an integer (legacy_alert not called)"#),
        Case(label: "a quote and a NUL for int32", handler: Legacy.background(), data: #"{"priority":"1\"\u00002"}"#,
             error: #"legacy: data.priority is "1\"\u00002", which is not an integer (legacy_alert not called)"#),
        Case(label: "1 then a NUL for int32", handler: Legacy.background(), data: #"{"priority":"1\u0000"}"#,
             error: #"legacy: data.priority is "1\u0000", which is not an integer (legacy_alert not called)"#),
        Case(label: "2^31 for int32", handler: Legacy.background(), data: #"{"priority":2147483648}"#,
             error: "legacy: data.priority is 2147483648, which does not fit int32 (legacy_alert not called)"),
        Case(label: "missing without default", handler: noDefault, data: "{}",
             error: "legacy: data.priority is missing and has no default (legacy_alert not called)"),
        Case(label: "text for double", handler: doubles, data: #"{"d":"lots","b":true}"#,
             error: #"legacy: data.d is "lots", which is not a number (legacy_numbers not called)"#),
        Case(label: "yes for bool", handler: doubles, data: #"{"d":1,"b":"yes"}"#,
             error: #"legacy: data.b is "yes", which is not true or false (legacy_numbers not called)"#),
    ]

    @Test(arguments: cases)
    func argumentThatDoesNotFitFailsThatMessageOnly(_ bad: Case) throws {
        let scratch = try Scratch()
        let manifest = try scratch.ffi(handlers: [bad.handler])
        let good = bad.handler == Self.doubles ? #"{"d":2,"b":false}"# : #"{"priority":7}"#
        let result = try scratch.run(["--ffi", manifest], stdin: ndjson(
            Self.message("m1", bad.data), Self.message("m2", good)))
        #expect(result.status == 0, "\(result.stderr)")
        let calls = scratch.legacyHandlerCalls
        #expect(calls.count == 1, "only m2's call: \(calls)")
        let report = try result.report()
        try #require(report.count == 2)
        #expect(report.map { $0["id"] as? String } == ["m1", "m2"])
        #expect(report[0]["status"] as? String == "failed")
        let error = report[0]["error"] as? String ?? ""
        #expect(error == bad.error, "\(report[0])")
        #expect(report[1]["status"] as? String == "delivered")
        #expect(report[1]["error"] is NSNull)
        // Under --strict the failed message counts.
        let strict = try scratch.run(["--ffi", manifest, "--strict"], stdin: ndjson(Self.message("m1", bad.data)))
        #expect(strict.status == 3, "\(strict.stderr)")
    }

    /// The data handler's argument fails: its verdict is failed, with that
    /// reason, and there is no UI stage.
    @Test func dataArgumentThatDoesNotFitIsAFailedVerdict() throws {
        let scratch = try Scratch()
        let manifest = try scratch.ffi(handlers: [Legacy.data(count: #""data.count""#), Legacy.background()])
        let result = try scratch.run(["--ffi", manifest], stdin: ndjson(
            Self.message("m1", #"{"count":"many"}"#),
            Self.message("m2", "{}"),
            Self.message("m3", #"{"count":"0"}"#)))
        #expect(result.status == 0, "\(result.stderr)")
        #expect(scratch.legacyHandlerCalls == ["legacy_check id=m3 count=0", "legacy_alert title=Hi body=(null) priority=3"])
        let report = try result.report()
        try #require(report.count == 3)
        #expect(report.map { $0["status"] as? String } == ["failed", "failed", "delivered"])
        #expect(report.map { $0["route"] as? String } == ["none", "none", "background"])
        #expect(report.map { $0["data"] as? [[String: String]] } == [
            [["plugin": "legacy", "verdict": "failed"]], [["plugin": "legacy", "verdict": "failed"]], [["plugin": "legacy", "verdict": "continue"]],
        ])
        #expect(report[0]["error"] as? String == #"legacy: data.count is "many", which is not an integer (legacy_check not called)"#)
        #expect(report[1]["error"] as? String == "legacy: data.count is missing and has no default (legacy_check not called)")
    }

    /// A failed message in a screen handler's argument: the screen is not called.
    @Test func screenArgumentThatDoesNotFitFailsTheMessage() throws {
        let scratch = try Scratch()
        let screen = #"{"role": "screen", "targets": ["alerts"], "symbol": "legacy_alert", "returns": "int32", "params": ["string", "string", "int32"], "args": ["id", "target", "data.level"]}"#
        let manifest = try scratch.ffi(handlers: [screen])
        let result = try scratch.run(["--ffi", manifest, "--foreground", "legacy"], stdin: ndjson(
            Self.message("m1", #"{"rx_gcm_key_target":"alerts","level":"high"}"#),
            Self.message("m2", #"{"rx_gcm_key_target":"alerts","level":2}"#)))
        #expect(result.status == 0, "\(result.stderr)")
        #expect(scratch.legacyHandlerCalls == ["legacy_alert title=m2 body=alerts priority=2"])
        let report = try result.report()
        #expect(report.map { $0["status"] as? String } == ["failed", "delivered"])
        #expect(report.first?["error"] as? String == #"legacy: data.level is "high", which is not an integer (legacy_alert not called)"#)
    }
}
