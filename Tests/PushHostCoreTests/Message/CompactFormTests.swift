import Foundation
import Testing
@testable import PushHostJSON
@testable import PushHostMessage
import PushHostSystem

/// The message a process plugin's call carries is the normalized message
/// less its null members and its source, for every shape the normalization
/// tests load (escaped and repeated keys included, where the data object
/// is not copied as written).
@Suite struct CompactFormTests {
    static func object(_ bytes: [UInt8]) throws -> NSDictionary {
        try #require(try JSONSerialization.jsonObject(with: Data(bytes)) as? NSDictionary)
    }

    @Test("the compact message is the normalized one less nulls and source", arguments: NormalizedFormTests.payloads)
    func compactIsNormalizedLessNulls(_ payload: NormalizedFormTests.Payload) throws {
        let (normalized, compact) = try withLoadedMessage(payload.text, platform: payload.platform, targetKey: payload.targetKey) { message in
            var compact: [UInt8] = []
            message.appendCompactJSON(to: &compact)
            return (message.normalizedJSON(), compact)
        }
        let expected = try Self.object(normalized).mutableCopy() as! NSMutableDictionary
        expected.removeObject(forKey: "source")
        for case let (key as String, value) in expected where value is NSNull { expected.removeObject(forKey: key) }
        #expect(try Self.object(compact) == expected, "\(String(decoding: compact, as: UTF8.self))")
        #expect(!compact.contains(UInt8(ascii: "\n")))
    }

    /// The call's writer takes a shorter way for the common message (a
    /// flat data object, no notification, topic or collapse key): its bytes
    /// are those of the general writing, for every shape.
    @Test("the buffer's writing is the general one, byte for byte", arguments: NormalizedFormTests.payloads.map(\.text) + [
        #"{"message_id":7,"data":{"rx_gcm_key_target":12,"t":"a\"b"},"priority":"high","content_available":true}"#,
        #"{"message_id":"m\u00e9","data":{"rx_gcm_key_target":"x\\y","n":null,"b":false}}"#,
        #"{"message_id":true,"data":{"a":1}}"#,
        #"{"data":{"a":1,"a":2}}"#,
        #"{"data":{"a":{"b":1}},"to":"/topics/news"}"#,
        #"{"data":{}}"#,
    ])
    func bufferWritesAsTheGeneralWriting(_ text: String) throws {
        let (general, buffered) = try withLoadedMessage(text) { message in
            var general: [UInt8] = []
            message.appendCompactJSON(to: &general)
            var buffer = ByteBuffer(capacity: 16)
            buffer.append(ascii: "prefix")
            message.appendCompactJSON(to: &buffer)
            return (general, Array(buffer.bytes))
        }
        #expect(String(decoding: buffered, as: UTF8.self) == "prefix" + String(decoding: general, as: UTF8.self))
    }

    /// A spool file's record may span lines: the call it makes is still one
    /// line, so that no member of a message can forge another call.
    @Test("a record written over several lines makes a message of one line")
    func recordOverLinesIsOneLine() throws {
        let text = "{\n \"message_id\": \"m1\",\n \"data\": {\n  \"k\": \"v\",\r\n\t\"x\": [1,\n 2]\n }\n}"
        let compact = try withLoadedMessage(text) { message in
            var compact: [UInt8] = []
            message.appendCompactJSON(to: &compact)
            return compact
        }
        #expect(String(decoding: compact, as: UTF8.self) == #"{"id":"m1","format":"gcm","priority":"normal","content_available":false,"data":{"k":"v","x":[1,2]}}"#)
    }

    @Test("a data object is copied as written only when its keys are few, plain and distinct")
    func distinctPlainKeys() throws {
        for (text, plain) in [(#"{"a":1,"b":2}"#, true), (#"{"a":1,"a":2}"#, false), (#"{"\u0061":1,"b":2}"#, false), ("{}", true),
                              ("{" + (0..<17).map { #""k\#($0)":0"# }.joined(separator: ",") + "}", false)] {
            let bytes = Array(text.utf8)
            try bytes.withUnsafeBytes { buffer in
                var reader = JSONReader()
                let document = try reader.parse(buffer)
                #expect(Message.hasDistinctPlainKeys(document.root) == plain, "\(text)")
            }
        }
    }
}
