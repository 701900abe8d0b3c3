import Foundation
import Testing

/// The README's Python handler, as its author follows it: the manifest and
/// the program cut out of the README, the SDK's one file beside the
/// program, and the README's command, behind the walls.
@Suite struct ReadmeProcessPluginTests {
    @Test func readmePythonHandlerRunsAsShown() throws {
        let readme = try String(contentsOf: Paths.packageRoot.appendingPathComponent("README.md"), encoding: .utf8)
        let blocks = readme.components(separatedBy: "```")
        let manifest = try #require(blocks.first { $0.hasPrefix("json\n{\"command\": [\"python3\", \"inbox/main.py\"]") }).dropFirst(5)
        let program = try #require(blocks.first { $0.hasPrefix("python\nimport pushhost\n") }).dropFirst(7)
        let command = try #require(blocks.first { $0.contains("pushhost run --process inbox.process.json") })
            .split(separator: "\n").first { $0.hasPrefix("pushhost run") }
        #expect(command == "pushhost run --process inbox.process.json --report - < messages.ndjson")

        let scratch = try Scratch()
        try scratch.write("inbox.process.json", String(manifest))
        try scratch.write("inbox/main.py", String(program))
        try scratch.write("inbox/pushhost.py", try String(contentsOf: Paths.packageRoot.appendingPathComponent("sdk/python/pushhost.py"), encoding: .utf8))
        let result = try Command.run(Paths.pushhost, ["run", "--state", scratch.file("state"), "--process", "inbox.process.json", "--report", "-"],
                                     stdin: ndjson(#"{"message_id":"m1","notification":{"title":"Hello"}}"#, #"{"message_id":"m2","data":{"spam":"1"}}"#),
                                     directory: scratch.path)
        #expect(result.status == 0, "\(result.stderr)")
        #expect(try result.report().map { $0["status"] as? String } == ["delivered", "suppressed"])
        #expect(result.stderr.contains("info inbox: got m1 Hello"), "\(result.stderr)")
    }
}
