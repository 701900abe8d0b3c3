import Foundation
import Testing

/// The walls around an isolated plugin (`--sandbox on`, docs/running.md,
/// walls): a hostile plugin, run by the real binary in its worker, tries
/// what a plugin should not do, and is refused; the same plugin with the
/// grant that allows it succeeds, so each test can fail.
@Suite struct WallsTests {
    /// Runs the intruder isolated behind walls (or with `sandbox`), trying
    /// `what` with the extra `--set` grants; the line it printed
    /// (`intruder: WHAT: ok` or the error), and the host's standard error.
    static func attempt(
        _ what: String, grants: [String] = [], in scratch: Scratch, sandbox: String = "on", extra: [String] = []
    ) throws -> (line: String?, stderr: String) {
        let plugin = try scratch.plugin("intruder.so", try PluginSource.fixture("intruder"))
        let run = try scratch.run(
            ["--plugin", plugin, "--isolate", "intruder", "--sandbox", sandbox, "--set", "intruder.try=\(what)"]
                + grants.flatMap { ["--set", "intruder.sandbox.\($0)"] } + extra,
            stdin: "")
        return (printed(in: run.stderr), run.stderr)
    }

    /// The first line the intruder printed (`intruder: ...`), in the host's
    /// standard error: as it came from a plugin in the host, or from the
    /// log line that carries a worker's output (`info pushhost: plugin intruder: intruder: ...`).
    static func printed(in stderr: String) -> String? {
        let carried = "pushhost: plugin intruder: "
        return stderr.split(separator: "\n").lazy.compactMap { line -> String? in
            let text = line.range(of: carried).map { line[$0.upperBound...] } ?? line
            return text.hasPrefix("intruder: ") ? String(text) : nil
        }.first
    }

