import Foundation
import Testing

/// The README's Swift plugin, as its author follows it: the two files cut
/// out of the README into a folder of their own, built against `sdk/` from
/// an empty SwiftPM cache, then the README's commands in order: the dry run,
/// a hermetic run, and `pushhost check` with JUnit output.
@Suite struct ReadmeSwiftPluginTests {
    @Test func readmeSwiftPluginBuildsAgainstTheSDKAloneAndPassesItsCheck() throws {
        let readme = try String(contentsOf: Paths.packageRoot.appendingPathComponent("README.md"), encoding: .utf8)
        let blocks = readme.components(separatedBy: "```")
        let manifest = try #require(blocks.first { $0.hasPrefix("swift\n// swift-tools-version: 6.1\n// Package.swift\n") }).dropFirst(6)
        let source = try #require(blocks.first { $0.hasPrefix("swift\n// Sources/Hello/Hello.swift\n") }).dropFirst(6)
        let commands = try #require(blocks.first { $0.contains("pushhost check report.ndjson") })
            .split(separator: "\n").filter { $0.hasPrefix("pushhost ") }
        #expect(commands.count == 3, "\(commands)")

        let scratch = try Scratch()
        let sdk = Paths.packageRoot.appendingPathComponent("sdk").path
        try scratch.write("hello/Package.swift", manifest.replacingOccurrences(of: "/path/to/pushhost/sdk", with: sdk))
        try scratch.write("hello/Sources/Hello/Hello.swift", String(source))
        try FileManager.default.createDirectory(atPath: scratch.file("home"), withIntermediateDirectories: true)
        let folder = scratch.file("hello")

        // A CI runner's first build: a home with no SwiftPM cache or configuration.
        let start = ContinuousClock.now
        let built = try Command.run(
            "nice", ["-n", "19", "swift", "build"], environment: ["HOME": scratch.file("home"), "XDG_CACHE_HOME": scratch.file("home/.cache")],
            directory: folder)
        let time = ContinuousClock.now - start
        try #require(built.status == 0, "\(built.stdout)\(built.stderr)")
        print("the README's Swift plugin built against sdk/ (debug, empty cache) in \(time)")
        #expect(!built.stdout.contains("warning:"), "\(built.stdout)")
        expectResolvedNothing(folder)

        try scratch.write("hello/messages.ndjson", """
            {"message_id":"m-1","notification":{"title":"Printer jammed"}}
            {"pushhost":"token","token":"t-1"}
            {"message_id":"m-2","data":{"kind":"sync"}}

            """)
        try scratch.write("hello/expected.ndjson", """
            {"id":"m-1","status":"delivered","route":"background","ui":["hello"]}
            {"event":"token","status":"stored"}
            {"id":"m-2","status":"delivered","route":"background"}

            """)
        // Each command as written, with this build's pushhost first on PATH.
        let home = scratch.file("home")
        let path = URL(fileURLWithPath: Paths.pushhost).deletingLastPathComponent().path + ":" + (ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin")
        for command in commands {
            let result = try Command.run(
                "/bin/sh", ["-c", String(command)],
                environment: ["PATH": path, "HOME": home, "XDG_STATE_HOME": home + "/.local/state"], directory: folder)
            #expect(result.status == 0, "\(command): \(result.stdout)\(result.stderr)")
        }
        #expect(scratch.read("hello/report.ndjson").split(separator: "\n").count == 3)
        #expect(scratch.read("hello/results.xml").contains(#"<testsuites tests="4" failures="0">"#), "\(scratch.read("hello/results.xml"))")
        // The run was hermetic: nothing was kept in the home's state folder.
        #expect(!FileManager.default.fileExists(atPath: home + "/.local/state/pushhost"))
    }
}
