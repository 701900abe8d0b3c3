import Foundation
import Testing

/// Loading: order, settings, older descriptors, and the listing of the samples.
@Suite struct LoaderTests {
    /// A descriptor built as if against an older 1.x header
    /// (Tests/Fixtures/plugins/older.c): it stops before get_extension and
    /// ends right at a page the plugin made unreadable, so a host that read
    /// one byte past struct_size would crash.
    @Test func olderDescriptorLoadsAndIsNotReadPastItsSize() throws {
        let scratch = try Scratch()
        let file = try scratch.plugin("older.so", PluginSource.fixture("older"))
        let listing = try Command.pushhost(["plugins", "--json", "--plugin", file])
        #expect(listing.status == 0, "\(listing.stderr)")
        let entry = try Self.objects(listing.stdout).first
        #expect(entry?["name"] as? String == "older")
        #expect(entry?["roles"] as? [String] == ["background"])
        #expect(entry?["abi"] as? String == "1.0")
        let run = try Command.pushhost(["run", "--plugin", file, "--state", scratch.file("state")])
        #expect(run.status == 0, "\(run.stderr)")
    }

    @Test func directoriesLoadInByteOrderThenFiles() throws {
        let scratch = try Scratch()
        for (file, name) in [("b.so", "bee"), ("a.so", "ay"), ("B.so", "big-bee"), ("sub/extra.so", "extra")] {
            try scratch.plugin(file, PluginSource.descriptor(#".name = "\#(name)", .on_token = on_token"#, prelude: PluginSource.noopHandlers))
        }
        try scratch.write(".hidden.so", "not loaded")
        try scratch.write("notes.txt", "not loaded")
        let listing = try Command.pushhost(["plugins", "--json", "--plugin", scratch.file("sub/extra.so"), "--plugins", scratch.path])
        #expect(listing.status == 0, "\(listing.stderr)")
        #expect(try Self.objects(listing.stdout).map { $0["name"] as? String } == ["big-bee", "ay", "bee", "extra"])
    }

    @Test func sidecarSettingsAndSetReachConfigGet() throws {
        let scratch = try Scratch()
        let file = try scratch.plugin("rec.so", PluginSource.recorder("rec", keys: ["colour", "size", "loud", "missing"]))
        try scratch.write("rec.json", #"{"colour": "blue", "size": 2, "loud": true, "log": "\#(scratch.file("wrong.log"))"}"#)
        let result = try Command.pushhost(
            ["run", "--plugin", file, "--set", "rec.size=3", "--set", "rec.log=\(scratch.file("rec.log"))", "--state", scratch.file("state")])
        #expect(result.status == 0, "\(result.stderr)")
        #expect(scratch.read("rec.log") == "create\ncolour=blue\nsize=3\nloud=true\nmissing=(unset)\ndestroy\n")
    }

    @Test func malformedSettingsFileRefusesThePlugin() throws {
        let scratch = try Scratch()
        let file = try scratch.plugin("rec.so", PluginSource.recorder("rec"))
        try scratch.write("rec.json", #"{"log": "x",}"#)
        let result = try Command.pushhost(["run", "--plugin", file, "--state", scratch.file("state")])
        #expect(result.status == 1)
        #expect(result.stderr.contains("refused plugin \(file): settings file \(scratch.file("rec.json")): trailing comma at byte 12"), "\(result.stderr)")
    }

    @Test func setForAPluginThatIsNotLoaded() throws {
        let scratch = try Scratch()
        let file = try scratch.plugin("rec.so", PluginSource.recorder("rec"))
        let result = try Command.pushhost(["run", "--plugin", file, "--set", "ghost.path=x", "--state", scratch.file("state")])
        #expect(result.status == 1)
        #expect(result.stderr.contains("--set ghost.path: no plugin named ghost is loaded"))
    }

    @Test(arguments: ["nodot=1", "name.key", ".key=1", "name.=1"])
    func malformedSetIsAUsageError(_ text: String) throws {
        let result = try Command.pushhost(["run", "--set", text, "--state", try Scratch().file("state")])
        #expect(result.status == 2)
        #expect(result.stderr.contains("--set \(text): expected NAME.KEY=VALUE"), "\(result.stderr)")
    }

    @Test func samplePluginsAreListedWithTheirRolesAndTargets() throws {
        let samples = ["cache", "notify", "issues", "supplies", "token-log"]
        let listing = try Command.pushhost(["plugins", "--json"] + samples.flatMap { ["--plugin", Paths.sample($0)] })
        #expect(listing.status == 0, "\(listing.stderr)")
        let entries = try Self.objects(listing.stdout)
        #expect(entries.map { $0["name"] as? String } == samples)
        #expect(entries.map { $0["roles"] as? [String] } == [["data"], ["background", "action"], ["screen", "action"], ["screen"], ["token"]])
        #expect(entries.map { $0["targets"] as? [String] } == [[], [], ["issues"], ["supplies"], []])
        #expect(entries.map { $0["file"] as? String } == samples.map(Paths.sample))
        #expect(entries.allSatisfy { $0["abi"] as? String == "1.2" && $0["version"] as? String == "1.0.0" })
    }

    @Test func textListingOfTheSamples() throws {
        let listing = try Command.pushhost(["plugins", "--plugin", Paths.sample("issues")])
        #expect(listing.status == 0)
        #expect(listing.stdout.hasPrefix("issues 1.0.0 (ABI 1.2) \(Paths.sample("issues"))\n  roles: screen, action; targets: issues\n"), "\(listing.stdout)")
    }

    /// The sample plugins are worked examples: they build warning-free with
    /// one strict line, and export nothing but the entry.
    @Test(arguments: ["cache/cache.c", "notify/notify.c", "issues/issues.c", "supplies/supplies.c", "token-log/token_log.c",
                      "dedupe/dedupe.c", "enrich/enrich.c"])
    func samplePluginBuildsWarningFree(_ source: String) throws {
        let scratch = try Scratch()
        let text = try String(contentsOf: Paths.packageRoot.appendingPathComponent("plugins/\(source)"), encoding: .utf8)
            .replacingOccurrences(of: #"#include "../screen/"#, with: #"#include "\#(Paths.packageRoot.path)/plugins/screen/"#)
            .replacingOccurrences(of: #"#include "../common/"#, with: #"#include "\#(Paths.packageRoot.path)/plugins/common/"#)
        let file = try scratch.plugin("sample.so", text)
        let symbols = try Command.run("nm", ["-D", "--defined-only", file])
        let exported = symbols.stdout.split(separator: "\n").compactMap { $0.split(separator: " ").last }
            .filter { !["_edata", "_end", "__bss_start"].contains($0) }
        #expect(exported == ["ph_plugin_entry"])
    }

    static func objects(_ lines: String) throws -> [[String: Any]] {
        try lines.split(separator: "\n").map { line in
            try #require(JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])
        }
    }
}