    /// `unseen`: a process outside the walls may also not exist for it (its namespace holds only its own).
    static func expectRefused(_ result: (line: String?, stderr: String), _ what: String, unseen: Bool = false) {
        let line = result.line ?? ""
        #expect(line.hasPrefix("intruder: \(what): ") && !line.hasSuffix(": ok"), "\(result.stderr)")
        #expect(
            line.hasSuffix("Permission denied") || line.hasSuffix("Operation not permitted") || (unseen && line.hasSuffix("No such process")),
            "\(line)")
    }

    static func expectDone(_ result: (line: String?, stderr: String), _ what: String) {
        #expect(result.line == "intruder: \(what): ok", "\(result.stderr)")
    }

    /// A secret file of the test's own, outside everything the plugin is granted.
    static func secret(in scratch: Scratch, _ name: String = "home/secret") throws -> String {
        let path = scratch.file(name)
        try FileManager.default.createDirectory(atPath: (path as NSString).deletingLastPathComponent, withIntermediateDirectories: true)
        try "do not read\n".write(toFile: path, atomically: true, encoding: .utf8)
        return path
    }

    @Test func theHostsTokenIsOutOfReach() throws {
        let scratch = try Scratch()
        // A token the host stored, as it keeps it in its state directory.
        _ = try scratch.run([], stdin: #"{"pushhost":"token","token":"kept-secret"}"# + "\n")
        let token = scratch.file("state/token")
        #expect(FileManager.default.fileExists(atPath: token))
        Self.expectRefused(try Self.attempt("read:\(token)", in: scratch), "read:\(token)")
        Self.expectDone(try Self.attempt("read:\(token)", grants: ["read=\(token)"], in: scratch), "read:\(token)")
    }

    @Test func aFileUnderHomeIsOutOfReach() throws {
        let scratch = try Scratch()
        let file = try Self.secret(in: scratch)
        Self.expectRefused(try Self.attempt("read:\(file)", in: scratch), "read:\(file)")
        Self.expectDone(try Self.attempt("read:\(file)", grants: ["read=\(scratch.file("home"))"], in: scratch), "read:\(file)")
    }

    @Test func theSpoolCannotBeWritten() throws {
        let scratch = try Scratch()
        let spool = scratch.file("spool")
        try FileManager.default.createDirectory(atPath: spool + "/new", withIntermediateDirectories: true)
        let forged = spool + "/new/forged.json"
        Self.expectRefused(try Self.attempt("write:\(forged)", in: scratch), "write:\(forged)")
        #expect(!FileManager.default.fileExists(atPath: forged))
        Self.expectDone(try Self.attempt("write:\(forged)", grants: ["write=\(spool)"], in: scratch), "write:\(forged)")
    }

    @Test func anotherPluginsStateFolderIsOutOfReach() throws {
        let scratch = try Scratch()
        let other = try Self.secret(in: scratch, "state/plugins/other/keys")
        Self.expectRefused(try Self.attempt("read:\(other)", in: scratch), "read:\(other)")
        Self.expectDone(try Self.attempt("read:\(other)", grants: ["read=\(scratch.file("state/plugins/other"))"], in: scratch), "read:\(other)")
        // Its own folder is its to use.
        Self.expectDone(try Self.attempt("state", in: scratch), "state")
        #expect(FileManager.default.fileExists(atPath: scratch.file("state/plugins/intruder/kept")))
    }

    /// Of the shared objects beside it, a plugin reads those it links and
    /// not another plugin's library.
    @Test func onlyWhatItLinksBesideIt() throws {
        let scratch = try Scratch()
        let folder = scratch.file("plugins")
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        for (name, source) in [("libhelper.so", "int helper(void) { return 1; }"), ("libother.so", "int other(void) { return 2; }")] {
            let built = try Command.run("cc", ["-shared", "-fPIC", "-x", "c", "-", "-o", folder + "/" + name], stdin: source)
            try #require(built.status == 0, "\(built.stderr)")
        }
        let intruder = try PluginSource.fixture("intruder")
        let built = try Command.run(
            "cc", ["-std=c11", "-shared", "-fPIC", "-I", Paths.include.path, "-I", Paths.fixturePlugins.path, "-x", "c", "-", "-o", folder + "/intruder.so",
                   "-L" + folder, "-Wl,--no-as-needed", "-lhelper", "-Wl,-rpath,$ORIGIN"],
            stdin: intruder)
        try #require(built.status == 0, "\(built.stderr)")
        for (name, walled) in [("libhelper.so", "ok"), ("libother.so", "Permission denied")] {
            let what = "read:\(folder)/\(name)"
            for (sandbox, expected) in [("on", walled), ("off", "ok")] {
                let run = try scratch.run(
                    ["--plugin", folder + "/intruder.so", "--isolate", "intruder", "--sandbox", sandbox, "--set", "intruder.try=\(what)"], stdin: "")
                #expect(Self.printed(in: run.stderr) == "intruder: \(what): \(expected)", "\(run.stderr)")
            }
        }
    }

    @Test func noConnectionWithoutItsPort() throws {
        let scratch = try Scratch()
        let listener = try Listener()
        let what = "connect:\(listener.port)"
        Self.expectRefused(try Self.attempt(what, in: scratch), what)
        Self.expectDone(try Self.attempt(what, grants: ["connect=127.0.0.1:\(listener.port)"], in: scratch), what)
        // A grant for one port opens no other.
        Self.expectRefused(try Self.attempt(what, grants: ["connect=127.0.0.1:\(listener.port == 9 ? 10 : 9)"], in: scratch), what)
    }

    @Test func noPortIsBoundWithoutTheNetwork() throws {
        let scratch = try Scratch()
        Self.expectRefused(try Self.attempt("bind:0", in: scratch), "bind:0")
        Self.expectDone(try Self.attempt("bind:0", grants: ["network=true"], in: scratch), "bind:0")
    }

    @Test func noProcessIsStartedWithoutExec() throws {
        let scratch = try Scratch()
        Self.expectRefused(try Self.attempt("exec", in: scratch), "exec")
        Self.expectDone(try Self.attempt("exec", grants: ["exec=true"], in: scratch), "exec")
    }

    @Test func noProcessOutsideCanBeTracedNorSignalled() throws {
        let scratch = try Scratch()
        // A process of the same user outside the walls, as the host is.
        let outside = Process()
        outside.executableURL = URL(fileURLWithPath: "/bin/sleep")
        outside.arguments = ["30"]
        try outside.run()
        defer { outside.terminate() }
        let pid = outside.processIdentifier
        Self.expectRefused(try Self.attempt("ptrace:\(pid)", grants: ["exec=true", "network=true"], in: scratch), "ptrace:\(pid)", unseen: true)
        Self.expectRefused(try Self.attempt("signal:\(pid)", in: scratch), "signal:\(pid)", unseen: true)
        // Without walls, the same plugin can (the attach ends with its worker).
        let plugin = try scratch.plugin("intruder.so", try PluginSource.fixture("intruder"))
        for what in ["signal:\(pid)", "ptrace:\(pid)"] {
            let run = try scratch.run(["--plugin", plugin, "--isolate", "intruder", "--sandbox", "off", "--set", "intruder.try=\(what)"], stdin: "")
            #expect(run.stderr.contains("intruder: \(what): ok"), "\(run.stderr)")
        }
    }

    /// `memory` caps the worker's address space: a plugin that allocates past it gets no memory, and the host goes on.
    @Test func memoryPastItsLimitIsNotGiven() throws {
        let scratch = try Scratch()
        let refused = try Self.attempt("alloc:512", grants: ["memory=256"], in: scratch)
        #expect(refused.line == "intruder: alloc:512: Cannot allocate memory", "\(refused.stderr)")
        Self.expectDone(try Self.attempt("alloc:64", grants: ["memory=256"], in: scratch), "alloc:64")
        Self.expectDone(try Self.attempt("alloc:512", in: scratch), "alloc:512")
    }

    /// `cpu` bounds the CPU time of each call (and of `create`): past it,
    /// the kernel ends the worker (SIGXCPU), which costs that call only.
    @Test func aCallPastItsCPUSecondsCostsOnlyThatCall() throws {
        let scratch = try Scratch()
        let plugin = try scratch.plugin("intruder.so", try PluginSource.fixture("intruder"))
        let message = #"{"data":{"title":"t","body":"b"},"message_id":"m-ID"}"#
        let input = ["1", "2"].map { message.replacingOccurrences(of: "ID", with: $0) }.joined(separator: "\n") + "\n"
        let run = try scratch.runHost(
            ["--plugin", plugin, "--isolate", "intruder", "--sandbox", "on", "--set", "intruder.spin=3", "--set", "intruder.sandbox.cpu=1"],
            stdin: input)
        #expect(run.stderr.contains("error pushhost: plugin intruder crashed in on_background: SIGXCPU"), "\(run.stderr)")
        #expect(run.statuses == ["failed", "failed"], "\(run.stderr)")
        // Within its seconds, the same calls go through.
        let within = try scratch.runHost(
            ["--plugin", plugin, "--isolate", "intruder", "--sandbox", "on", "--set", "intruder.spin=0.2", "--set", "intruder.sandbox.cpu=2"],
            stdin: input, tag: "2")
        #expect(within.statuses == ["delivered", "delivered"], "\(within.stderr)")
        // A create past it: the plugin is refused.
        let create = try Self.attempt("spin:4", grants: ["cpu=1"], in: scratch, extra: ["--skip-bad-plugins"])
        #expect(create.stderr.contains("its worker ended before the plugin was created (SIGXCPU)"), "\(create.stderr)")
    }

    @Test(arguments: [
        ("read=/nonexistent-grant", "sandbox.read: /nonexistent-grant: No such file or directory"),
        ("read=relative/path", "sandbox.read: relative/path is not an absolute path"),
        ("connect=localhost", "sandbox.connect: localhost is not HOST:PORT"),
        ("bus=other", "sandbox.bus is other: expected session or system"),
        ("exec=yes", "sandbox.exec is yes: expected true or false"),
        ("colour=blue", "sandbox.colour is no grant"),
    ])
    func aBadGrantRefusesThePluginNamingIt(_ grant: String, _ reason: String) throws {
        let scratch = try Scratch()
        let result = try Self.attempt("state", grants: [grant], in: scratch, extra: ["--skip-bad-plugins"])
        #expect(result.line == nil, "the plugin was refused before it was opened: \(result.stderr)")
        #expect(result.stderr.contains("error pushhost: plugin intruder: \(reason)"), "\(result.stderr)")
        #expect(result.stderr.contains("refused plugin \(scratch.file("intruder.so")): its worker's walls could not stand"), "\(result.stderr)")
    }

    @Test func aSettingsFileGrantsAList() throws {
        let scratch = try Scratch()
        let first = try Self.secret(in: scratch, "one/secret")
        _ = try Self.secret(in: scratch, "two/secret")
        let plugin = try scratch.plugin("intruder.so", try PluginSource.fixture("intruder"))
        try #"{"try": "read:\#(first)", "sandbox": {"read": ["\#(scratch.file("two"))", "\#(scratch.file("one"))"], "exec": false}}"#
            .write(toFile: scratch.file("intruder.json"), atomically: true, encoding: .utf8)
        let run = try scratch.run(["--plugin", plugin, "--isolate", "intruder", "--sandbox", "on"], stdin: "")
        #expect(run.stderr.contains("intruder: read:\(first): ok"), "\(run.stderr)")
    }

    /// The scan of an isolated plugin runs its library's constructor behind the walls too.
    @Test func theScanIsWalled() throws {
        let scratch = try Scratch()
        let plugin = try scratch.plugin("intruder.so", try PluginSource.fixture("intruder"))
        let mark = scratch.file("home/marked")
        try FileManager.default.createDirectory(atPath: scratch.file("home"), withIntermediateDirectories: true)
        let walled = try Command.pushhost(
            ["plugins", "--plugin", plugin, "--isolate", "all", "--sandbox", "on"], environment: ["INTRUDER_MARK": mark])
        #expect(walled.stderr.contains("intruder: constructor: Permission denied"), "\(walled.stderr)")
        #expect(!FileManager.default.fileExists(atPath: mark))
        #expect(walled.stdout.contains("intruder"), "\(walled.stdout)")
        // Grants that are malformed give the scan none, not no walls.
        try #"{"sandbox": {"read": ["/nonexistent-grant"]}}"#.write(toFile: scratch.file("intruder.json"), atomically: true, encoding: .utf8)
        let malformed = try Command.pushhost(
            ["plugins", "--plugin", plugin, "--isolate", "all", "--sandbox", "on"], environment: ["INTRUDER_MARK": mark])
        #expect(malformed.stderr.contains("intruder: constructor: Permission denied"), "\(malformed.stderr)")
        try FileManager.default.removeItem(atPath: scratch.file("intruder.json"))
        let open = try Command.pushhost(["plugins", "--plugin", plugin, "--isolate", "all", "--sandbox", "off"], environment: ["INTRUDER_MARK": mark])
        #expect(open.stderr.contains("intruder: constructor: ok"), "\(open.stderr)")
        #expect(FileManager.default.fileExists(atPath: mark))
    }

    /// `pushhost plugins` says which walls a run would put up, and what the plugin is granted.
    @Test func theListingSaysTheWallsAndTheGrants() throws {
        let scratch = try Scratch()
        let plugin = try scratch.plugin("intruder.so", try PluginSource.fixture("intruder"))
        let flags = ["--plugin", plugin, "--isolate", "all", "--sandbox", "on", "--set", "intruder.sandbox.read=/usr",
                     "--set", "intruder.sandbox.connect=127.0.0.1:4222", "--set", "intruder.sandbox.bus=session"]
        let json = try Command.pushhost(["plugins", "--json"] + flags)
        let object = try #require(try JSONSerialization.jsonObject(with: Data(json.stdout.utf8)) as? [String: Any], "\(json.stdout)")
        let sandbox = try #require(object["sandbox"] as? [String: Any], "\(json.stdout)")
        #expect((sandbox["landlock"] as? Int ?? 0) >= 1)
        #expect(sandbox["seccomp"] as? Bool == true)
        #expect(sandbox["read"] as? [String] == ["/usr"])
        #expect(sandbox["write"] as? [String] == [])
        #expect(sandbox["network"] as? [String] == ["127.0.0.1:4222"])
        #expect(sandbox["bus"] as? String == "session")
        #expect(sandbox["exec"] as? Bool == false)
        let text = try Command.pushhost(["plugins"] + flags)
        #expect(text.stdout.contains("  walls: own namespaces, no new privileges, no capabilities, landlock "), "\(text.stdout)")
        #expect(text.stdout.contains("; grants: read /usr; connect 127.0.0.1:4222; bus session\n"), "\(text.stdout)")
        // Not isolated, or no walls: nothing about them.
        let open = try Command.pushhost(["plugins", "--json", "--plugin", plugin, "--isolate", "all", "--sandbox", "off"])
        #expect(!open.stdout.contains("sandbox"), "\(open.stdout)")
    }

    /// An ffi manifest takes no settings; its walls' grants are its own
    /// `"sandbox"` member (or `--set NAME.sandbox...`): its library writes
    /// its log only when granted.
    @Test func anFFIManifestGrantsItsOwnWalls() throws {
        let scratch = try Scratch()
        let message = #"{"message_id":"m1","data":{"title":"t","body":"b"}}"# + "\n"
        FileManager.default.createFile(atPath: scratch.legacyLog, contents: nil)
        let walled = try scratch.ffi(Legacy.manifest([Legacy.background()], log: scratch.legacyLog))
        _ = try scratch.runHost(["--ffi", walled, "--isolate", "legacy", "--sandbox", "on"], stdin: message)
        #expect(scratch.legacyCalls.isEmpty, "\(scratch.legacyCalls)")
        // The grant from the command line.
        let set = try scratch.runHost(
            ["--ffi", walled, "--isolate", "legacy", "--sandbox", "on", "--set", "legacy.sandbox.write=\(scratch.legacyLog)"],
            stdin: message, tag: "2")
        #expect(set.statuses == ["delivered"], "\(set.stderr)")
        #expect(scratch.legacyHandlerCalls.count == 1, "\(scratch.legacyCalls)")
        // The grant in the manifest (another one, named granted).
        let granted = try scratch.ffi(
            Legacy.manifest([Legacy.background()], log: scratch.legacyLog, top: #""sandbox": {"write": ["\#(scratch.legacyLog)"]}"#),
            name: "granted.ffi.json")
        let run = try scratch.runHost(["--ffi", granted, "--isolate", "granted", "--sandbox", "on"], stdin: message, tag: "3")
        #expect(run.statuses == ["delivered"], "\(run.stderr)")
        #expect(scratch.legacyHandlerCalls.count == 2, "\(scratch.legacyCalls)")
    }

    /// Walls stand around every isolated plugin unless `--sandbox off` takes them down.
    @Test func wallsStandUnlessSandboxIsOff() throws {
        let scratch = try Scratch()
        let file = try Self.secret(in: scratch)
        let plugin = try scratch.plugin("intruder.so", try PluginSource.fixture("intruder"))
        let flags = ["--plugin", plugin, "--isolate", "intruder", "--set", "intruder.try=read:\(file)"]
        let walled = try scratch.run(flags, stdin: "")
        #expect(walled.stderr.contains("intruder: read:\(file): Permission denied"), "\(walled.stderr)")
        let open = try scratch.run(flags + ["--sandbox", "off"], stdin: "")
        #expect(open.stderr.contains("intruder: read:\(file): ok"), "\(open.stderr)")
        let listed = try Command.pushhost(["plugins", "--json", "--plugin", plugin, "--isolate", "all"])
        #expect(listed.stdout.contains(#""sandbox":{"namespaces":true,"landlock":"#), "\(listed.stdout)")
    }
}

/// A TCP listener on loopback for the length of a test, or with
/// `datagrams` a UDP socket there.
final class Listener {
    let fd: Int32
    let port: UInt16

    init(datagrams: Bool = false) throws {
        let fd = socket(AF_INET, Int32((datagrams ? SOCK_DGRAM : SOCK_STREAM).rawValue), 0)
        self.fd = fd
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = UInt32(0x7f00_0001).bigEndian
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                bind(fd, $0, length) == 0 && (datagrams || listen(fd, 8) == 0) && getsockname(fd, $0, &length) == 0
            }
        }
        try #require(bound)
        port = UInt16(bigEndian: address.sin_port)
    }

    /// The datagram waiting, if one came (with `datagrams`).
    func received() -> String? {
        var bytes = [UInt8](repeating: 0, count: 64)
        let count = recv(fd, &bytes, bytes.count, Int32(MSG_DONTWAIT))
        return count > 0 ? String(decoding: bytes[..<count], as: UTF8.self) : nil
    }

    deinit {
        close(fd)
    }
}
