import Foundation
import Testing

/// ABI 1.2's declared extensions (`ph_plugin.extensions`): `pushhost
/// plugins` lists the roles they give without creating the plugin, a
/// plugin that declares none is listed as unknown until it runs, a run
/// refuses a plugin that offers an extension it does not declare, and a
/// declaration the host cannot take refuses the plugin with why
/// (Tests/Fixtures/plugins/declared.c).
@Suite struct DeclaredExtensionsTests {
    /// `declared.c` built with `defines` (`EXTENSIONS ...`, `OFFERS_SOURCE`).
    static func declared(_ scratch: Scratch, _ defines: [String]) throws -> String {
        try scratch.plugin("declared.so", PluginSource.fixture("declared", defines: defines))
    }

    /// The roles come from the declaration, in the listing's text and JSON,
    /// with and without a scan in a worker; `create` never runs.
    @Test(arguments: [false, true])
    func declaredRolesAreListedWithoutCreatingThePlugin(isolated: Bool) throws {
        let scratch = try Scratch()
        let plugin = try Self.declared(scratch, ["EXTENSIONS PH_EXT_SOURCE, PH_EXT_INTAKE, PH_EXT_STATE, NULL", "OFFERS_SOURCE"])
        let flags = ["--set", "declared.mark=\(scratch.file("mark"))"] + (isolated ? ["--isolate", "all", "--sandbox", "off"] : [])
        let text = try Command.pushhost(["plugins", "--plugin", plugin] + flags)
        #expect(text.status == 0, "\(text.stderr)")
        #expect(text.stdout.split(separator: "\n").prefix(2).map(String.init) == [
            "declared 1.0.0 (ABI 1.2) \(plugin)", "  roles: background, source, state",
        ], "\(text.stdout)")
        let json = try jsonLines(Command.pushhost(["plugins", "--json", "--plugin", plugin] + flags).stdout)
        #expect(json.first?["roles"] as? [String] == ["background", "source", "state"], "\(json)")
        #expect(json.first?["extensions"] as? [String] == ["ph.source/1", "ph.intake/1", "ph.state/1"], "\(json)")
        #expect(!FileManager.default.fileExists(atPath: scratch.file("mark")))
    }

    /// A plugin that declares nothing (a 1.2 one without the list here; a
    /// 1.1 one in ABI11CompatibilityTests) may still offer extensions: the
    /// listing says they are unknown until it runs, not that there are none.
    @Test func aPluginThatDeclaresNothingIsListedAsUnknown() throws {
        let scratch = try Scratch()
        let plugin = try Self.declared(scratch, ["OFFERS_SOURCE"])
        let text = try Command.pushhost(["plugins", "--plugin", plugin])
        #expect(text.stdout.contains("\n  roles: background; extensions: unknown until it runs\n"), "\(text.stdout)")
        let json = try jsonLines(Command.pushhost(["plugins", "--json", "--plugin", plugin]).stdout)
        #expect(json.first?["roles"] as? [String] == ["background"], "\(json)")
        #expect(json.first?["extensions"] is NSNull, "\(json)")
    }

    /// A plugin that declares no source and offers one is refused once
    /// created (its `create` ran), in the host and in a worker; one that
    /// declares a source and offers none (settings may turn it off) runs.
    @Test(arguments: [false, true])
    func anExtensionOfferedButNotDeclaredRefusesThePlugin(isolated: Bool) throws {
        let scratch = try Scratch()
        let plugin = try Self.declared(scratch, ["EXTENSIONS NULL", "OFFERS_SOURCE"])
        let flags = ["--plugin", plugin, "--set", "declared.mark=\(scratch.file("mark"))"]
            + (isolated ? ["--isolate", "all", "--set", "declared.sandbox.write=\(scratch.path)"] : [])
        let run = try scratch.runHost(flags, stdin: "")
        #expect(run.exit == .status(1), "\(run.stderr)")
        #expect(run.stderrLines.contains(
            "error pushhost: refused plugin \(plugin): its get_extension offers ph.source/1, which its descriptor's extensions do not declare"),
            "\(run.stderr)")
        #expect(scratch.read("mark") == "create\n")

        let control = try Self.declared(scratch, ["EXTENSIONS PH_EXT_SOURCE, NULL"])
        let runs = try scratch.runHost(["--plugin", control] + (isolated ? ["--isolate", "all"] : []), stdin: #"{"message_id":"m1"}"# + "\n")
        #expect(runs.exit == .status(0), "\(runs.stderr)")
        #expect(runs.report.map { $0["status"] as? String } == ["delivered"])
    }

    /// A declaration the host cannot take refuses the plugin at listing and
    /// at run, in the host and in a scan's worker, saying why: an id it does
    /// not know, one declared twice, a list without its NULL within 16 ids.
    @Test(arguments: [
        ("EXTENSIONS \"ph.evil/1\", NULL",
         #"its descriptor's extensions: "ph.evil/1" is no extension this host knows (ph.interceptor/1, ph.source/1, ph.chain/1, ph.intake/1, ph.state/1, ph.metrics/1, ph.bus/1)"#),
        ("EXTENSIONS PH_EXT_STATE, PH_EXT_INTAKE, PH_EXT_STATE, NULL", "its descriptor's extensions: ph.state/1 is declared twice"),
        ("EXTENSIONS " + Array(repeating: "PH_EXT_STATE", count: 17).joined(separator: ", "),
         "its descriptor's extensions: more than 16 ids, or no NULL after them"),
    ])
    func aDeclarationTheHostCannotTakeRefusesThePlugin(define: String, reason: String) throws {
        let scratch = try Scratch()
        let plugin = try Self.declared(scratch, [define])
        for isolation in [[], ["--isolate", "all"]] {
            let listing = try Command.pushhost(["plugins", "--plugin", plugin] + isolation)
            #expect(listing.status == 1, "\(listing.stderr)")
            #expect(listing.stdout == "refused \(plugin): \(reason)\n", "\(isolation) \(listing.stdout)")
            let run = try scratch.runHost(["--plugin", plugin] + isolation, stdin: "")
            #expect(run.exit == .status(1), "\(run.stderr)")
            #expect(run.stderrLines.contains("error pushhost: refused plugin \(plugin): \(reason)"), "\(isolation) \(run.stderr)")
        }
    }

    /// The samples and the Swift interceptor declare theirs: every role is
    /// listed before any of them runs.
    @Test func theSamplesDeclareTheirExtensions() throws {
        let names = ["dedupe", "enrich", "debounce", "fifo-source", "cache"]
        let json = try jsonLines(Command.pushhost(["plugins", "--json"] + names.flatMap { ["--plugin", Paths.sample($0)] }).stdout)
        var roles: [String: [String]] = [:]
        for entry in json {
            guard let name = entry["name"] as? String else { continue }
            roles[name] = entry["roles"] as? [String]
            #expect(entry["extensions"] is [String], "\(name) declares nothing: \(entry)")
        }
        #expect(roles.count == names.count, "\(json)")
        #expect(roles["dedupe"] == ["interceptor"])
        #expect(roles["enrich"] == ["interceptor"])
        #expect(roles["debounce"] == ["interceptor"])
        #expect(roles["fifo-source"] == ["source"])
        #expect(roles["cache"] == ["data"])
    }

    /// Each transport declares the source it offers and the host extensions
    /// it uses: listed without creating it (no bus, no server is needed).
    @Test(.enabled(if: DesktopPlugin.canRun, "needs libsystemd-dev and libcurl"))
    func theDesktopTransportDeclaresItsExtensions() throws {
        try Self.expectListed(DesktopPlugin.path(), roles: ["background", "source", "state"])
    }

    @Test(.enabled(if: UnifiedPushPlugin.canRun, "needs libsystemd-dev and libssl-dev"))
    func theUnifiedPushTransportDeclaresItsExtensions() throws {
        try Self.expectListed(UnifiedPushPlugin.path(), roles: ["source", "state"])
    }

    @Test(.enabled(if: NatsPlugin.canRun, "needs nats-server and libnats-dev"))
    func theNatsTransportDeclaresItsExtensions() throws {
        try Self.expectListed(NatsPlugin.path(), roles: ["source"])
    }

    /// `pushhost plugins --json` lists the plugin at `path` with `roles`, and
    /// the intake among the extensions it declares.
    static func expectListed(_ path: String, roles: [String]) throws {
        let json = try jsonLines(Command.pushhost(["plugins", "--json", "--plugin", path]).stdout)
        #expect(json.first?["roles"] as? [String] == roles, "\(json)")
        #expect((json.first?["extensions"] as? [String])?.contains("ph.intake/1") == true, "\(json)")
    }
}
