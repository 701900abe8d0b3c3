import Foundation
import Testing

/// The sample process plugins of plugins/process, each on its SDK (Python,
/// Node.js) or none (sh with jq), run by the host behind the walls, the
/// SDKs' folder granted as an installed one would be readable.
@Suite struct SampleProgramTests {
    static func manifest(_ name: String) -> String {
        Paths.packageRoot.appendingPathComponent("plugins/process/\(name)/\(name).process.json").path
    }

    /// The grant of the SDKs' folder, which is outside the samples' own.
    static func sdk(_ name: String) -> [String] {
        ["--set", "\(name).sandbox.read=\(Paths.packageRoot.appendingPathComponent("sdk").path)"]
    }

    @Test func thePythonSampleSuppressesSpamAndKeepsAnInbox() throws {
        let scratch = try Scratch()
        let result = try scratch.run(["--process", Self.manifest("inbox-py")] + Self.sdk("inbox-py"), stdin: ndjson(
            #"{"message_id":"m1","notification":{"title":"Héllo","body":"World"},"data":{"rx_gcm_key_target":"news"}}"#,
            #"{"message_id":"m2","data":{"spam":"1"}}"#,
            #"{"message_id":"m3","priority":"high","data":{}}"#))
        #expect(result.status == 0, "\(result.stderr)")
        #expect(try result.report().map { $0["status"] as? String } == ["delivered", "suppressed", "delivered"])
        let inbox = scratch.read("state/plugins/inbox-py/inbox.log").split(separator: "\n")
        #expect(inbox == [#"["m1", "news", "Héllo", "World", "high"]"#, #"["m3", "", "", "", "high"]"#], "\(result.stderr)")
        #expect(result.stderr.contains("info inbox-py: inbox: m1 'Héllo'"), "\(result.stderr)")
    }

    @Test func theNodeSampleIsAScreenAndKeepsTheToken() throws {
        let scratch = try Scratch()
        let result = try scratch.run(["--process", Self.manifest("notes-node")] + Self.sdk("notes-node"), stdin: ndjson(
            #"{"pushhost":"token","token":"T1"}"#,
            #"{"pushhost":"foreground","screens":["notes-node"]}"#,
            #"{"message_id":"m1","notification":{"title":"A"},"data":{"rx_gcm_key_target":"notes"}}"#,
            #"{"message_id":"m2","notification":{"title":"B"},"data":{"rx_gcm_key_target":"news"}}"#))
        #expect(result.status == 0, "\(result.stderr)")
        #expect(try result.report().filter { $0["event"] == nil }.map { $0["route"] as? String } == ["target", "mismatch"])
        // Its target handler is async: the mismatch call, made at once, may end first.
        #expect(scratch.read("state/plugins/notes-node/notes.log").split(separator: "\n").sorted() == [
            #"["mismatch","m2","news","B",""]"#, #"["target","m1","notes","A",""]"#,
        ])
        #expect(scratch.read("state/plugins/notes-node/token.txt") == "T1\n")
    }

    @Test func theShellSampleReadsCallsWithJq() throws {
        let scratch = try Scratch()
        let result = try scratch.run(["--process", Self.manifest("count-sh")], stdin: ndjson(
            #"{"message_id":"m1","data":{}}"#, #"{"message_id":"m \"2\"","data":{}}"#))
        #expect(result.status == 0, "\(result.stderr)")
        #expect(try result.report().map { $0["status"] as? String } == ["delivered", "delivered"])
        #expect(scratch.read("state/plugins/count-sh/seen.txt") == "m1\nm \"2\"\n")
    }

    @Test func theListingShowsAProcessPluginWithoutStartingIt() throws {
        let listing = try Command.pushhost(["plugins", "--process", Self.manifest("inbox-py")], stdin: "")
        #expect(listing.status == 0, "\(listing.stderr)")
        #expect(listing.stdout.contains("inbox-py 1.0.0 (process) \(Self.manifest("inbox-py"))\n  roles: data, background\n  isolated: yes (a process plugin, always)\n"), "\(listing.stdout)")
        #expect(listing.stdout.contains("  command: python3 inbox.py (in "), "\(listing.stdout)")
    }
}
