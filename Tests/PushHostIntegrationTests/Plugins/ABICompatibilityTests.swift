import Foundation
import Testing

/// ABI compatibility (docs/plugins.md, the ABI): a plugin built against the 1.0 header (kept
/// in Tests/Fixtures/pushhost-1.0) loads and works unchanged in this host,
/// and a plugin from a newer minor is refused.
@Suite struct ABICompatibilityTests {
    /// The folder of the 1.0 header.
    static let include10 = Paths.fixtures.appendingPathComponent("pushhost-1.0").path

    /// `source` with its entry wrapped (Tests/Fixtures/plugins/guarded-entry.c):
    /// the descriptor is copied, exactly `sizeof(ph_plugin)` bytes of the
    /// header it is built against, to the end of a page whose next page is
    /// unreadable, so a host that read one byte past a 1.0 descriptor would
    /// crash.
    static func guarded(_ source: String) throws -> String {
        "#define _DEFAULT_SOURCE\n#define ph_plugin_entry unguarded_entry\n" + source
            + "\n#undef ph_plugin_entry\n" + (try PluginSource.fixture("guarded-entry"))
    }

    /// Builds the probe `app` in every role (a screen for target `a`),
    /// guarded, against the header in `include`; returns its path.
    static func probe(_ scratch: Scratch, include: String) throws -> String {
        let source = try guarded(PluginSource.probe(name: "app", roles: [.data, .background, .foreground, .token], targets: ["a"]))
        return try scratch.plugin("app.so", source, include: include)
    }

    /// `pushhost run` with the probe built against `include`, logging to the scratch's probe log.
    static func run(_ scratch: Scratch, include: String) throws -> Command {
        let file = try probe(scratch, include: include)
        return try scratch.run(["--plugin", file, "--set", "app.log=\(scratch.probeLog)"], stdin: input)
    }

    /// The one entry of `pushhost plugins --json`, parsed.
    static func entry(_ listing: Command) throws -> [String: Any] {
        let line = try #require(listing.stdout.split(separator: "\n").first, "no listing: \(listing.stderr)")
        return try #require(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])
    }

    /// A token, a message in the background, then a visible screen that gets
    /// one message aimed at it and one aimed elsewhere.
    static let input = ndjson(
        #"{"pushhost":"token","token":"T1"}"#,
        #"{"message_id":"m1","data":{"rx_gcm_key_target":"a"}}"#,
        #"{"pushhost":"foreground","screens":["app"]}"#,
        #"{"message_id":"m2","data":{"rx_gcm_key_target":"a"}}"#,
        #"{"message_id":"m3","data":{"rx_gcm_key_target":"elsewhere"}}"#)

    /// The 1.0 descriptor is the 1.1 one cut before `on_action`, so the
    /// guarded copy above really ends where a 1.1 host could be tempted to read on.
    @Test func the10DescriptorEndsWhereOnActionBegins() throws {
        let scratch = try Scratch()
        let program = try scratch.write("size.c", """
            #include <pushhost.h>
            #include <stddef.h>
            #include <stdio.h>
            int main(void) {
            #if PH_ABI_MINOR >= 1
                printf("%zu %zu\\n", sizeof(ph_plugin), offsetof(ph_plugin, on_action));
            #else
                printf("%zu\\n", sizeof(ph_plugin));
            #endif
                return 0;
            }
            """)
        func sizes(_ include: String) throws -> [Int] {
            let built = try Command.run("cc", ["-std=c11", "-Wall", "-Wextra", "-pedantic", "-Werror", "-I", include, program, "-o", scratch.file("size")])
            try #require(built.status == 0, "\(built.stderr)")
            let run = try Command.run(scratch.file("size"), [])
            return run.stdout.split(whereSeparator: \.isWhitespace).compactMap { Int($0) }
        }
        let old = try sizes(Self.include10)
        let new = try sizes(Paths.include.path)
        try #require(old.count == 1 && new.count == 2, "1.0: \(old), 1.1: \(new)")
        #expect(old[0] == new[1])
        #expect(old[0] < new[0])
    }

    @Test func a10PluginIsListedAsABI10() throws {
        let scratch = try Scratch()
        let file = try Self.probe(scratch, include: Self.include10)
        let listing = try Command.pushhost(["plugins", "--json", "--plugin", file])
        #expect(listing.status == 0, "\(listing.stderr)")
        #expect(listing.stdout.contains(#""abi":"1.0""#), "\(listing.stdout)")
        let entry = try Self.entry(listing)
        #expect(entry["name"] as? String == "app")
        #expect(entry["targets"] as? [String] == ["a"])

        // The same plugin built against today's header differs in its ABI only.
        let current = try Scratch()
        let newer = try Command.pushhost(["plugins", "--json", "--plugin", try Self.probe(current, include: Paths.include.path)])
        #expect(newer.status == 0, "\(newer.stderr)")
        let newerEntry = try Self.entry(newer)
        #expect(newerEntry["abi"] as? String == "1.2")
        #expect(newerEntry["roles"] as? [String] == entry["roles"] as? [String])
        #expect((newerEntry["roles"] as? [String])?.count == 4)
    }

    @Test func a10PluginIsCalledExactlyAsA11Plugin() throws {
        let old = try Scratch(), new = try Scratch()
        let oldRun = try Self.run(old, include: Self.include10)
        let newRun = try Self.run(new, include: Paths.include.path)
        #expect(oldRun.status == 0, "\(oldRun.stderr)")
        #expect(newRun.status == 0, "\(newRun.stderr)")
        #expect(old.probeCalls() == [
            "app token T1 -",
            "app data m1", "app background m1",
            "app data m2", "app target m2",
            "app data m3", "app mismatch m3",
        ])
        let report = try oldRun.report()
        try #require(report.count == 5, "\(oldRun.stdout)")
        #expect(report.map { $0["status"] as? String } == ["stored", "delivered", "applied", "delivered", "delivered"])
        #expect(report.map { $0["route"] as? String } == [nil, "background", nil, "target", "mismatch"])
        #expect(report.map { $0["ui"] as? [String] } == [nil, ["app"], nil, ["app"], ["app"]])
        // Line for line, the report and the probe's log of the 1.1 build.
        #expect(oldRun.stdout == newRun.stdout)
        #expect(old.probeLines().map(\.text) == new.probeLines().map(\.text))
    }

    /// A newer minor is refused by the listing too; that `pushhost run`
    /// refuses it is RefusalTests' "newer minor" case.
    @Test func aNewerMinorIsRefusedByTheListing() throws {
        let scratch = try Scratch()
        let file = try scratch.plugin("newer.so", PluginSource.descriptor(
            #".name = "newer""#, header: ".struct_size = sizeof(ph_plugin), .abi_major = PH_ABI_MAJOR, .abi_minor = PH_ABI_MINOR + 1"))
        let listing = try Command.pushhost(["plugins", "--plugin", file])
        #expect(listing.status == 1)
        #expect(listing.stdout.contains(
            "refused \(file): built for ABI 1.3, but this host speaks ABI 1.2 (the plugin's minor is newer)"), "\(listing.stdout)")
    }
}
