import Foundation
import Testing

/// The installed pushhost where no Swift toolchain is: each test runs it in
/// a mount namespace of its own (`unshare -m`) in which an empty folder
/// hides the toolchain that built it, as on a server, gateway or kiosk. The
/// binary and the Swift samples find the runtime `make install` copied
/// into `lib/pushhost/swift`, through their `$ORIGIN`-relative RUNPATH.
@Suite("without a Swift toolchain", .timeLimit(.minutes(10)))
struct WithoutToolchainTests {
    /// The toolchain's root: four folders above its runtime
    /// (`ROOT/usr/lib/swift/linux`), as `swift -print-target-info` names it.
    static let toolchain: String? = {
        guard let info = try? Command.run("swift", ["-print-target-info"]),
              let json = try? JSONSerialization.jsonObject(with: Data(info.stdout.utf8)) as? [String: Any],
              let paths = json["paths"] as? [String: Any],
              let runtime = (paths["runtimeLibraryPaths"] as? [String])?.first else { return nil }
        return URL(fileURLWithPath: runtime).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().deletingLastPathComponent().path
    }()

    /// Whether this machine can hide a folder in a mount namespace; CI must.
    static let canHide: Bool = {
        guard let toolchain, let empty = try? Scratch() else { return false }
        let probe = try? hidden("true", [], empty: empty.path, toolchain: toolchain)
        return probe?.status == 0 || ProcessInfo.processInfo.environment["CI"] != nil
    }()

    static let why: Comment = "hiding the toolchain needs a mount namespace (unshare -m, as root)"

    /// Runs `program ARGUMENTS` with the toolchain hidden behind the empty `folder`.
    static func hidden(
        _ program: String, _ arguments: [String], empty folder: String, toolchain: String? = toolchain, stdin: String = "", directory: String? = nil
    ) throws -> Command {
        let toolchain = try #require(toolchain, "swift -print-target-info names no runtime folder")
        return try Command.run(
            "unshare", ["-m", "sh", "-c", #"mount --bind "$1" "$2" && test ! -e "$2/usr/bin/swift" && shift 2 && exec "$@""#,
                        "sh", folder, toolchain, program] + arguments,
            stdin: stdin, directory: directory)
    }

    @Test("pushhost --version and plugins run, and its man page renders", .enabled(if: canHide, why))
    func versionAndListing() async throws {
        let installed = try await Installation.shared()
        let scratch = try Scratch()
        let empty = scratch.file("empty")
        try FileManager.default.createDirectory(atPath: empty, withIntermediateDirectories: true)
        let shown = try Command.run(installed.pushhost, ["--version"])
        let version = try Self.hidden(installed.pushhost, ["--version"], empty: empty)
        #expect(version.status == 0, "\(version.stderr)")
        #expect(version.stdout == shown.stdout && !shown.stdout.isEmpty)
        let listing = try Self.hidden(installed.pushhost, ["plugins", "--plugins", installed.samplesdir], empty: empty)
        for name in ["inbox", "orders", "debounce", "cache"] {
            #expect(listing.stdout.contains("\n\(name) ") || listing.stdout.hasPrefix("\(name) "), "\(name) not listed:\n\(listing.stdout)\(listing.stderr)")
        }
        let page = try Self.hidden("man", ["-l", installed.man1dir + "/pushhost.run.1"], empty: empty)
        #expect(page.status == 0 && page.stdout.contains("--plugins"), "\(page.stderr)")
        // Without the copied runtime, it would not start: the RUNPATH names nothing else.
        let runpath = try Command.run("readelf", ["-d", installed.pushhost])
        #expect(runpath.stdout.contains("(RUNPATH)") && runpath.stdout.contains("[$ORIGIN/../lib/pushhost/swift]"), "\(runpath.stdout)")
    }

    /// The README's demo story, through the installed samples (C and Swift:
    /// inbox's async data stage, orders' screen, debounce's interceptor).
    @Test("the demo story runs through the installed samples", .enabled(if: canHide, why))
    func demoStory() async throws {
        let installed = try await Installation.shared()
        try Self.playDemoStory(pushhost: installed.pushhost, samples: installed.samplesdir)
    }

    /// Plays the demo story, as examples/demo.sh does, through `pushhost`
    /// and ten of the samples in `samples`, with the toolchain hidden, and
    /// checks that every record was reported and each Swift sample did its
    /// part: in the host, then as the installed units run it, every plugin
    /// isolated behind the default walls (`cache` and `inbox` granted the
    /// folder they write), without a crash.
    static func playDemoStory(pushhost: String, samples: String) throws {
        try playDemoStory(pushhost: pushhost, samples: samples, isolated: false)
        try playDemoStory(pushhost: pushhost, samples: samples, isolated: true)
    }

