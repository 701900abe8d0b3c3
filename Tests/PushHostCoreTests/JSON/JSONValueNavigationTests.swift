import Testing
@testable import PushHostSystem
@testable import PushHostJSON

@Suite("JSONValue navigation")
struct JSONValueNavigationTests {
    static let document = #"""
    {"to":"tok","data":{"a":[1,2,{"x":null}],"b":"c"},"k\u0065y":1,"\u00e9":2,"😀":3,
     "\uD83D\uDE00x":4,"dup":5,"dup":6,"":7,"tab\t":8,"q\"\\\/":9,"long key with more than eight bytes":10}
    """#

    /// A lookup and the raw text it must find (nil: no such member).
    struct Lookup: Sendable, CustomTestStringConvertible {
        let key: String
        let raw: String?
        var testDescription: String { "\(key) -> \(raw ?? "nil")" }
    }

    static let lookups: [Lookup] = [
        Lookup(key: "to", raw: "tok"),
        Lookup(key: "data", raw: #"{"a":[1,2,{"x":null}],"b":"c"}"#),
        Lookup(key: "key", raw: "1"),
        Lookup(key: "é", raw: "2"),
        Lookup(key: "😀", raw: "3"),
        Lookup(key: "😀x", raw: "4"),
        Lookup(key: "dup", raw: "5"),
        Lookup(key: "", raw: "7"),
        Lookup(key: "tab\t", raw: "8"),
        Lookup(key: "q\"\\/", raw: "9"),
        Lookup(key: "long key with more than eight bytes", raw: "10"),
        Lookup(key: "long key with more than eight byteZ", raw: nil),
        Lookup(key: "k\\u0065y", raw: nil),
        Lookup(key: "ke", raw: nil),
        Lookup(key: "keyy", raw: nil),
        Lookup(key: "\u{E9}x", raw: nil),
        Lookup(key: "😀xx", raw: nil),
        Lookup(key: "a", raw: nil),
        Lookup(key: "x", raw: nil),
        Lookup(key: "tab", raw: nil),
    ]

    @Test("member lookup by String, [UInt8] and raw buffer", arguments: lookups)
    func lookup(_ lookup: Lookup) throws {
        var reader = JSONReader()
        let found = try reader.parse(Self.document) { document in
            let root = document.root
            let byString = root.member(named: lookup.key)?.rawText
            let byBytes = root.member(named: Array(lookup.key.utf8))?.rawText
            let byBuffer = Array(lookup.key.utf8).withUnsafeBytes { root.member(named: $0)?.rawText }
            return [byString, byBytes, byBuffer]
        }
        #expect(found == [lookup.raw, lookup.raw, lookup.raw])
    }

    @Test("member lookup by StaticString and nested paths")
    func nestedLookup() throws {
        var reader = JSONReader()
        try reader.parse(Self.document) { document in
            let data = try #require(document.root.member(named: "data" as StaticString))
            #expect(data.kind == .object)
            #expect(data.count == 2)
            let array = try #require(data.member(named: "a" as StaticString))
            #expect(array.kind == .array)
            #expect(array.count == 3)
            #expect(data.member(named: "b" as StaticString)?.rawText == "c")
            #expect(data.member(named: "x" as StaticString) == nil)
            #expect(document.root.member(named: "key" as StaticString)?.rawText == "1")
            #expect(document.root.count == 12)
        }
    }

    @Test("member lookup on non-objects finds nothing")
    func lookupOnNonObjects() throws {
        var reader = JSONReader()
        try reader.parse(#"[{"a":1},"a",1]"#) { document in
            #expect(document.root.member(named: "a") == nil)
            for element in document.root.elements.dropFirst() {
                #expect(element.member(named: "a") == nil)
            }
            #expect(Array(document.root.elements).first?.member(named: "a")?.rawText == "1")
        }
    }

    @Test("members iterate in order, skipping whole subtrees")
    func members() throws {
        var reader = JSONReader()
        let pairs = try reader.parse(#"{"a":{"x":[1,{"y":2}]},"b":[[],[[]]],"c":"s","d":{}}"#) { document in
            document.root.members.map { ($0.key.rawText, $0.value.kind, $0.value.count) }
        }
        #expect(pairs.map(\.0) == ["a", "b", "c", "d"])
        #expect(pairs.map(\.1) == [.object, .array, .string, .object])
        #expect(pairs.map(\.2) == [1, 2, 0, 0])
    }

    @Test("elements iterate in order, with raw bytes and subtree ends")
    func elements() throws {
        var reader = JSONReader()
        let text = #"[1, [2, [3]], {"a": [4]}, "s\n", true, false, null, -0.5e1, [], {}]"#
        try reader.parse(text) { document in
            let root = document.root
            #expect(root.count == 10)
            #expect(root.subtreeEnd == document.tape.count)
            let elements = Array(root.elements)
            #expect(elements.map(\.rawText) == [
                "1", "[2, [3]]", #"{"a": [4]}"#, #"s\n"#, "true", "false", "null", "-0.5e1", "[]", "{}",
            ])
            #expect(elements.map(\.kind) == [.number, .array, .object, .string, .true, .false, .null, .number, .array, .object])
            #expect(elements.map(\.isEscaped) == [false, false, false, true, false, false, false, false, false, false])
            #expect(elements.map(\.index) == [1, 2, 6, 10, 11, 12, 13, 14, 15, 16])
            #expect(elements[1].subtreeEnd == elements[2].index)
            #expect(Array(elements[1].elements).map(\.rawText) == ["2", "[3]"])
        }
    }

    @Test("members of arrays and elements of objects and scalars are empty")
    func wrongKindIteration() throws {
        var reader = JSONReader()
        try reader.parse(#"[{"a":1},[1,2],"s"]"#) { document in
            let elements = Array(document.root.elements)
            #expect(Array(document.root.members).isEmpty)
            #expect(Array(elements[0].elements).isEmpty)
            #expect(Array(elements[1].members).isEmpty)
            #expect(Array(elements[2].members).isEmpty)
            #expect(Array(elements[2].elements).isEmpty)
        }
    }
}
