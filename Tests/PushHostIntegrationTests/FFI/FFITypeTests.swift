import Foundation
import Testing

/// Parameters beyond int32 and string: bytes arrive as a pointer and its
/// exact length, numbers and bools are converted from JSON numbers,
/// booleans and numeric strings into the C type the manifest names.
@Suite struct FFITypeTests {
    static let bytes = #"{"role": "background", "symbol": "legacy_bytes", "params": ["bytes"], "args": ["data.blob"]}"#

    @Test func bytesGetThePointerAndTheLengthInBytes() throws {
        let scratch = try Scratch()
        let manifest = try scratch.ffi(handlers: [Self.bytes])
        let text = "héllo wörld"
        let result = try scratch.run(["--ffi", manifest], stdin: ndjson(
            #"{"message_id":"m1","data":{"blob":"\#(text)"}}"#,
            #"{"message_id":"m2","data":{"other":1}}"#,
            #"{"message_id":"m3","data":{"blob":{"a": [1, 2]}}}"#,
            #"{"message_id":"m4","data":{"blob":""}}"#))
        #expect(result.status == 0, "\(result.stderr)")
        #expect(scratch.legacyHandlerCalls == [
            "legacy_bytes length=\(text.utf8.count) data=\(text)",
            "legacy_bytes length=0 data=(null)",
            #"legacy_bytes length=11 data={"a":[1,2]}"#,
            "legacy_bytes length=0 data=",
        ])
    }

    /// A NUL inside a value (`\u0000` in the JSON): a bytes parameter gets
    /// the whole value and its true length, from a path and from a literal; a
    /// string parameter, which would end at the NUL, is not called, and the
    /// message fails with the reason while the next one goes on.
    @Test func aNULInsideAValue() throws {
        let scratch = try Scratch()
        let literal = #"{"role": "data", "symbol": "legacy_bytes", "params": ["bytes"], "args": [{"value": "x\u0000y"}]}"#
        let manifest = try scratch.ffi(handlers: [literal, Self.bytes])
        let result = try scratch.run(["--ffi", manifest], stdin: ndjson(
            #"{"message_id":"m1","data":{"blob":"ab\u0000cd"}}"#,
            #"{"message_id":"m2","data":{"blob":"\u0000"}}"#))
        #expect(result.status == 0, "\(result.stderr)")
        #expect(scratch.legacyHandlerCalls == [
            "legacy_bytes length=3 data=x\u{0}y", "legacy_bytes length=5 data=ab\u{0}cd",
            "legacy_bytes length=3 data=x\u{0}y", "legacy_bytes length=1 data=\u{0}",
        ])
        #expect(try result.report().map { $0["status"] as? String } == ["delivered", "delivered"])

        let strings = try Scratch()
        let titles = try strings.ffi(handlers: [Legacy.background(body: #""data.body""#)])
        let refused = try strings.run(["--ffi", titles], stdin: ndjson(
            #"{"message_id":"m1","notification":{"title":"t"},"data":{"body":"ab\u0000cd"}}"#,
            #"{"message_id":"m2","notification":{"title":"t"},"data":{"body":"abcd"}}"#))
        #expect(refused.status == 0, "\(refused.stderr)")
        #expect(strings.legacyHandlerCalls == ["legacy_alert title=t body=abcd priority=3"])
        let report = try refused.report()
        #expect(report.map { $0["status"] as? String } == ["failed", "delivered"])
        #expect(report.first?["error"] as? String
                == #"legacy: data.body is "ab\u0000cd", which holds a NUL byte, where a string would end (legacy_alert not called)"#)
    }

    /// Bytes bound to "message": the whole normalized message, as the json param gets it.
    @Test func bytesBoundToTheWholeMessage() throws {
        let scratch = try Scratch()
        let whole = #"{"role": "background", "symbol": "legacy_bytes", "params": ["bytes"], "args": ["message"]}"#
        let manifest = try scratch.ffi(handlers: [whole])
        let result = try scratch.run(["--ffi", manifest], stdin: ndjson(#"{"message_id":"m1","data":{"k":"v"}}"#))
        #expect(result.status == 0, "\(result.stderr)")
        let call = try #require(scratch.legacyHandlerCalls.first)
        let parts = call.split(separator: " ", maxSplits: 2).map(String.init)
        try #require(parts.count == 3 && parts[2].hasPrefix("data="), "\(call)")
        let json = String(parts[2].dropFirst("data=".count))
        #expect(parts[1] == "length=\(json.utf8.count)")
        let object = try #require(try JSONSerialization.jsonObject(with: Data(json.utf8)) as? [String: Any])
        #expect(object["id"] as? String == "m1")
        #expect((object["data"] as? [String: Any])?["k"] as? String == "v")
    }

    static let numbers = #"""
        {"role": "background", "symbol": "legacy_numbers", "params": ["int8", "uint8", "int64", "double", "bool"],
         "args": ["data.a", "data.b", "data.c", {"path": "data.d", "default": 0.5}, {"path": "data.e", "default": false}]}
        """#

    @Test func numbersAndBoolsTakeTheirCTypes() throws {
        let scratch = try Scratch()
        let manifest = try scratch.ffi(handlers: [Self.numbers])
        let result = try scratch.run(["--ffi", manifest], stdin: ndjson(
            #"{"message_id":"m1","data":{"a":-128,"b":"255","c":"9223372036854775807","d":2.5,"e":"true"}}"#,
            #"{"message_id":"m2","data":{"a":"127","b":0,"c":-42,"d":"0.25","e":true}}"#,
            #"{"message_id":"m3","data":{"a":0,"b":1,"c":"-9223372036854775808"}}"#))
        #expect(result.status == 0, "\(result.stderr)")
        #expect(scratch.legacyHandlerCalls == [
            "legacy_numbers int8=-128 uint8=255 int64=9223372036854775807 double=2.5 bool=true",
            "legacy_numbers int8=127 uint8=0 int64=-42 double=0.25 bool=true",
            "legacy_numbers int8=0 uint8=1 int64=-9223372036854775808 double=0.5 bool=false",
        ])
        #expect(try result.report().map { $0["status"] as? String } == ["delivered", "delivered", "delivered"])
    }

    /// A string param bound to a number, a bool or an object gets its JSON text.
    @Test func stringParamGetsTheJSONTextOfOtherValues() throws {
        let scratch = try Scratch()
        let manifest = try scratch.ffi(handlers: [Legacy.background(body: #""data.body""#)])
        let result = try scratch.run(["--ffi", manifest], stdin: ndjson(
            #"{"message_id":"m1","notification":{"title":"a \"quoted\" title"},"data":{"body":12.5}}"#,
            #"{"message_id":"m2","notification":{"title":"t"},"data":{"body":true}}"#,
            #"{"message_id":"m3","notification":{"title":"t"},"data":{"body":{"x": [1, "y"]}}}"#))
        #expect(result.status == 0, "\(result.stderr)")
        #expect(scratch.legacyHandlerCalls == [
            #"legacy_alert title=a "quoted" title body=12.5 priority=3"#,
            "legacy_alert title=t body=true priority=3",
            #"legacy_alert title=t body={"x":[1,"y"]} priority=3"#,
        ])
    }
}
