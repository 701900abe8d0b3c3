import Foundation
import Testing

/// `make install`, as someone who installs pushhost runs it, and what it
/// installs, used the way its users use it: a plugin author compiles against
/// the .pc file, the installed host loads that plugin from pluginsdir (where
/// no sample is), `man` shows the pages, systemd reads the units.
@Suite("make install", .timeLimit(.minutes(10)))
struct InstallTests {
    /// The sample plugins Package.swift builds from plugins/.
    static let samples = [
        "cache", "notify", "issues", "supplies", "token-log", "fifo-source", "dedupe", "enrich", "inbox", "orders", "debounce",
    ]

    /// The commands (docs/running.md), each with a man page of its own.
    static let commands = ["run", "plugins", "check", "token", "send", "new"]

    @Test("pkg-config names the installed header folder, the version of the installed binary and pluginsdir")
    func pkgConfig() async throws {
        let installed = try await Installation.shared()
        let cflags = try installed.pkgConfig(["--cflags"])
        #expect(cflags.status == 0, "\(cflags.stderr)")
        #expect(cflags.stdout.trimmingCharacters(in: .whitespacesAndNewlines) == "-I\(installed.prefix)/include")
        #expect(FileManager.default.fileExists(atPath: installed.prefix + "/include/pushhost.h"))

        let version = try Command.run(installed.pushhost, ["--version"])
        #expect(version.status == 0)
        let release = version.stdout.trimmingCharacters(in: .whitespacesAndNewlines)
        #expect(!release.isEmpty)
        let modversion = try installed.pkgConfig(["--modversion"])
        #expect(modversion.stdout.trimmingCharacters(in: .whitespacesAndNewlines) == release)

        let pluginsdir = try installed.pkgConfig(["--variable=pluginsdir"])
        #expect(pluginsdir.stdout.trimmingCharacters(in: .whitespacesAndNewlines) == installed.pluginsdir)
        // Plugins link nothing of pushhost's.
        let libs = try installed.pkgConfig(["--libs"])
        #expect(libs.status == 0)
        #expect(libs.stdout.trimmingCharacters(in: .whitespacesAndNewlines) == "")
        print("make install (release build, man pages, completions) took \(installed.duration)")
    }

