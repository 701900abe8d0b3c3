import Testing
@testable import PushHostSystem
@testable import PushHostJSON

@Suite("JSONReader reuse")
struct JSONReaderReuseTests {
    @Test("many documents in a row give independent results")
    func manyDocuments() throws {
        var reader = JSONReader()
        for i in 0..<2_000 {
            let padding = String(repeating: "p", count: i % 300)
            let text = #"{"i":\#(i),"s":"v\#(i)\n","pad":"\#(padding)","list":[\#(i % 7 == 0 ? "" : "1,2,3")]}"#
            let (index, string, count, tokens) = try reader.parse(text) { document in
                (document.root.member(named: "i")?.rawText,
                 document.root.member(named: "s")?.unescaped,
                 document.root.member(named: "list")?.count,
                 document.tape.count)
            }
            #expect(index == "\(i)")
            #expect(string == Array("v\(i)\n".utf8))
            #expect(count == (i % 7 == 0 ? 0 : 3))
            #expect(tokens == (i % 7 == 0 ? 9 : 12))
        }
    }

    @Test("errors, growth and shrinking do not leak state between parses")
    func mixedSequence() throws {
        var reader = JSONReader()
        let big = "[" + Array(repeating: "[1,\"x\"]", count: 5_000).joined(separator: ",") + "]"
        let steps: [(text: String, result: String)] = [
            ("[1,2", "expected ',' or ']' at byte 4"),
            (#"{"a":[1,2]}"#, #"{"a":[1,2]}"#),
            (big, "5000"),
            ("{\"b\": [ true ]}", #"{"b":[true]}"#),
            (String(repeating: "[", count: 70), "nesting deeper than 64 levels at byte 64"),
            ("\"s\"", #""s""#),
            (String(repeating: "[", count: 64) + String(repeating: "]", count: 64), String(repeating: "[", count: 64) + String(repeating: "]", count: 64)),
            ("", "expected a value at byte 0"),
            ("7", "7"),
        ]
        for step in steps {
            let result: String
            do {
                result = try reader.parse(step.text) { document in
                    document.tape.count > 1_000 ? "\(document.root.count)" : document.root.compact
                }
            } catch let error as JSONError {
                result = error.description
            }
            #expect(result == step.result)
        }
    }
}
