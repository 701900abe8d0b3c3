import Foundation
import Testing

/// Issue 39, item 4: `pushhost plugins --check`, a dry run. Each plugin is
/// created with its settings as run creates it (in a worker when run would
/// isolate it), then destroyed; the listing says of each `check: created`
/// or `check: refused: REASON`, after the lines it logged, and the command
/// exits 1 naming each one refused, in run's words.
@Suite struct DryRunTests {
    /// The refusal of a plugin whose create returned NULL, as run and the check log it.
    static func createRefusal(_ file: String) -> String {
        "error pushhost: refused plugin \(file): create returned NULL (the plugin's own log lines above say why)"
    }

    /// `plugins/good.so` and `plugins/bad.so`, whose settings file gives it `fault`: what it does in create.
    static func goodAndBad(_ scratch: Scratch, fault: String) throws -> (good: String, bad: String) {
        let good = try scratch.checked("good", as: "plugins/good.so")
        let bad = try scratch.checked("bad", as: "plugins/bad.so")
        try scratch.write("plugins/bad.json", #"{"fault": "\#(fault)"}"#)
        return (good, bad)
    }

    @Test func aPluginWhoseCreateReturnsNullIsNamedWithItsReason() throws {
        let scratch = try Scratch()
        let (good, bad) = try Self.goodAndBad(scratch, fault: "null")
        let result = try Command.pushhost(["plugins", "--check", "--plugins", scratch.file("plugins")])
        #expect(result.status == 1, "\(result.stderr)")
        let blocks = ListingBlocks(result.stdout)
        #expect(blocks.check("good") == "created", "\(result.stdout)")
        #expect(blocks.check("bad") == "refused: create returned NULL (the plugin's own log lines above say why)", "\(result.stdout)")
        #expect(blocks.log("bad").contains("error bad: told to refuse by its fault setting"), "\(result.stdout)")
        // Created in this command's process, a child of this test.
        #expect(blocks.parent("good") == getpid(), "\(result.stdout)")

        // On standard error: the plugin's reason, then the host's refusal line, then who was refused.
        let lines = result.errorLines
        let reason = lines.firstIndex(of: "error bad: told to refuse by its fault setting")
        let refusal = lines.firstIndex(of: Self.createRefusal(bad))
        #expect(reason != nil && refusal != nil && reason! < refusal!, "\(result.stderr)")
        #expect(lines.last == "error pushhost: 1 of 2 plugins refused: bad (\(bad))", "\(result.stderr)")
        #expect(!result.stderr.contains("refused plugin \(good)"))

        // Run refuses it in the same words.
        let run = try scratch.run(["--plugins", scratch.file("plugins")], stdin: "")
        #expect(run.status == 1)
        #expect(run.errorLines.contains(Self.createRefusal(bad)), "\(run.stderr)")
    }

    @Test func underIsolateEachIsCreatedInAWorker() throws {
        let scratch = try Scratch()
        let (_, bad) = try Self.goodAndBad(scratch, fault: "null")
        let result = try Command.pushhost(["plugins", "--check", "--plugins", scratch.file("plugins"), "--isolate", "all"])
        #expect(result.status == 1, "\(result.stderr)")
        let blocks = ListingBlocks(result.stdout)
        #expect(blocks.check("good") == "created", "\(result.stdout)")
        #expect(blocks.check("bad") == "refused: create returned NULL (the plugin's own log lines above say why)", "\(result.stdout)")
        // What the plugin logged in its worker is the reason shown.
        #expect(blocks.log("bad").contains("error bad: told to refuse by its fault setting"), "\(result.stdout)")
        // A worker's parent is the command, not this test.
        let parent = try #require(blocks.parent("good"), "\(result.stdout)")
        #expect(parent != getpid())
        let lines = result.errorLines
        let reason = lines.firstIndex(of: "error bad: told to refuse by its fault setting")
        let refusal = lines.firstIndex(of: Self.createRefusal(bad))
        #expect(reason != nil && refusal != nil && reason! < refusal!, "\(result.stderr)")

        let run = try scratch.run(["--plugins", scratch.file("plugins"), "--isolate", "all"], stdin: "")
        #expect(run.errorLines.contains(Self.createRefusal(bad)), "\(run.stderr)")
    }

    @Test func aCrashInCreateInAWorkerIsNamedWithItsSignal() throws {
        let scratch = try Scratch()
        let (_, bad) = try Self.goodAndBad(scratch, fault: "segv")
        let result = try Command.pushhost(["plugins", "--check", "--plugins", scratch.file("plugins"), "--isolate", "all"])
        #expect(result.status == 1, "\(result.stderr)")
        let blocks = ListingBlocks(result.stdout)
        let reason = "its worker ended before the plugin was created (SIGSEGV)"
        #expect(blocks.check("bad") == "refused: " + reason, "\(result.stdout)")
        #expect(blocks.check("good") == "created", "\(result.stdout)")
        #expect(result.errorLines.contains("error pushhost: refused plugin \(bad): \(reason)"), "\(result.stderr)")

        let run = try scratch.run(["--plugins", scratch.file("plugins"), "--isolate", "all"], stdin: "")
        #expect(run.errorLines.contains("error pushhost: refused plugin \(bad): \(reason)"), "\(run.stderr)")
    }

    @Test func aHangInCreateInAWorkerIsRefusedAfterTheHandlerTimeout() throws {
        let scratch = try Scratch()
        let (_, bad) = try Self.goodAndBad(scratch, fault: "hang")
        let flags = ["--plugins", scratch.file("plugins"), "--isolate", "all", "--handler-timeout", "1"]
        let result = try Command.pushhost(["plugins", "--check"] + flags)
        #expect(result.status == 1, "\(result.stderr)")
        let reason = "did not return from create within --handler-timeout 1.0s (its worker was killed)"
        #expect(ListingBlocks(result.stdout).check("bad") == "refused: " + reason, "\(result.stdout)")
        #expect(result.errorLines.contains("error pushhost: refused plugin \(bad): \(reason)"), "\(result.stderr)")

        let run = try scratch.run(flags, stdin: "")
        #expect(run.errorLines.contains("error pushhost: refused plugin \(bad): \(reason)"), "\(run.stderr)")
    }

    /// A source is created and destroyed, never started: the line its
    /// `start` logs does not appear (it does in a run).
    @Test(arguments: [[], ["--isolate", "all"]])
    func aSourceIsNeverStarted(_ isolation: [String]) throws {
        let scratch = try Scratch()
        let source = try scratch.checked("src", as: "src.so", defines: ["SOURCE"])
        let log = scratch.file("src.log")
        let plugin = loading(source, as: "src", scratch.writing([:], to: log))
        let result = try Command.pushhost(["plugins", "--check"] + plugin + isolation)
        #expect(result.status == 0, "\(result.stderr)")
        #expect(ListingBlocks(result.stdout).check("src") == "created", "\(result.stdout)")
        #expect(!result.stderr.contains("source started"), "\(result.stderr)")
        #expect(scratch.read("src.log") == "create\ndestroy\n")

        // Run starts it.
        let host = try HostProcess(["run", "--state", scratch.file("state")] + plugin + isolation, errorPath: scratch.file("run.log"))
        #expect(host.waitForStderr("info src: source started"), "\(host.stderr)")
        #expect(host.stop() == .status(0), "\(host.stderr)")
    }

    /// `--set` reaches create: a plugin that refuses without a setting is created with it.
    @Test(arguments: [[], ["--isolate", "all"]])
    func aSettingFromSetReachesCreate(_ isolation: [String]) throws {
        let scratch = try Scratch()
        let needy = try scratch.checked("needy", as: "needy.so", defines: [#"REQUIRED "token""#])
        let without = try Command.pushhost(["plugins", "--check", "--plugin", needy] + isolation)
        #expect(without.status == 1)
        let refused = ListingBlocks(without.stdout)
        #expect(refused.check("needy") == "refused: create returned NULL (the plugin's own log lines above say why)", "\(without.stdout)")
        #expect(refused.log("needy").contains("error needy: the token setting is required"), "\(without.stdout)")

        let with = try Command.pushhost(["plugins", "--check", "--plugin", needy, "--set", "needy.token=T-1"] + isolation)
        #expect(with.status == 0, "\(with.stderr)")
        let created = ListingBlocks(with.stdout)
        #expect(created.check("needy") == "created", "\(with.stdout)")
        #expect(created.log("needy").contains("info needy: token=T-1"), "\(with.stdout)")
    }

    /// What a run checks once a plugin is created, the check checks too: an
    /// interceptor table without `intercept` is refused in run's words.
    @Test func anInterceptorTableWithoutInterceptIsRefusedAsInARun() throws {
        let scratch = try Scratch()
        let plugin = try scratch.checked("small", as: "small.so", defines: ["SMALL_INTERCEPTOR"])
        let reason = "plugin small: its ph.interceptor/1 table (4 bytes) lacks intercept"
        let result = try Command.pushhost(["plugins", "--check", "--plugin", plugin])
        #expect(result.status == 1)
        #expect(ListingBlocks(result.stdout).check("small") == "refused: " + reason, "\(result.stdout)")
        #expect(result.errorLines.contains("error pushhost: refused plugin \(plugin): \(reason)"), "\(result.stderr)")

        let run = try scratch.run(["--plugin", plugin], stdin: "")
        #expect(run.status == 1)
        #expect(run.errorLines.contains("error pushhost: \(reason)"), "\(run.stderr)")
    }

    /// An interceptor that needs `ph.chain/1` in create (the `enrich`
    /// sample refuses without it) finds it, as in a run.
    @Test(arguments: [[], ["--isolate", "all"]])
    func anInterceptorFindsItsChainAPI(_ isolation: [String]) throws {
        let result = try Command.pushhost(
            ["plugins", "--check", "--plugin", Paths.sample("enrich"), "--set", "enrich.image=https://img.example.com/{target}/{id}.png"] + isolation)
        #expect(result.status == 0, "\(result.stderr)")
        #expect(ListingBlocks(result.stdout).check("enrich") == "created", "\(result.stdout)")
    }

    @Test func theJSONListingSaysWhatBecameOfEach() throws {
        let scratch = try Scratch()
        _ = try Self.goodAndBad(scratch, fault: "null")
        let result = try Command.pushhost(["plugins", "--check", "--json", "--plugins", scratch.file("plugins")])
        #expect(result.status == 1)
        let entries = Dictionary(uniqueKeysWithValues: try jsonLines(result.stdout).map { ($0["name"] as? String ?? "", $0) })
        let good = try #require(entries["good"]?["check"] as? [String: Any], "\(result.stdout)")
        #expect(good["created"] as? Bool == true)
        #expect(good["refused"] == nil)
        #expect((good["log"] as? [String])?.first?.hasPrefix("info good: create pid ") == true, "\(good)")
        let bad = try #require(entries["bad"]?["check"] as? [String: Any], "\(result.stdout)")
        #expect(bad["created"] as? Bool == false)
        #expect(bad["refused"] as? String == "create returned NULL (the plugin's own log lines above say why)")
        #expect((bad["log"] as? [String])?.contains("error bad: told to refuse by its fault setting") == true, "\(bad)")

        let listing = try Command.pushhost(["plugins", "--json", "--plugins", scratch.file("plugins")])
        #expect(listing.status == 0)
        #expect(try jsonLines(listing.stdout).allSatisfy { $0["check"] == nil }, "\(listing.stdout)")
    }

    /// Without `--check` nothing is created: the file the plugin writes in create does not appear.
    @Test func withoutCheckNothingIsCreated() throws {
        let scratch = try Scratch()
        let good = try scratch.checked("good", as: "good.so")
        let log = scratch.file("good.log")
        let listing = try Command.pushhost(["plugins", "--plugin", good, "--set", "good.log=\(log)"])
        #expect(listing.status == 0, "\(listing.stderr)")
        #expect(!listing.stdout.contains("check:"))
        #expect(!FileManager.default.fileExists(atPath: log))

        let checked = try Command.pushhost(["plugins", "--check", "--plugin", good, "--set", "good.log=\(log)"])
        #expect(checked.status == 0, "\(checked.stderr)")
        #expect(scratch.read("good.log") == "create\ndestroy\n")
    }

    /// What a plugin prints on standard output goes to standard error (from
    /// a worker, as a log line that names it): the listing stays one JSON object a line.
    @Test(arguments: [[], ["--isolate", "all"]])
    func whatAPluginPrintsStaysOutOfTheListing(_ isolation: [String]) throws {
        let scratch = try Scratch()
        let good = try scratch.checked("good", as: "good.so")
        let result = try Command.pushhost(["plugins", "--check", "--json", "--plugin", good, "--set", "good.print=printed in create"] + isolation)
        #expect(result.status == 0, "\(result.stderr)")
        #expect(try jsonLines(result.stdout).count == 1, "\(result.stdout)")
        let printed = isolation.isEmpty ? "printed in create" : "info pushhost: plugin good: printed in create"
        #expect(result.errorLines.contains(printed), "\(result.stderr)")
    }

    /// The plugins' state folders are in a throwaway state directory under
    /// `$TMPDIR`, removed at the end; the real one is not made.
    @Test(arguments: [[], ["--isolate", "all"]])
    func theStateIsThrownAway(_ isolation: [String]) throws {
        let scratch = try Scratch()
        let good = try scratch.checked("good", as: "good.so")
        try FileManager.default.createDirectory(atPath: scratch.file("tmp"), withIntermediateDirectories: true)
        let result = try Command.pushhost(
            ["plugins", "--check", "--plugin", good, "--set", "good.state=true"] + isolation,
            environment: ["TMPDIR": scratch.file("tmp"), "XDG_STATE_HOME": scratch.file("xdg")])
        #expect(result.status == 0, "\(result.stderr)")
        let said = ListingBlocks(result.stdout).log("good").first { $0.hasPrefix("info good: state ") }
        let folder = try #require(said, "\(result.stdout)").dropFirst("info good: state ".count)
        #expect(folder.hasPrefix(scratch.file("tmp") + "/pushhost-ephemeral-") && folder.hasSuffix("/plugins/good"), "\(folder)")
        #expect(try FileManager.default.contentsOfDirectory(atPath: scratch.file("tmp")).isEmpty)
        #expect(!FileManager.default.fileExists(atPath: scratch.file("xdg")))
    }
}

extension Scratch {
    /// Builds the dry run's fixture plugin named `name` (Tests/Fixtures/plugins/checked.c) as `file`.
    func checked(_ name: String, as file: String, defines: [String] = []) throws -> String {
        try plugin(file, PluginSource.fixture("checked", defines: [#"NAME "\#(name)""#] + defines))
    }
}

/// A text listing's plugin blocks, by plugin name: the lines under each.
struct ListingBlocks {
    private var blocks: [String: [String]] = [:]

    init(_ listing: String) {
        var name = ""
        for line in listing.split(separator: "\n").map(String.init) {
            if !line.hasPrefix(" ") {
                name = String(line.prefix { $0 != " " })
                continue
            }
            blocks[name, default: []].append(line)
        }
    }

    /// What follows `  check: ` in the block of `name`.
    func check(_ name: String) -> String? {
        blocks[name]?.last { $0.hasPrefix("  check: ") }.map { String($0.dropFirst("  check: ".count)) }
    }

    /// The `  log: ` lines of the block of `name`, without that.
    func log(_ name: String) -> [String] {
        (blocks[name] ?? []).filter { $0.hasPrefix("  log: ") }.map { String($0.dropFirst("  log: ".count)) }
    }

    /// The parent of the process that created the fixture `name`, as its `create pid P ppid Q` line says.
    func parent(_ name: String) -> Int32? {
        let line = log(name).first { $0.hasPrefix("info \(name): create pid ") }
        return line.flatMap { $0.split(separator: " ").last.flatMap { Int32($0) } }
    }
}
