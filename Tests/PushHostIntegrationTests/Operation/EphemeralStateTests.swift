import Foundation
import Testing

/// `pushhost run --ephemeral` (docs/running.md, state): the run keeps its
/// state in a folder of its own under `$TMPDIR`, which works as the state
/// folder does while the run lasts and is gone after every exit the host
/// makes; the default state folder is never touched.
@Suite struct EphemeralStateTests {
    /// A scratch folder whose empty `xdg`, `home` and `tmp` are the host's
    /// `XDG_STATE_HOME`, `HOME` and `TMPDIR`.
    struct Hermetic {
        let scratch: Scratch

        init() throws {
            scratch = try Scratch()
            for name in ["xdg", "home", "tmp"] {
                try FileManager.default.createDirectory(atPath: scratch.file(name), withIntermediateDirectories: false)
            }
        }

        var environment: [String: String] {
            ["XDG_STATE_HOME": scratch.file("xdg"), "HOME": scratch.file("home"), "TMPDIR": scratch.file("tmp")]
        }

        /// The arguments of every run here: the flag, and the debug line that names the folder.
        static let flags = ["--ephemeral", "--log-level", "debug"]

        /// `pushhost run --ephemeral` fed `stdin` on a pipe, the report on
        /// standard output unless `report` names a file.
        func run(_ arguments: [String], stdin: String, report: String = "-") throws -> Command {
            try Command.pushhost(["run"] + Self.flags + ["--report", report] + arguments, stdin: stdin, environment: environment)
        }

        /// `pushhost run --ephemeral` in the background, fed from `input`,
        /// the report into `report.ndjson`.
        func start(_ arguments: [String], input: Pipe) throws -> HostProcess {
            try HostProcess(
                ["run"] + Self.flags + ["--report", scratch.file("report.ndjson")] + arguments,
                errorPath: scratch.file("stderr.log"), environment: environment, input: input)
        }

        /// The folder the host's debug line names, which must be in `tmp`.
        func folder(in stderr: String) throws -> String {
            let line = try #require(
                stderr.split(separator: "\n").first { $0.hasPrefix("debug pushhost: ephemeral state folder ") },
                "no line names the folder:\n\(stderr)")
            let path = String(line.dropFirst("debug pushhost: ephemeral state folder ".count).prefix { $0 != "," })
            #expect(path.hasPrefix(scratch.file("tmp") + "/pushhost-ephemeral-"), "\(path)")
            return path
        }

        /// The names in `xdg`, `home` or `tmp`.
        func names(_ name: String) -> [String] {
            (try? FileManager.default.contentsOfDirectory(atPath: scratch.file(name))) ?? []
        }

