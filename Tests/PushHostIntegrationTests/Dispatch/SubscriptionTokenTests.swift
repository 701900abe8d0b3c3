import Foundation
import Testing

/// Token events that carry a Web Push subscription's keys, and the null
/// token that removes the stored one (what the unifiedpush plugin sends).
@Suite struct SubscriptionTokenTests {
    static let endpoint = "https://push.example.net/up/a1b2"
    static let keys = #"{"p256dh":"BCVxsr7N_eNgVRqvHtD0zTZsEc6-VV-JvLexhqUzORcxaOzi6-AYWXvTBHm4bjyPjs7Vd8pZGH6SRpkNtoIAiw4","auth":"BTBZMqHH6r4Tts7J_aSIgg"}"#

    @Test func keysAreKeptWithTheTokenAndPrintedAsTheSubscription() throws {
        let scratch = try Scratch()
        let result = try scratch.run(
            try scratch.probe("t", [.token]),
            stdin: ndjson(
                #"{"pushhost":"token","token":"\#(Self.endpoint)","keys":\#(Self.keys)}"#,
                #"{"pushhost":"token","token":"\#(Self.endpoint)","keys":\#(Self.keys)}"#))
        #expect(result.status == 0, "\(result.stderr)")
        #expect(try result.report().map { $0["status"] as? String } == ["stored", "unchanged"])
        #expect(scratch.probeCalls() == ["t token \(Self.endpoint) -"])
        let printed = try Command.pushhost(["token", "--state", scratch.file("state"), "--subscription"])
        #expect(printed.status == 0)
        #expect(printed.stdout == #"{"endpoint":"\#(Self.endpoint)","keys":\#(Self.keys)}"# + "\n")
        let mode = try FileManager.default.attributesOfItem(atPath: scratch.file("state/token.keys"))[.posixPermissions] as? Int
        #expect(mode == 0o600)
    }

    @Test func aTokenWithoutKeysDropsTheKeysOfTheOneBefore() throws {
        let scratch = try Scratch()
        let result = try scratch.run(
            [], stdin: ndjson(#"{"pushhost":"token","token":"T1","keys":\#(Self.keys)}"#, #"{"pushhost":"token","token":"T2"}"#))
        #expect(result.status == 0, "\(result.stderr)")
        let printed = try Command.pushhost(["token", "--state", scratch.file("state"), "--subscription"])
        #expect(printed.status == 1)
        #expect(printed.stderr.contains(#"the token stored in \#(scratch.file("state")) has no Web Push keys (a token event gives them in "keys")"#))
    }

    @Test func aNullTokenRemovesTheStoredOne() throws {
        let scratch = try Scratch()
        let result = try scratch.run(
            try scratch.probe("t", [.token]),
            stdin: ndjson(
                #"{"pushhost":"token","token":"T1","keys":\#(Self.keys)}"#, #"{"pushhost":"token","token":null}"#,
                #"{"pushhost":"token","token":null}"#, #"{"pushhost":"token","token":"T1"}"#))
        #expect(result.status == 0, "\(result.stderr)")
        #expect(try result.report().map { $0["status"] as? String } == ["stored", "removed", "unchanged", "stored"])
        #expect(result.stderr.contains("info pushhost: line 2: the token T1 was removed"))
        // T1 again after the removal is new: the token plugin hears of it twice.
        #expect(scratch.probeCalls() == ["t token T1 -", "t token T1 -"])
        #expect(!FileManager.default.fileExists(atPath: scratch.file("state/token.keys")))
    }

    @Test(arguments: [
        (#"{"pushhost":"token","token":"T","keys":"abc"}"#, #""keys" must be {"p256dh": ..., "auth": ...}, each base64url text"#),
        (#"{"pushhost":"token","token":"T","keys":{"p256dh":"a b","auth":"x"}}"#, #""keys" must be {"p256dh": ..., "auth": ...}, each base64url text"#),
        (#"{"pushhost":"token","token":null,"keys":{"p256dh":"a","auth":"b"}}"#, #""keys" come with a token, not with a null one"#),
        (#"{"pushhost":"token","token":7}"#, #"a token event needs "token": a string (or null, to remove the stored one)"#),
    ])
    func badTokenEventsAreRejectedWithTheReason(record: String, reason: String) throws {
        let scratch = try Scratch()
        let result = try scratch.run([], stdin: record + "\n")
        #expect(result.status == 0)
        let line = try #require(try result.report().first)
        #expect(line["status"] as? String == "rejected")
        #expect((line["error"] as? String)?.contains(reason) == true, "\(line)")
    }
}
