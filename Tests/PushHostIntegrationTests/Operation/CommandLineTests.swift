import Foundation
import Testing

/// What a person at the command line meets first: the version, a mistyped
/// command, a usage error, a run with no plugin.
@Suite struct CommandLineTests {
    /// The version `--version` prints is the top release of CHANGELOG.md.
    @Test func versionIsTheChangelogsTopRelease() throws {
        let result = try Command.pushhost(["--version"])
        #expect(result.status == 0, "\(result.stderr)")
        let changelog = try String(contentsOf: Paths.packageRoot.appendingPathComponent("CHANGELOG.md"), encoding: .utf8)
        let top = try #require(changelog.split(separator: "\n").first { $0.hasPrefix("## ") && !$0.contains("Unreleased") })
        let version = result.stdout.trimmingCharacters(in: .whitespacesAndNewlines)
        #expect(version.split(separator: ".").count == 3 && version.allSatisfy { $0.isNumber || $0 == "." }, "\(version)")
        #expect(top.hasPrefix("## \(version) "), "CHANGELOG.md's top entry is \(top), --version says \(version)")
    }

    @Test(arguments: [
        ("plugin", "; did you mean plugins?"),
        ("plgins", "; did you mean plugins?"),
        ("tokne", "; did you mean token?"),
        ("sned", "; did you mean send?"),
        ("rn", "; did you mean run?"),
        ("install", ""),
        ("chekc", "; did you mean check?"),
    ])
    func anUnknownCommandIsNamedWithAGuess(typed: String, guess: String) throws {
        let result = try Command.pushhost([typed, "--plugins", "x"])
        #expect(result.status == 2)
        #expect(result.stderr == "error pushhost: unknown command \(typed) (commands: run, plugins, check, token, send, new\(guess))\n")
    }

    /// Every error is one line with the same prefix, whoever found it: the
    /// argument parser, a check of the options, or the host.
    @Test(arguments: [
        (["run", "--bogus"], 2, "error pushhost: unknown option '--bogus'; see 'pushhost run --help'"),
        (["run", "--max-bytes", "0"], 2, "error pushhost: --max-bytes must be above 0; see 'pushhost run --help'"),
        (["run", "--set", "x"], 2, "error pushhost: --set x: expected NAME.KEY=VALUE (no '=')"),
        (["plugins", "--plugins", "/nonexistent-dir"], 1, "error pushhost: plugin directory /nonexistent-dir: No such file or directory"),
        (["token", "--state", "/nonexistent-dir"], 1, "error pushhost: no token stored in /nonexistent-dir yet"),
        (["run", "--log-level", "loud"], 2,
         "error pushhost: the value 'loud' is invalid for '--log-level <trace|debug|info|notice|warning|error|critical>'. "
            + "Please provide one of the following: trace, debug, info, notice, warning, error, critical; see 'pushhost run --help'"),
    ])
    func everyErrorIsOneLineWithOnePrefix(arguments: [String], status: Int32, line: String) throws {
        let result = try Command.pushhost(arguments)
        #expect(result.status == status, "\(result.stderr)")
        #expect(result.stderr == line + "\n")
        #expect(result.stdout == "")
    }

    @Test func helpStillGoesToStandardOutput() throws {
        let result = try Command.pushhost(["help", "run"])
        #expect(result.status == 0)
        #expect(result.stdout.contains("--log-level"), "\(result.stdout)")
        #expect(result.stdout.contains("--log-format"), "\(result.stdout)")
        #expect(result.stderr == "")
    }

    @Test func aRunWithoutPluginsIsWarnedAbout() throws {
        let scratch = try Scratch()
        let result = try Command.pushhost(["run", "--state", scratch.file("state")], stdin: #"{"data":{}}"# + "\n")
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stderr == "warning pushhost: no plugin loaded: every message is reported undelivered (give --plugins DIR, --plugin FILE or --ffi FILE)\n")

        let empty = scratch.file("plugins")
        try FileManager.default.createDirectory(atPath: empty, withIntermediateDirectories: true)
        let listing = try Command.pushhost(["plugins", "--plugins", empty])
        #expect(listing.status == 0)
        #expect(listing.stderr == "warning pushhost: no plugin in \(empty) (give --plugins DIR, --plugin FILE or --ffi FILE)\n")
    }

    @Test func aRunWithAPluginSaysNothingOfThat() throws {
        let scratch = try Scratch()
        let plugin = try scratch.plugin("libquiet.so", PluginSource.descriptor(#".name = "quiet""#))
        let result = try Command.pushhost(["run", "--plugin", plugin, "--state", scratch.file("state")], stdin: #"{"data":{}}"# + "\n")
        #expect(result.status == 0)
        #expect(result.stderr == "")
    }
}
