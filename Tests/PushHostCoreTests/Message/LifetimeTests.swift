import Testing
@testable import PushHostJSON
@testable import PushHostMessage

/// A sender's stated lifetime, read as each shape states it: whole seconds
/// take a fast path, everything else the general reading, and both agree.
@Suite struct LifetimeTests {
    static func read(_ json: String, _ form: Lifetime.Form) throws -> Lifetime {
        let bytes = Array(json.utf8)
        return try bytes.withUnsafeBytes { buffer in
            var reader = JSONReader()
            let document = try reader.parse(buffer)
            return Lifetime(document.root, as: form)
        }
    }

    @Test(arguments: [
        ("86400", Lifetime.Form.seconds, Lifetime.seconds(86400)),
        (#""86400""#, .seconds, .seconds(86400)),
        (#""007""#, .seconds, .seconds(7)),
        ("0", .seconds, .seconds(0)),
        ("2.5", .seconds, .seconds(2.5)),
        (#""\u0031\u0030""#, .seconds, .seconds(10)),
        ("999999999999999", .seconds, .seconds(999_999_999_999_999)),
        ("1234567890123456", .seconds, .seconds(1_234_567_890_123_456)),
        ("-5", .seconds, .unlimited),
        ("1e3", .seconds, .unlimited),
        (#""""#, .seconds, .unlimited),
        (#"" 60""#, .seconds, .unlimited),
        ("true", .seconds, .unlimited),
        (#""86400s""#, .duration, .seconds(86400)),
        (#""3.5s""#, .duration, .seconds(3.5)),
        ("86400", .duration, .unlimited),
        (#""86400""#, .duration, .unlimited),
        (#""s""#, .duration, .unlimited),
        ("1700000000", .epoch, .until(1_700_000_000)),
        (#""1700000000""#, .epoch, .until(1_700_000_000)),
        ("0", .epoch, .seconds(0)),
        ("1.5", .epoch, .unlimited),
    ])
    func readsWhatTheSenderStated(_ json: String, _ form: Lifetime.Form, _ expected: Lifetime) throws {
        #expect(try Self.read(json, form) == expected, "\(json)")
    }
}
