import Testing
@testable import PushHostMessage

/// Merging a normalized object from its parts, at every size: few members
/// (compared one by one) and many (found through a table) must give the
/// same object, byte for byte: first-seen order, the last value of a
/// repeated key, escaped keys equal to their unescaped spelling.
@Suite struct MergedMembersTests {
    /// One payload: its `data` members as written (key as it appears
    /// between the quotes, value as JSON), in the shape `wrap` puts them in.
    struct Case: Sendable, CustomTestStringConvertible {
        let label: String
        let platform: Platform?
        /// The payload, given the members of each part as JSON object bodies.
        let payload: @Sendable ([String]) -> String
        /// The members of each part, in order; a later part wins.
        let parts: [[(key: String, value: String)]]
        var testDescription: String { label }

        /// The expected `data`: each unescaped key once, where it was first
        /// seen, with the last value given for it.
        var expectedData: String {
            var order: [String] = []
            var values: [String: String] = [:]
            for part in parts {
                for (key, value) in part {
                    let plain = Self.unescape(key)
                    if values[plain] == nil { order.append(plain) }
                    values[plain] = value
                }
            }
            return "{" + order.map { #""\#($0)":\#(values[$0]!)"# }.joined(separator: ",") + "}"
        }

        /// The JSON object body of one part.
        static func body(_ part: [(key: String, value: String)]) -> String {
            part.map { #""\#($0.key)":\#($0.value)"# }.joined(separator: ",")
        }

        /// `\u00XX` escapes of ASCII letters, the only ones the cases use.
        static func unescape(_ key: String) -> String {
            var out = ""
            var rest = Substring(key)
            while let range = rest.range(of: "\\u00") {
                out += rest[..<range.lowerBound]
                let hex = rest[range.upperBound...].prefix(2)
                out.append(Character(Unicode.Scalar(UInt8(hex, radix: 16)!)))
                rest = rest[range.upperBound...].dropFirst(2)
            }
            return out + rest
        }
    }

    /// `count` members `k0`, `k1`, ... whose values are their positions.
    static func keys(_ count: Int, from first: Int = 0, value: (Int) -> String = { String($0) }) -> [(key: String, value: String)] {
        (first..<first + count).map { ("k\($0)", value($0)) }
    }

    /// `part` with every `every`-th member written again at the end, with another value.
    static func repeating(_ part: [(key: String, value: String)], every: Int) -> [(key: String, value: String)] {
        part + part.enumerated().filter { $0.offset % every == 0 }.map { ($0.element.key, #""again \#($0.offset)""#) }
    }

    static let gcm: @Sendable ([String]) -> String = { #"{"data":{\#($0[0])}}"# }

    static let cases: [Case] = [
        Case(label: "one member", platform: nil, payload: gcm, parts: [keys(1)]),
        Case(label: "16 members, one repeated", platform: nil, payload: gcm, parts: [repeating(keys(15), every: 100)]),
        Case(label: "17 members: the table takes over", platform: nil, payload: gcm, parts: [keys(17)]),
        Case(label: "17 members, the first repeated last", platform: nil, payload: gcm, parts: [repeating(keys(17), every: 100)]),
        Case(label: "5,000 members, every 7th repeated", platform: nil, payload: gcm, parts: [repeating(keys(5_000), every: 7)]),
        Case(label: "escaped keys equal plain ones, across the table", platform: nil, payload: gcm, parts: [
            keys(20) + [(#"\u006b3"#, "true"), (#"\u006B19"#, "null"), (#"\u0078"#, "[1,{\"a\":2}]")],
        ]),
        Case(label: "bare: the whole object, repeated keys", platform: nil, payload: { "{\($0[0])}" },
             parts: [repeating(keys(40), every: 3)]),
        Case(label: "APNs: every key but aps, many", platform: nil,
             payload: { #"{"aps":{"alert":"hi"},\#($0[0])}"# }, parts: [repeating(keys(30), every: 4)]),
        Case(label: "FCM v1 on APNs: the payload's keys over the common data", platform: .apns,
             payload: { #"{"message":{"data":{\#($0[0])},"apns":{"payload":{\#($0[1])}}}}"# },
             parts: [keys(25), repeating(keys(30, from: 10, value: { #""apns \#($0)""# }), every: 5)]),
        Case(label: "FCM v1 on APNs: few keys, overlapping", platform: .apns,
             payload: { #"{"message":{"data":{\#($0[0])},"apns":{"payload":{\#($0[1])}}}}"# },
             parts: [keys(3), keys(2, from: 1, value: { #""apns \#($0)""# })]),
    ]

    @Test(arguments: cases)
    func mergedDataIsTheReferenceMerge(_ shape: Case) throws {
        let payload = shape.payload(shape.parts.map(Case.body))
        let (json, data) = try Self.normalize(payload, platform: shape.platform)
        #expect(data == shape.expectedData)
        #expect(json.contains(#","data":\#(shape.expectedData),"#))
    }

    /// A key repeated inside one object: `message_get` finds its first value
    /// (as it always has), the merged object keeps its last one.
    @Test func aRepeatedKeyInOneObject() throws {
        let part = Self.repeating(Self.keys(40), every: 39)
        let (_, data, first) = try Self.normalize(Self.gcm([Case.body(part)]), platform: nil, path: "data.k39")
        #expect(first == "39")
        #expect(data.contains(#""k39":"again 39""#))
    }

    /// The normalized JSON, its `data` as `message_get(m, "data")` gives it,
    /// and the value at `path`.
    static func normalize(_ payload: String, platform: Platform?, path: String = "id") throws -> (json: String, data: String, value: String?) {
        let (json, values) = try PushHostCoreTests.normalize(payload, platform: platform, paths: ["data", path])
        return (json, values[0] ?? "", values[1])
    }

    static func normalize(_ payload: String, platform: Platform?) throws -> (json: String, data: String) {
        let (json, data, _) = try normalize(payload, platform: platform, path: "id")
        return (json, data)
    }
}