    private static func playDemoStory(pushhost: String, samples: String, isolated: Bool) throws {
        let scratch = try Scratch()
        let empty = scratch.file("empty")
        let plugins = scratch.file("plugins")
        for folder in [empty, plugins, scratch.file(".build/demo/out")] {
            try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        }
        for name in ["cache", "notify", "issues", "supplies", "token-log", "inbox", "orders", "dedupe", "enrich", "debounce"] {
            try FileManager.default.copyItem(atPath: "\(samples)/lib\(name).so", toPath: "\(plugins)/\(name).so")
        }
        for settings in ["cache", "inbox", "enrich"] {
            try FileManager.default.copyItem(
                atPath: Paths.packageRoot.appendingPathComponent("examples/plugins/\(settings).json").path, toPath: "\(plugins)/\(settings).json")
        }
        let storyPath = Paths.packageRoot.appendingPathComponent("examples/story.ndjson").path
        let story = try String(contentsOfFile: storyPath, encoding: .utf8)
        // Played as the demo plays it: a blank line is half a second of quiet.
        let play = #"file=$1 pushhost=$2; shift 2; while IFS= read -r line || [ -n "$line" ]; do if [ -z "$line" ]; then sleep 0.5; else printf '%s\n' "$line"; fi; done < "$file" | "$pushhost" run "$@""#
        let out = scratch.file(".build/demo/out")
        let walls = isolated ? ["--isolate", "all", "--sandbox", "on", "--set", "cache.sandbox.write=\(out)", "--set", "inbox.sandbox.write=\(out)"] : []
        let run = try hidden(
            "bash", ["-c", play, "bash", storyPath, pushhost, "--plugins", plugins, "--platform", "android", "--state", scratch.file("state"),
                     "--report", scratch.file("report.ndjson")] + walls,
            empty: empty, directory: scratch.path)
        #expect(run.status == 0, "\(run.stderr)")
        #expect(!run.stderr.contains("crashed"), "\(run.stderr)")
        let report = try scratch.reportLines()
        // Every record of the story has its line (a retained action has two); the
        // blank lines, played as pauses, never reach the host.
        let records = story.split(separator: "\n").count
        let lines = Set(report.compactMap { ($0["source"] as? [String: Any])?["line"] as? Int })
        #expect(lines == Set(1...records), "\(scratch.read("report.ndjson"))")
        #expect(report.contains { ($0["ui"] as? [String]) == ["orders"] }, "orders (Swift) showed nothing: \(scratch.read("report.ndjson"))")
        #expect(report.contains { $0["by"] as? String == "debounce" }, "debounce (Swift) stopped nothing")
        #expect(!scratch.read(".build/demo/out/inbox.tsv").isEmpty, "inbox (Swift) filed nothing")
        #expect(!run.stderr.contains("refused"), "\(run.stderr)")
    }

    /// With the toolchain present, the installed host and a Swift sample
    /// still use one runtime, the copied one: the dynamic loader initializes
    /// libswiftCore.so once, from lib/pushhost/swift.
    @Test("the installed host and its Swift samples load one copy of the runtime")
    func oneRuntime() async throws {
        let installed = try await Installation.shared()
        let scratch = try Scratch()
        try scratch.write("inbox.json", #"{"path": "inbox.tsv"}"#)
        try FileManager.default.copyItem(atPath: installed.samplesdir + "/libinbox.so", toPath: scratch.file("inbox.so"))
        let run = try Command.run(
            installed.pushhost,
            ["run", "--plugin", scratch.file("inbox.so"), "--state", scratch.file("state"), "--report", scratch.file("report.ndjson")],
            stdin: #"{"message_id":"m-1","data":{"n":"1"}}"# + "\n", environment: ["LD_DEBUG": "files"], directory: scratch.path)
        #expect(run.status == 0, "\(run.stderr.suffix(2000))")
        let inits = run.rawStderr.split(separator: "\n").filter { $0.contains("calling init:") && $0.contains("/libswiftCore.so") }
        #expect(inits.count == 1, "\(inits)")
        let path = inits.first.map { line in line.range(of: "calling init: ").map { String(line[$0.upperBound...]) } ?? "" } ?? ""
        let loaded = URL(fileURLWithPath: path).standardizedFileURL.resolvingSymlinksInPath().path
        let copied = URL(fileURLWithPath: installed.swiftlibdir + "/libswiftCore.so").resolvingSymlinksInPath().path
        #expect(loaded == copied, "\(inits)")
        #expect(scratch.read("inbox.tsv").hasPrefix("m-1\t"))
    }
}
