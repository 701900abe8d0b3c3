import Foundation
import Testing

/// Where a wall cannot stand (docs/running.md, walls): here libseccomp,
/// hidden under an empty file in a mount namespace of the test's own, so
/// that the seccomp filter cannot load; or user namespaces, which a host
/// in a user namespace of the test's own may not make (its
/// `max_user_namespaces` is 0), as in some containers. `--sandbox on` runs the worker
/// behind the walls that do stand and says which fell; `--sandbox strict`
/// refuses the plugin, before its library is opened in a scan or a worker.
@Suite(.enabled(if: canHideLibraries, "needs root and unshare(1) for a mount namespace"))
struct FallenWallsTests {

    /// `pushhost ARGUMENTS` where libseccomp cannot be opened.
    static func withoutSeccomp(_ arguments: [String], stdin: String = "", environment: [String: String]? = nil) throws -> Command {
        let script = """
            library=$(readlink -f "$(ldconfig -p | sed -n 's/^[[:space:]]*libseccomp\\.so\\.2 .*=> //p' | head -n 1)")
            [ -f "$library" ] || { echo "no libseccomp.so.2 to hide" >&2; exit 99; }
            mount --bind /dev/null "$library" && exec "$@"
            """
        return try Command.run("unshare", ["--mount", "sh", "-c", script, "sh", Paths.pushhost] + arguments, stdin: stdin, environment: environment)
    }

    /// `pushhost ARGUMENTS` where no user namespace can be made.
    static func withoutNamespaces(_ arguments: [String], stdin: String = "") throws -> Command {
        let script = #"echo 0 > /proc/sys/user/max_user_namespaces && exec "$@""#
        return try Command.run("unshare", ["--user", "--map-root-user", "sh", "-c", script, "sh", Paths.pushhost] + arguments, stdin: stdin)
    }

    @Test func withoutNamespacesTheOtherWallsStand() throws {
        let scratch = try Scratch()
        let secret = try WallsTests.secret(in: scratch)
        let plugin = try scratch.plugin("intruder.so", try PluginSource.fixture("intruder"))
        let flags = ["run", "--state", scratch.file("state"), "--plugin", plugin, "--isolate", "intruder", "--set", "intruder.try=read:\(secret)"]
        let on = try Self.withoutNamespaces(flags)
        #expect(on.status == 0, "\(on.stderr)")
        #expect(on.stderr.contains(
            "warning pushhost: plugin intruder: its worker runs without these walls: own namespaces (clone: No space left on device); standing: no capabilities,"),
            "\(on.stderr)")
        #expect(WallsTests.printed(in: on.stderr) == "intruder: read:\(secret): Permission denied", "\(on.stderr)")
        let strict = try Self.withoutNamespaces(flags + ["--sandbox", "strict"])
        #expect(strict.status == 1, "\(strict.stderr)")
        #expect(strict.stderr.contains("walls that cannot stand under --sandbox strict: own namespaces (clone: No space left on device)"), "\(strict.stderr)")
        #expect(WallsTests.printed(in: strict.stderr) == nil, "\(strict.stderr)")
        let listed = try Self.withoutNamespaces(["plugins", "--plugin", plugin, "--isolate", "all"])
        #expect(listed.stdout.contains("; cannot stand: own namespaces (clone: No space left on device)"), "\(listed.stdout)")
    }

    @Test func onRunsBehindTheWallsThatStandAndStrictRefuses() throws {
        let scratch = try Scratch()
        let secret = try WallsTests.secret(in: scratch)
        let plugin = try scratch.plugin("intruder.so", try PluginSource.fixture("intruder"))
        let flags = ["run", "--state", scratch.file("state"), "--plugin", plugin, "--isolate", "intruder", "--set", "intruder.try=read:\(secret)"]
        let message = #"{"message_id":"m1","data":{"title":"t"}}"# + "\n"
        // Its constructor marks each load in the one folder its settings file grants.
        try FileManager.default.createDirectory(atPath: scratch.file("marks"), withIntermediateDirectories: true)
        try scratch.write("intruder.json", #"{"sandbox": {"write": ["\#(scratch.file("marks"))"]}}"#)
        let marked = ["INTRUDER_MARK": scratch.file("marks/loaded")]

        let on = try Self.withoutSeccomp(flags + ["--report", scratch.file("on.ndjson")], stdin: message, environment: marked)
        #expect(on.status == 0, "\(on.stderr)")
        #expect(on.stderr.contains(
            "warning pushhost: plugin intruder: its worker runs without these walls: seccomp (libseccomp.so.2 cannot be opened"), "\(on.stderr)")
        // Landlock still stands: the read is refused, and the message is handled.
        #expect(on.stderr.contains("intruder: read:\(secret): Permission denied"), "\(on.stderr)")
        #expect(scratch.read("on.ndjson").contains(#""status":"delivered""#), "\(scratch.read("on.ndjson"))")
        #expect(on.stderr.contains("intruder: constructor: ok"), "\(on.stderr)")
        try FileManager.default.removeItem(atPath: scratch.file("marks/loaded"))

        let strict = try Self.withoutSeccomp(
            flags + ["--sandbox", "strict", "--report", scratch.file("strict.ndjson")], stdin: message, environment: marked)
        #expect(strict.status == 1, "\(strict.stderr)")
        #expect(strict.stderr.contains(
            "error pushhost: refused plugin \(plugin): walls that cannot stand under --sandbox strict: seccomp (libseccomp.so.2 cannot be opened"),
            "\(strict.stderr)")
        // Refused by its scan: its constructor never ran, nor its worker.
        #expect(!strict.stderr.contains("intruder: constructor"), "\(strict.stderr)")
        #expect(!FileManager.default.fileExists(atPath: scratch.file("marks/loaded")))
        #expect(!strict.stderr.contains("intruder: read:"), "\(strict.stderr)")
        #expect(scratch.read("strict.ndjson").isEmpty)

        // The listing says so too.
        let listed = try Self.withoutSeccomp(["plugins", "--plugin", plugin, "--isolate", "all"])
        #expect(listed.stdout.contains("  walls: own namespaces, no new privileges, no capabilities, landlock "), "\(listed.stdout)")
        #expect(listed.stdout.contains("; cannot stand: seccomp"), "\(listed.stdout)")
    }
}

/// Root with unshare(1), as CI is: there the test always runs.
private let canHideLibraries = ProcessInfo.processInfo.environment["CI"] == "true"
    || (getuid() == 0 && FileManager.default.isExecutableFile(atPath: "/usr/bin/unshare"))
