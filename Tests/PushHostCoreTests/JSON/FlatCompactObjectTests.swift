import Testing
@testable import PushHostJSON

/// An object copied as written into a process plugin's call must be what
/// its members would write: no whitespace between tokens, no container
/// value, keys plain and none twice, at most 16 of them.
@Suite struct FlatCompactObjectTests {
    static let long = String(repeating: "k", count: 70)

    @Test(arguments: [
        (#"{"a":1,"b":"x y"}"#, true),
        (#"{"a":true,"b":null,"c":-1.5e3,"d":"q\"r"}"#, true),
        ("{}", true),
        (#"{"ab":1,"cd":2,"ef":3}"#, true),
        (#"{"\#(long)1":1,"\#(long)2":2}"#, true),
        (#"{"a": 1}"#, false),
        (#"{"a":1 ,"b":2}"#, false),
        ("{ }", false),
        ("{\"a\":1}\n", true),
        (#"{"a":1,"a":2}"#, false),
        (#"{"ab":1,"cd":2,"ab":3}"#, false),
        (#"{"\#(long)":1,"\#(long)":2}"#, false),
        (#"{"a":{"b":1}}"#, false),
        (#"{"a":[]}"#, false),
        (#"{"\u0061":1}"#, false),
        ("{" + (0..<17).map { #""k\#($0)":0"# }.joined(separator: ",") + "}", false),
        ("{" + (0..<16).map { #""k\#($0)":0"# }.joined(separator: ",") + "}", true),
        ("[1,2]", false),
        (#""x""#, false),
    ])
    func isWhatItsMembersWouldWrite(_ text: String, _ flat: Bool) throws {
        let bytes = Array(text.utf8)
        try bytes.withUnsafeBytes { buffer in
            var reader = JSONReader()
            let document = try reader.parse(buffer)
            #expect(document.root.isFlatCompactObject == flat, "\(text)")
        }
    }
}