    /// The plugin is Tests/Fixtures/plugins/thirdparty.c: one background
    /// handler that prints the title.
    @Test("a plugin compiled with pkg-config's flags loads into the installed host beside the samples")
    func thirdPartyPlugin() async throws {
        let installed = try await Installation.shared()
        let scratch = try Scratch()
        try scratch.write("x.c", PluginSource.fixture("thirdparty"))
        let compile = try Command.run(
            "sh", ["-c", "cc -shared -fPIC $(pkg-config --cflags pushhost) x.c -o libx.so"],
            environment: ["PKG_CONFIG_PATH": installed.pkgconfigdir], directory: scratch.path)
        try #require(compile.status == 0, "cc failed:\n\(compile.stderr)")
        let install = try Command.run("install", ["-m", "0755", scratch.file("libx.so"), installed.pluginsdir + "/libx.so"])
        try #require(install.status == 0, "\(install.stderr)")

        let listing = try Command.run(installed.pushhost, ["plugins", "--plugins", installed.pluginsdir])
        #expect(listing.status == 0, "\(listing.stderr)")
        let names = listing.stdout.split(separator: "\n")
            .filter { !($0.first?.isWhitespace ?? true) }
            .compactMap { $0.split(separator: " ").first.map(String.init) }
        // The samples are not in pluginsdir: it holds what the operator put there.
        #expect(names == ["thirdparty"], "\(listing.stdout)")

        let run = try Command.run(
            installed.pushhost,
            ["run", "--plugins", installed.pluginsdir, "--skip-bad-plugins",
             "--state", scratch.file("state"), "--report", scratch.file("report.ndjson")],
            stdin: #"{"message_id":"m-1","notification":{"title":"Installed and loaded"}}"# + "\n")
        #expect(run.status == 0, "\(run.stderr)")
        #expect(run.stdout.contains("thirdparty: Installed and loaded"), "stdout: \(run.stdout)\nstderr: \(run.stderr)")
        let lines = try scratch.reportLines()
        try #require(lines.count == 1, "\(scratch.read("report.ndjson"))")
        #expect(lines[0]["status"] as? String == "delivered")
        #expect((lines[0]["ui"] as? [String] ?? []).contains("thirdparty"), "\(lines[0])")
    }

    @Test("the man pages render and the completions know the commands")
    func manPagesAndCompletions() async throws {
        let installed = try await Installation.shared()
        let pages = try FileManager.default.contentsOfDirectory(atPath: installed.man1dir)
        #expect(pages.contains("pushhost.1"))
        for command in Self.commands {
            #expect(pages.contains("pushhost.\(command).1"), "no page for \(command): \(pages.sorted())")
        }
        #expect(!pages.contains("pushhost.help.1"))
        // The hidden worker command has no page.
        #expect(!pages.contains("pushhost.worker.1"))
        for page in pages {
            let rendered = try Self.render(installed.man1dir + "/" + page)
            #expect(rendered.status == 0, "\(page): \(rendered.stderr)")
            #expect(rendered.stdout.contains("pushhost"), "\(page) rendered as:\n\(rendered.stdout)")
        }
        let run = try Self.render(installed.man1dir + "/pushhost.run.1")
        for option in ["--watch", "--plugins", "--skip-bad-plugins", "--state"] {
            #expect(run.stdout.contains(option), "pushhost.run.1 does not show \(option):\n\(run.stdout)")
        }

        let share = installed.prefix + "/share"
        let completions = [
            "bash": share + "/bash-completion/completions/pushhost",
            "zsh": share + "/zsh/site-functions/_pushhost",
            "fish": share + "/fish/vendor_completions.d/pushhost.fish",
        ]
        for (shell, path) in completions.sorted(by: { $0.key < $1.key }) {
            let text = (try? String(contentsOfFile: path, encoding: .utf8)) ?? ""
            #expect(text.contains("plugins"), "the \(shell) completion at \(path) does not offer plugins")
        }
        // The hidden worker command is offered by none.
        let bashText = (try? String(contentsOfFile: try #require(completions["bash"]), encoding: .utf8)) ?? ""
        #expect(bashText.contains("'run plugins check token send new help'"), "the bash completion's commands changed")
        // zsh lists a command as 'send:ABSTRACT', fish as -fa 'send'.
        for (shell, listed) in [("zsh", { (name: String) in "'\(name):" }), ("fish", { (name: String) in "-fa '\(name)'" })] {
            let text = (try? String(contentsOfFile: try #require(completions[shell]), encoding: .utf8)) ?? ""
            #expect(text.contains(listed("send")) && !text.contains(listed("worker")), "\(shell) offers worker, or lists no command")
        }
        let bash = try Command.run("bash", ["-n", try #require(completions["bash"])])
        #expect(bash.status == 0, "\(bash.stderr)")
        let zsh = (try? String(contentsOfFile: try #require(completions["zsh"]), encoding: .utf8)) ?? ""
        #expect(zsh.hasPrefix("#compdef pushhost"))
    }

    /// The guides in docs/ (and their pictures), which install beside the README.
    static let guides: [String] = ((try? FileManager.default.contentsOfDirectory(
        atPath: Paths.packageRoot.appendingPathComponent("docs").path)) ?? []).filter { $0.hasSuffix(".md") || $0.hasSuffix(".png") }

    /// The Swift SDK's sources, which install as a package of their own.
    static let sdkSources: [String] = ((try? FileManager.default.contentsOfDirectory(
        atPath: Paths.packageRoot.appendingPathComponent("sdk/Sources/PushHostPlugin").path)) ?? []).filter { $0.hasSuffix(".swift") }

    @Test("DESTDIR stages the files under the final prefix's paths, and uninstall removes them all")
    func destdirAndUninstall() async throws {
        let installed = try await Installation.shared()
        let scratch = try Scratch()
        let stage = scratch.file("stage")
        try Installation.make(["install", "DESTDIR=\(stage)", "PREFIX=/usr"], scratch: installed.scratch)

        let files = try Self.files(under: stage)
        #expect(files.allSatisfy { $0.hasPrefix("usr/") }, "\(files)")
        // The Swift runtime the binary and the Swift samples link, from the toolchain.
        let runtime = files.filter { $0.hasPrefix("usr/lib/pushhost/swift/") }
        #expect(runtime.contains("usr/lib/pushhost/swift/libswiftCore.so"), "\(runtime)")
        #expect(runtime.allSatisfy { $0.hasSuffix(".so") })
        // A first start loads nothing: pluginsdir is there, and empty.
        #expect(try FileManager.default.contentsOfDirectory(atPath: stage + "/usr/lib/pushhost/plugins") == [])
        let pages = try FileManager.default.contentsOfDirectory(atPath: installed.man1dir).map { "usr/share/man/man1/" + $0 }
        let expected = Set([
            "usr/bin/pushhost",
            "usr/include/pushhost.h",
            "usr/lib/pkgconfig/pushhost.pc",
            "usr/lib/systemd/system/pushhost.service",
            "usr/lib/systemd/user/pushhost.service",
            "usr/share/bash-completion/completions/pushhost",
            "usr/share/zsh/site-functions/_pushhost",
            "usr/share/fish/vendor_completions.d/pushhost.fish",
            "usr/share/doc/pushhost/README.md",
            "usr/share/doc/pushhost/LICENSE",
            "usr/share/doc/pushhost/CHANGELOG.md",
            "usr/share/pushhost/PushHostPlugin/Package.swift",
            "usr/share/pushhost/PushHostPlugin/include/pushhost.h",
            "usr/share/pushhost/PushHostPlugin/include/module.modulemap",
            "usr/share/pushhost/sdk/python/pushhost.py",
            "usr/share/pushhost/sdk/node/pushhost.js",
        ] + Self.samples.map { "usr/lib/pushhost/samples/lib\($0).so" } + pages + Self.guides.map { "usr/share/doc/pushhost/docs/" + $0 }
          + runtime
          + Self.sdkSources.map { "usr/share/pushhost/PushHostPlugin/Sources/PushHostPlugin/" + $0 })
        #expect(Set(files) == expected, "extra: \(Set(files).subtracting(expected).sorted()), missing: \(expected.subtracting(files).sorted())")

        // The files that name paths name the final ones, never the stage.
        let pc = scratch.read("stage/usr/lib/pkgconfig/pushhost.pc")
        #expect(pc.split(separator: "\n").contains("prefix=/usr"), "\(pc)")
        let pcVariables = try Command.run(
            "pkg-config", ["--variable=pluginsdir", "pushhost"], environment: ["PKG_CONFIG_PATH": stage + "/usr/lib/pkgconfig"])
        #expect(pcVariables.stdout.trimmingCharacters(in: .whitespacesAndNewlines) == "/usr/lib/pushhost/plugins")
        let system = scratch.read("stage/usr/lib/systemd/system/pushhost.service")
        #expect(system.contains("\nExecStart=/usr/bin/pushhost run --plugins /usr/lib/pushhost/plugins "), "\(system)")
        // Metrics and health on loopback only, in the system unit; off in the user unit (a port per user).
        #expect(system.contains("\nEnvironment=PUSHHOST_METRICS=127.0.0.1:9469\n"), "\(system)")
        let user = scratch.read("stage/usr/lib/systemd/user/pushhost.service")
        #expect(user.contains(" /usr/bin/pushhost /usr/lib/pushhost/plugins\n"), "\(user)")
        #expect(!user.contains("\nEnvironment=PUSHHOST_METRICS"), "\(user)")
        for text in [pc, system, user] {
            #expect(!text.contains(stage))
            for placeholder in ["@prefix@", "@includedir@", "@libdir@", "@pluginsdir@", "@bindir@", "@version@"] {
                #expect(!text.contains(placeholder), "\(placeholder) is left:\n\(text)")
            }
        }
        #expect(try Self.mode(stage + "/usr/bin/pushhost") == 0o755)
        #expect(try Self.mode(stage + "/usr/lib/pushhost/samples/libcache.so") == 0o755)
        #expect(try Self.mode(stage + "/usr/lib/pushhost/swift/libswiftCore.so") == 0o644)
        #expect(try Self.mode(stage + "/usr/include/pushhost.h") == 0o644)

        try Installation.make(["uninstall", "DESTDIR=\(stage)", "PREFIX=/usr"], scratch: installed.scratch)
        #expect(try Self.files(under: stage) == [], "uninstall left files behind")
        // pushhost's own folders go; shared ones stay.
        for folder in ["usr/lib/pushhost/plugins", "usr/lib/pushhost/samples", "usr/lib/pushhost/swift", "usr/lib/pushhost",
                       "usr/share/doc/pushhost/docs", "usr/share/doc/pushhost", "usr/share/pushhost"] {
            #expect(!FileManager.default.fileExists(atPath: stage + "/" + folder), "\(folder) is still there")
        }
        #expect(FileManager.default.fileExists(atPath: stage + "/usr/bin"))
    }

    @Test("systemd-analyze verify accepts the installed units", .enabled(if: onPath("systemd-analyze")))
    func unitsVerify() async throws {
        let installed = try await Installation.shared()
        let scratch = try Scratch()
        // Documentation= names man pages: they must be found where they were installed.
        let manpath = installed.prefix + "/share/man"
        let system = try Command.run(
            "systemd-analyze", ["verify", installed.systemUnit], environment: ["MANPATH": manpath])
        #expect(system.status == 0, "\(system.stderr)")
        #expect(!system.stderr.contains("pushhost"), "\(system.stderr)")

        // A user manager needs a runtime folder.
        let runtime = scratch.file("runtime")
        try FileManager.default.createDirectory(atPath: runtime, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
        let user = try Command.run(
            "systemd-analyze", ["verify", "--user", installed.userUnit],
            environment: ["MANPATH": manpath, "XDG_RUNTIME_DIR": runtime])
        #expect(user.status == 0, "\(user.stderr)")
        #expect(!user.stderr.contains("pushhost"), "\(user.stderr)")
    }

    @Test("the units' command lines start, create their spool, and deliver what pushhost send drops")
    func unitCommandLines() async throws {
        let installed = try await Installation.shared()
        let scratch = try Scratch()

        // The system unit, with /var/lib/pushhost (StateDirectory=, 0700) in the scratch folder.
        let state = scratch.file("var-lib-pushhost")
        try FileManager.default.createDirectory(atPath: state, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
        let systemLine = try Self.execStart(installed.systemUnit).replacingOccurrences(of: "/var/lib/pushhost", with: state)
        let systemWords = systemLine.split(separator: " ").map(String.init)
        let environment = ["PATH": ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin", "HOME": scratch.file("nohome")]
        let system = try HostProcess(
            Array(systemWords.dropFirst()), program: systemWords[0], errorPath: scratch.file("system.log"),
            environment: environment, inheriting: false)
        try Self.deliverOne(through: installed, spool: state + "/spool", host: system)
        // A fresh install's pluginsdir holds no sample to refuse.
        #expect(!system.stderr.contains("refused"), "\(system.stderr)")

        // The user unit: its shell works out pushhost's default state folder,
        // and pushhost makes it and the spool in it.
        let home = scratch.file("home")
        try FileManager.default.createDirectory(atPath: home, withIntermediateDirectories: true)
        let userLine = try Self.execStart(installed.userUnit).replacingOccurrences(of: "$$", with: "$")
        let user = try HostProcess(
            ["-c", "exec " + userLine], program: "/bin/sh", errorPath: scratch.file("user.log"),
            environment: ["PATH": environment["PATH"] ?? "/usr/bin:/bin", "HOME": home], inheriting: false)
        try Self.deliverOne(through: installed, spool: home + "/.local/state/pushhost/spool", host: user)
        #expect(FileManager.default.fileExists(atPath: home + "/.local/state/pushhost/delivered.ndjson"))

        let stateHome = scratch.file("state-home")
        let userWithStateHome = try HostProcess(
            ["-c", "exec " + userLine], program: "/bin/sh", errorPath: scratch.file("user-state-home.log"),
            environment: ["PATH": environment["PATH"] ?? "/usr/bin:/bin", "HOME": home, "XDG_STATE_HOME": stateHome], inheriting: false)
        try Self.deliverOne(through: installed, spool: stateHome + "/pushhost/spool", host: userWithStateHome)
    }

    @Test("systemctl reload's command reloads the system unit's host: RELOADING=1, then READY=1")
    func unitReload() async throws {
        let installed = try await Installation.shared()
        let scratch = try Scratch()
        let state = scratch.file("var-lib-pushhost")
        try FileManager.default.createDirectory(atPath: state, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
        let words = try Self.execStart(installed.systemUnit).replacingOccurrences(of: "/var/lib/pushhost", with: state)
            .split(separator: " ").map(String.init)
        let manager = try NotifyListener()
        let host = try HostProcess(
            Array(words.dropFirst()), program: words[0], errorPath: scratch.file("system.log"),
            environment: manager.environment(["PATH": ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin", "HOME": scratch.file("nohome")]),
            inheriting: false)
        #expect(manager.waitFor { $0.contains { $0.has("READY=1") } }, "\(manager.texts)\n\(host.stderr)")
        let reload = try Self.unitLine("ExecReload", of: installed.systemUnit).replacingOccurrences(of: "$MAINPID", with: "\(host.pid)")
            .split(separator: " ").map(String.init)
        let run = try Command.run(reload[0], Array(reload.dropFirst()), stdin: "")
        #expect(run.status == 0, "\(run.stderr)")
        #expect(manager.waitFor { $0.filter { $0.has("READY=1") }.count == 2 }, "\(manager.texts)\n\(host.stderr)")
        #expect(manager.texts.contains { $0.has("RELOADING=1") }, "\(manager.texts)")
        #expect(host.stderr.contains("reloaded: nothing changed, unchanged "), "\(host.stderr)")
        try Self.deliverOne(through: installed, spool: state + "/spool", host: host)
    }

    @Test(
        "a message root drops with pushhost send reaches the system unit's host, which runs as another user",
        .enabled(if: geteuid() == 0 && onPath("setpriv")))
    func rootProducer() async throws {
        let installed = try await Installation.shared()
        let scratch = try Scratch()
        // The unprivileged user must reach the binary and its state folder.
        chmod(installed.root, 0o711)
        chmod(scratch.path, 0o711)
        let state = scratch.file("var-lib-pushhost")
        try FileManager.default.createDirectory(atPath: state, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
        try #require(chown(state, 65534, 65534) == 0)
        let words = try Self.execStart(installed.systemUnit).replacingOccurrences(of: "/var/lib/pushhost", with: state)
            .split(separator: " ").map(String.init)
        let host = try HostProcess(
            ["--reuid=65534", "--regid=65534", "--clear-groups", "--"] + words, program: "/usr/bin/setpriv",
            errorPath: scratch.file("host.log"), environment: ["PATH": "/usr/bin:/bin", "HOME": "/nonexistent"], inheriting: false)
        let spool = state + "/spool"
        try #require(host.waitForStderr("watching \(spool)/new"), "\(host.stderr)")
        let send = try Command.run(installed.pushhost, ["send", "--to", spool], stdin: Self.message)
        try #require(send.status == 0, "\(send.stderr)")
        // The file is the spool owner's (pushhost send gives it away), so the host can open it.
        let handled = eventually(timeout: .seconds(20)) { Self.count(spool + "/cur") + Self.count(spool + "/failed") > 0 }
        #expect(handled, "\(host.stderr)")
        #expect(Self.count(spool + "/cur") == 1, "\(host.stderr)")
        #expect(Self.count(spool + "/failed") == 0, "\(host.stderr)")
        #expect(host.stop() == .status(0))
    }

    // MARK: - Helpers

    static let message = #"{"message_id":"m-unit","notification":{"title":"From the spool"}}"# + "\n"

    /// Waits for `host` to watch `spool`, drops one message with the
    /// installed `pushhost send`, waits for it to be handled (moved to
    /// `cur/`), and stops the host, which must exit 0.
    static func deliverOne(through installed: Installation, spool: String, host: HostProcess) throws {
        try #require(host.waitForStderr("watching \(spool)/new"), "the host never watched \(spool):\n\(host.stderr)")
        let send = try Command.run(installed.pushhost, ["send", "--to", spool], stdin: message)
        try #require(send.status == 0, "\(send.stderr)")
        let moved = eventually(timeout: .seconds(20)) { count(spool + "/cur") == 1 }
        #expect(moved, "the message was not handled:\n\(host.stderr)")
        #expect(count(spool + "/failed") == 0)
        #expect(host.stop() == .status(0), "\(host.stderr)")
    }

    /// The value of the unit's `ExecStart=`.
    static func execStart(_ unit: String) throws -> String {
        try unitLine("ExecStart", of: unit)
    }

    /// The value of the unit's `KEY=`.
    static func unitLine(_ key: String, of unit: String) throws -> String {
        let text = try String(contentsOfFile: unit, encoding: .utf8)
        let line = try #require(text.split(separator: "\n").first { $0.hasPrefix(key + "=") }, "no \(key) in \(unit)")
        return String(line.dropFirst(key.count + 1))
    }

    /// Renders a man page as text: `man -l`, else groff.
    static func render(_ page: String) throws -> Command {
        let environment = ["LC_ALL": "C", "MANWIDTH": "100", "MANPAGER": "cat", "PAGER": "cat"]
        if onPath("man") { return try Command.run("man", ["-l", page], environment: environment) }
        return try Command.run("groff", ["-mandoc", "-Tascii", page], environment: environment)
    }

    /// The paths of the files and links under `folder`, relative to it, sorted.
    static func files(under folder: String) throws -> [String] {
        guard let walk = FileManager.default.enumerator(atPath: folder) else { return [] }
        var found: [String] = []
        while let path = walk.nextObject() as? String {
            let attributes = try FileManager.default.attributesOfItem(atPath: folder + "/" + path)
            if attributes[.type] as? FileAttributeType != .typeDirectory { found.append(path) }
        }
        return found.sorted()
    }

    static func mode(_ path: String) throws -> Int {
        try #require(try FileManager.default.attributesOfItem(atPath: path)[.posixPermissions] as? Int)
    }

    static func count(_ folder: String) -> Int {
        (try? FileManager.default.contentsOfDirectory(atPath: folder).count) ?? 0
    }
}