        /// Nothing left: `xdg` and `home` empty, no ephemeral folder in
        /// `tmp`, and the folder `stderr` names gone.
        func expectNothingLeft(_ stderr: String, sourceLocation: SourceLocation = #_sourceLocation) throws {
            let folder = try self.folder(in: stderr)
            #expect(!FileManager.default.fileExists(atPath: folder), "\(folder) is still there", sourceLocation: sourceLocation)
            #expect(names("xdg").isEmpty, "\(names("xdg"))", sourceLocation: sourceLocation)
            #expect(names("home").isEmpty, "\(names("home"))", sourceLocation: sourceLocation)
            #expect(!names("tmp").contains { $0.hasPrefix("pushhost-ephemeral-") }, "\(names("tmp"))", sourceLocation: sourceLocation)
            #expect(!stderr.contains("not removed"), "\(stderr)", sourceLocation: sourceLocation)
        }
    }

    static func token(_ text: String) -> String {
        #"{"pushhost":"token","token":"\#(text)"}"#
    }

    /// A message for the screen `s1` that offers actions.
    static let message = #"{"message_id":"m1","notification":{"title":"Printer jammed","actions":[{"id":"open","title":"Open"}]},"data":{"rx_gcm_key_target":"a"}}"#

    /// A token plugin, a background plugin and a screen `s1` for target `a`
    /// (both with `on_action`), and `keeper` in a worker, which asks for its
    /// state folder (Tests/Fixtures/plugins/keeper.c).
    static func plugins(_ scratch: Scratch) throws -> [String] {
        try scratch.probe("t", [.token]) + scratch.probe("bg", [.background, .action])
            + scratch.probe("s1", [.foreground, .action], targets: ["a"])
            + ["--plugin", scratch.plugin("keeper.so", PluginSource.fixture("keeper")), "--isolate", "keeper"]
    }

    /// Within the run the folder is the state folder: a token again is
    /// unchanged, the next one has it as previous, an action finds its
    /// message in the delivered store and waits there for its screen, and
    /// a plugin's folder is in it. Each run begins with none of it.
    @Test func theStateWorksWithinTheRunAndIsGoneAtTheEndOfInput() throws {
        let hermetic = try Hermetic()
        let scratch = hermetic.scratch
        let result = try hermetic.run(try Self.plugins(scratch), stdin: ndjson(
            Self.token("T1"), Self.token("T1"), Self.message, #"{"pushhost":"action","id":"m1","action":"tap"}"#,
            #"{"pushhost":"foreground","screens":["s1"]}"#, Self.token("T2")))
        #expect(result.status == 0, "\(result.stderr)")
        let report = try result.report()
        #expect(report.map { $0["status"] as? String ?? "nil" }
            == ["stored", "unchanged", "delivered", "retained", "applied", "delivered", "stored"], "\(report)")
        #expect(scratch.probeCalls().filter { $0.hasPrefix("t ") } == ["t token T1 -", "t token T2 T1"])
        #expect(scratch.probeLines().filter { $0.event == "action" }.map(\.name) == ["bg", "s1"])
        let folder = try hermetic.folder(in: result.stderr)
        #expect(result.stderr.contains("info keeper: folder \(folder)/plugins/keeper, same pointer 1"), "\(result.stderr)")
        try hermetic.expectNothingLeft(result.stderr)

        let again = try hermetic.run(try Self.plugins(scratch), stdin: ndjson(Self.token("T2")))
        #expect(again.status == 0, "\(again.stderr)")
        #expect(try again.report().map { $0["status"] as? String } == ["stored"])
        #expect(scratch.probeCalls().last == "t token T2 -")
        #expect(try hermetic.folder(in: again.stderr) != folder)
        try hermetic.expectNothingLeft(again.stderr)
    }

    /// A stop while a source plugin runs (`burst`, Tests/Fixtures/plugins/burst.c):
    /// meanwhile the folder holds the token, mode 0700, and `keeper`'s folder.
    @Test(arguments: [SIGTERM, SIGINT]) func aStopWhileASourceRuns(_ signal: Int32) throws {
        let hermetic = try Hermetic()
        let scratch = hermetic.scratch
        let burst = try scratch.plugin("burst.so", PluginSource.fixture("burst"))
        let input = Pipe()
        let host = try hermetic.start(
            try Self.plugins(scratch) + loading(burst, as: "burst", scratch.writing(["count": "2"], to: scratch.file("burst.out"), as: "out")),
            input: input)
        try input.fileHandleForWriting.write(contentsOf: Data(ndjson(Self.token("T1"), Self.message).utf8))
        let handled = eventually(timeout: .seconds(20)) { (try? scratch.reportLines().count) == 4 }
        try #require(handled, "\(host.stderr)")
        let folder = try hermetic.folder(in: host.stderr)
        #expect(try String(contentsOfFile: folder + "/token", encoding: .utf8) == "T1\n")
        let mode = try FileManager.default.attributesOfItem(atPath: folder)[.posixPermissions] as? Int
        #expect(mode == 0o700)
        #expect(FileManager.default.fileExists(atPath: folder + "/plugins/keeper"))
        #expect(host.waitForExit(timeout: .milliseconds(200)) == nil, "the host ended:\n\(host.stderr)")
        // What a plugin might leave: a link out of the folder (removed, never
        // followed), and a folder it made read-only.
        try scratch.write("outside/kept", "kept\n")
        try FileManager.default.createSymbolicLink(atPath: folder + "/plugins/link", withDestinationPath: scratch.file("outside"))
        try FileManager.default.createDirectory(atPath: folder + "/plugins/locked/in", withIntermediateDirectories: true)
        try "x".write(toFile: folder + "/plugins/locked/in/file", atomically: false, encoding: .utf8)
        try FileManager.default.setAttributes([.posixPermissions: 0o500], ofItemAtPath: folder + "/plugins/locked/in")

        host.send(signal)
        #expect(host.waitForExit() == .status(0), "\(host.stderr)")
        try? input.fileHandleForWriting.close()
        #expect(try scratch.reportLines().compactMap { $0["id"] as? String }.sorted() == ["b-1", "b-2", "m1"])
        try hermetic.expectNothingLeft(host.stderr)
        #expect(scratch.read("outside/kept") == "kept\n")
    }

    /// The watchdog's exit (status 4, `--handler-timeout`): the report is
    /// written out, then the folder removed.
    @Test func aHandlerThatNeverReturns() throws {
        let hermetic = try Hermetic()
        let scratch = hermetic.scratch
        let result = try hermetic.run(
            try scratch.faulty("on_background") + ["--handler-timeout", "0.3"],
            stdin: ndjson(Self.token("T1"), #"{"message_id":"a","data":{}}"#, #"{"message_id":"b","data":{"fault":"hang"}}"#))
        #expect(result.status == 4, "\(result.stderr)")
        #expect(try result.report().prefix(2).map { $0["status"] as? String } == ["stored", "delivered"])
        #expect(scratch.faultyCalls == ["on_background a", "on_background b"])
        try hermetic.expectNothingLeft(result.stderr)
    }

    /// A refused plugin (create returns NULL: a probe without its `log`
    /// setting), after `keeper`'s worker made its folder.
    @Test func aRefusedPlugin() throws {
        let hermetic = try Hermetic()
        let scratch = hermetic.scratch
        let refused = try scratch.plugin("lost.so", PluginSource.probe(name: "lost", roles: [.background]))
        let result = try hermetic.run(try Self.plugins(scratch) + ["--plugin", refused], stdin: ndjson(Self.token("T1")))
        #expect(result.status == 1, "\(result.stderr)")
        #expect(result.stderr.contains("refused plugin \(refused): create returned NULL"), "\(result.stderr)")
        #expect(result.stderr.contains("info keeper: folder "), "\(result.stderr)")
        try hermetic.expectNothingLeft(result.stderr)
    }

    /// A signal while a plugin is still being created (before the run loop
    /// takes signals as a stop) ends the host by that signal, as before,
    /// but the folder goes first; the same for `plugins --check`.
    @Test(arguments: [SIGTERM, SIGINT]) func aSignalWhileAPluginIsCreated(_ signal: Int32) throws {
        let hermetic = try Hermetic()
        let scratch = hermetic.scratch
        // Its create waits for a file that never comes (a minute at most).
        let slow = try scratch.plugin("slowstart.so", PluginSource.fixture("metrics-slow-start"))
        let arguments = ["--plugin", slow, "--set", "slowstart.gate=\(scratch.file("never"))"]
        for command in [["run"] + Hermetic.flags + ["--report", scratch.file("report.ndjson")], ["plugins", "--check", "--log-level", "debug"]] {
            try? FileManager.default.removeItem(atPath: scratch.file("stderr.log"))
            let input = Pipe()
            defer { try? input.fileHandleForWriting.close() }
            let host = try HostProcess(command + arguments, errorPath: scratch.file("stderr.log"), environment: hermetic.environment, input: input)
            let made = eventually(timeout: .seconds(20)) { hermetic.names("tmp").contains { $0.hasPrefix("pushhost-ephemeral-") } }
            try #require(made, "\(command[0]): \(host.stderr)")
            #expect(host.waitForExit(timeout: .milliseconds(300)) == nil, "\(command[0]) ended:\n\(host.stderr)")
            host.send(signal)
            #expect(host.waitForExit() == .signal(signal), "\(command[0]): \(host.stderr)")
            try hermetic.expectNothingLeft(host.stderr)
        }
    }

    /// A report that cannot be written stops the run (status 1).
    @Test func aReportThatCannotBeWritten() throws {
        let hermetic = try Hermetic()
        let result = try hermetic.run(
            try Self.plugins(hermetic.scratch), stdin: ndjson(Self.token("T1"), Self.message), report: "/dev/full")
        #expect(result.status == 1, "\(result.stderr)")
        #expect(result.stderr.contains("error pushhost: the run stopped early: report /dev/full: write failed"), "\(result.stderr)")
        try hermetic.expectNothingLeft(result.stderr)
    }

    @Test func notWithState() throws {
        let hermetic = try Hermetic()
        let result = try Command.pushhost(
            ["run", "--ephemeral", "--state", hermetic.scratch.file("state")], stdin: ndjson(Self.token("T1")),
            environment: hermetic.environment)
        #expect(result.status == 2)
        #expect(result.stderr == "error pushhost: --ephemeral and --state cannot be used together: --ephemeral gives the run a state folder of its own; see 'pushhost run --help'\n")
        #expect(!FileManager.default.fileExists(atPath: hermetic.scratch.file("state")))
        #expect(hermetic.names("tmp").isEmpty && hermetic.names("xdg").isEmpty && hermetic.names("home").isEmpty)
    }
}
