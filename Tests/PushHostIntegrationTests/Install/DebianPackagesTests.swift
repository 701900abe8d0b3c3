import Foundation
import Testing

/// The Debian packages, as an operator gets them: built by `make deb`,
/// checked by lintian, and run where only Debian and the packages are (the
/// toolchain hidden), unpacked, and installed with `dpkg --root`.
@Suite("Debian packages", .enabled(if: DebianPackages.canBuild || ProcessInfo.processInfo.environment["CI"] != nil),
       .timeLimit(.minutes(10)))
struct DebianPackagesTests {
    @Test("make deb builds six packages whose version is the binary's, with Depends computed by dpkg-shlibdeps")
    func packages() async throws {
        let debs = try await DebianPackages.shared()
        #expect(Set(debs.files.keys) == Set(DebianPackages.names), "\(debs.output)")
        let installed = try await Installation.shared()
        let version = try Command.run(installed.pushhost, ["--version"]).stdout.trimmingCharacters(in: .whitespacesAndNewlines)
        for name in DebianPackages.names {
            #expect(try debs.field(name, "Version") == version, "\(name)")
        }
        // The C library and libffi from Debian; the Swift runtime inside, never a dependency.
        let depends = try debs.field("pushhost", "Depends")
        #expect(depends.contains("libc6 (>=") && depends.contains("libffi8"), "\(depends)")
        #expect(!depends.contains("swift"), "\(depends)")
        #expect(try debs.field("pushhost-nats", "Depends").contains("libnats"))
        #expect(try debs.field("pushhost-desktop", "Depends").contains("libsystemd0"))
        #expect(try debs.field("pushhost-unifiedpush", "Depends").contains("libssl3"))
        #expect(try debs.field("pushhost-samples", "Depends").contains("pushhost (= \(version))"))
        let contents = try Command.run("dpkg-deb", ["-c", try #require(debs.files["pushhost"])]).stdout
        #expect(contents.contains("./usr/lib/pushhost/swift/libswiftCore.so"))
        #expect(contents.contains("./usr/lib/pushhost/plugins/\n"))
        #expect(!contents.contains("./usr/lib/pushhost/plugins/lib"), "a plugin in the package's plugins folder")
        #expect(!contents.contains("pushhost.worker.1"))
    }

    @Test("lintian reports no errors", .enabled(if: onPath("lintian") || ProcessInfo.processInfo.environment["CI"] != nil))
    func lintian() async throws {
        let debs = try await DebianPackages.shared()
        let result = try Command.run("lintian", ["--tag-display-limit", "0"] + DebianPackages.names.compactMap { debs.files[$0] })
        let errors = (result.stdout + result.stderr).split(separator: "\n").filter { $0.hasPrefix("E: ") }
        #expect(errors.isEmpty, "\(errors.joined(separator: "\n"))")
    }

    /// Unpacked into a fresh root, with the toolchain hidden: the version,
    /// the listing, a man page, the demo story through the packaged
    /// samples, and the packaged nats plugin against a real nats-server.
    @Test("unpacked into a fresh root, they run without a Swift toolchain",
          .enabled(if: WithoutToolchainTests.canHide, WithoutToolchainTests.why))
    func unpackedWithoutToolchain() async throws {
        let debs = try await DebianPackages.shared()
        let scratch = try Scratch()
        let root = scratch.file("root"), empty = scratch.file("empty")
        try FileManager.default.createDirectory(atPath: empty, withIntermediateDirectories: true)
        try debs.unpack(into: root)
        let pushhost = root + "/usr/bin/pushhost"

        let version = try WithoutToolchainTests.hidden(pushhost, ["--version"], empty: empty)
        #expect(version.status == 0, "\(version.stderr)")
        #expect(version.stdout.trimmingCharacters(in: .whitespacesAndNewlines) == (try debs.field("pushhost", "Version")))
        let listing = try WithoutToolchainTests.hidden(pushhost, ["plugins", "--plugins", root + "/usr/lib/pushhost/samples"], empty: empty)
        #expect(listing.status == 0 && listing.stdout.contains("orders 1.0.0"), "\(listing.stdout)\(listing.stderr)")
        let page = try WithoutToolchainTests.hidden("man", ["-l", root + "/usr/share/man/man1/pushhost.run.1.gz"], empty: empty)
        #expect(page.status == 0 && page.stdout.contains("--plugins"), "\(page.stderr)")
        try WithoutToolchainTests.playDemoStory(pushhost: pushhost, samples: root + "/usr/lib/pushhost/samples")

        // The packaged nats plugin, reading a real stream.
        guard NatsPlugin.canRun else { return }
        let server = try NatsServer(scratch)
        let settings = NatsHost.defaults.merging(["servers": server.url]) { $1 }
        let toolchain = try #require(WithoutToolchainTests.toolchain)
        let host = try HostProcess(
            ["-m", "sh", "-c", #"mount --bind "$1" "$2" && shift 2 && exec "$@""#, "sh", empty, toolchain, pushhost,
             "run", "--state", scratch.file("state"), "--report", scratch.file("nats.ndjson"),
             "--plugin", root + "/usr/lib/pushhost/transports/libpushhost-nats.so", "--plugin", root + "/usr/lib/pushhost/samples/libtoken-log.so"]
                + settings.sorted { $0.key < $1.key }.flatMap { ["--set", "nats.\($0.key)=\($0.value)"] },
            program: "/usr/bin/unshare", errorPath: scratch.file("nats-stderr.log"))
        try #require(host.waitForStderr("info nats: reading the stream"), "\(host.stderr)")
        try server.publish([natsRecord("n-1"), natsRecord("n-2")], to: "pushes.a")
        let reported = eventually(timeout: .seconds(30)) { ((try? scratch.reportLines("nats.ndjson", lenient: true)) ?? []).count == 2 }
        #expect(reported, "\(host.stderr)")
        #expect(host.stop() == .status(0), "\(host.stderr)")
        #expect(try scratch.reportLines("nats.ndjson").compactMap { $0["id"] as? String } == ["n-1", "n-2"])
    }

    /// Installed for real by dpkg into a throwaway root: dpkg knows every
    /// file, the binary runs, and removing the samples leaves pushhost.
    @Test("dpkg --root installs them, and removes one")
    func dpkgRoot() async throws {
        let debs = try await DebianPackages.shared()
        let scratch = try Scratch()
        let root = scratch.file("root")
        for folder in ["var/lib/dpkg/info", "var/lib/dpkg/updates", "var/lib/dpkg/triggers"] {
            try FileManager.default.createDirectory(atPath: root + "/" + folder, withIntermediateDirectories: true)
        }
        try "".write(toFile: root + "/var/lib/dpkg/status", atomically: false, encoding: .utf8)
        // The root has no libc6 package: its own system's libraries serve.
        let dpkg = ["--root=" + root, "--force-depends", "--force-script-chrootless", "--log=" + scratch.file("dpkg.log")]
        let install = try Command.run("dpkg", dpkg + ["-i"] + DebianPackages.names.compactMap { debs.files[$0] })
        #expect(install.status == 0, "\(install.stdout)\(install.stderr)")
        let listed = try Command.run("dpkg", ["--root=" + root, "-L", "pushhost"])
        #expect(listed.stdout.contains("/usr/lib/pushhost/swift/libswiftCore.so"), "\(listed.stdout)")
        let version = try Command.run(root + "/usr/bin/pushhost", ["--version"])
        #expect(version.stdout.trimmingCharacters(in: .whitespacesAndNewlines) == (try debs.field("pushhost", "Version")))
        let remove = try Command.run("dpkg", dpkg + ["-r", "pushhost-samples"])
        #expect(remove.status == 0, "\(remove.stderr)")
        #expect(!FileManager.default.fileExists(atPath: root + "/usr/lib/pushhost/samples/libnotify.so"))
        #expect(FileManager.default.fileExists(atPath: root + "/usr/bin/pushhost"))
    }
}
