import Foundation
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// The kernel's other doors out of the walls (docs/running.md, walls): a
/// ring that makes sockets without `socket`, socket families beyond IP and
/// Unix, the capabilities of a root host, device nodes, and the host's own
/// outputs. Each attempt is the intruder's, run by the real binary in its
/// worker behind the default walls; each is shown to succeed unwalled
/// (`--sandbox off`), so that each test can fail.
@Suite struct WallDoorsTests {
    static let refused = "Operation not permitted"

    @Test func noDatagramLeavesThroughARing() throws {
        let scratch = try Scratch()
        let listener = try Listener(datagrams: true)
        let what = "uring-udp:\(listener.port)"
        let walled = try WallsTests.attempt(what, in: scratch)
        #expect(walled.line == "intruder: \(what): \(Self.refused)", "\(walled.stderr)")
        // Not even with the whole network granted: the ring is no door of any grant.
        let granted = try WallsTests.attempt(what, grants: ["network=true"], in: scratch)
        #expect(granted.line == "intruder: \(what): \(Self.refused)", "\(granted.stderr)")
        #expect(listener.received() == nil)
        let open = try WallsTests.attempt(what, in: scratch, sandbox: "off")
        #expect(open.line == "intruder: \(what): ok", "\(open.stderr)")
        #expect(listener.received() == "uring")
    }

    @Test func noUnixConnectionThroughARing() throws {
        let scratch = try Scratch()
        let listener = try UnixListener(path: scratch.file("elsewhere.sock"))
        let what = "uring-unix:\(listener.path)"
        let walled = try WallsTests.attempt(what, in: scratch)
        #expect(walled.line == "intruder: \(what): \(Self.refused)", "\(walled.stderr)")
        let open = try WallsTests.attempt(what, in: scratch, sandbox: "off")
        #expect(open.line == "intruder: \(what): ok", "\(open.stderr)")
    }

    /// Netlink (the kernel's routing and audit interfaces) and vsock are
    /// no family any grant opens. Unwalled, the call gets past the filter:
    /// it succeeds, or fails for a reason of the kernel's, not EPERM.
    @Test(arguments: ["netlink", "vsock"])
    func noSocketOfAnotherFamily(_ family: String) throws {
        let scratch = try Scratch()
        for grants in [[], ["network=true", "bus=session"]] {
            let walled = try WallsTests.attempt(family, grants: grants, in: scratch)
            #expect(walled.line == "intruder: \(family): \(Self.refused)", "\(grants): \(walled.stderr)")
        }
        let open = try WallsTests.attempt(family, in: scratch, sandbox: "off")
        let line = try #require(open.line, "\(open.stderr)")
        #expect(!line.hasSuffix(Self.refused), "\(line)")
    }

    /// A worker holds no capability, even when the host runs as root (as
    /// CI does, and a container or `sudo pushhost run`).
    @Test func noCapabilityIsKept() throws {
        let scratch = try Scratch()
        let walled = try WallsTests.attempt("caps", in: scratch)
        let caps = try #require(Self.capabilities(in: walled.stderr), "\(walled.stderr)")
        #expect(caps == ["CapPrm": 0, "CapEff": 0, "CapBnd": 0, "CapAmb": 0], "\(walled.stderr)")
        if geteuid() == 0 {
            let open = try WallsTests.attempt("caps", in: scratch, sandbox: "off")
            let held = try #require(Self.capabilities(in: open.stderr), "\(open.stderr)")
            #expect(held["CapEff", default: 0] != 0 && held["CapBnd", default: 0] != 0, "\(open.stderr)")
        }
    }

    /// No device node anywhere it may write, its state folder included:
    /// with one of a disk, a root plugin could read the disk past every
    /// file's rights.
    @Test func noDeviceNodeInItsStateFolder() throws {
        let scratch = try Scratch()
        let node = scratch.file("state/plugins/intruder/disk")
        let walled = try WallsTests.attempt("mknod", in: scratch)
        let line = try #require(walled.line, "\(walled.stderr)")
        #expect(line == "intruder: mknod: \(Self.refused)" || line == "intruder: mknod: Permission denied", "\(walled.stderr)")
        #expect(!FileManager.default.fileExists(atPath: node))
        if geteuid() == 0 {
            let open = try WallsTests.attempt("mknod", in: scratch, sandbox: "off")
            #expect(open.line == "intruder: mknod: ok", "\(open.stderr)")
            var info = stat()
            #expect(stat(node, &info) == 0 && (info.st_mode & S_IFMT) == S_IFBLK)
        }
    }

    /// What a worker writes reaches neither the report on standard output
    /// nor the log as a line of the host's own: each of its lines is a log
    /// line that names it. In the host, the same plugin writes into both.
    @Test func aWorkerForgesNoReportLineAndNoHostLogLine() throws {
        let scratch = try Scratch()
        let plugin = try scratch.plugin("intruder.so", try PluginSource.fixture("intruder"))
        let forged = #"{"id":"forged","target":null,"status":"delivered","route":"background","data":[],"ui":[],"error":null}"#
        let logLine = "2026-01-01T00:00:00.000Z error pushhost: plugin cache crashed in on_data: SIGSEGV"
        let message = #"{"message_id":"real","data":{"title":"t"}}"# + "\n"
        for text in [forged, logLine] {
            let walled = try Command.pushhost(
                ["run", "--state", scratch.file("state"), "--report", "-", "--plugin", plugin, "--isolate", "intruder",
                 "--set", "intruder.try=forge:\(text)"],
                stdin: message)
            let reportLines = walled.stdout.split(separator: "\n")
            #expect(reportLines.count == 1 && reportLines[0].contains(#""id":"real""#), "\(walled.stdout)")
            let carrying = walled.stderr.split(separator: "\n").filter { $0.contains(text) }
            #expect(carrying.count >= 2, "\(walled.stderr)")
            for line in carrying {
                #expect(line.contains("info pushhost: plugin intruder: \(text)") || line.contains("info pushhost: plugin intruder: intruder: forge:"), "\(line)")
                #expect(!line.hasPrefix(text) && !line.hasPrefix("2026-01-01"), "\(line)")
            }
            let inHost = try Command.pushhost(
                ["run", "--state", scratch.file("state"), "--report", "-", "--plugin", plugin, "--set", "intruder.try=forge:\(text)"],
                stdin: message)
            #expect(inHost.stdout.split(separator: "\n").contains { $0 == text }, "\(inHost.stdout)")
        }
    }

    /// A worker's output is held to a rate and a length: a plugin that
    /// floods it costs lines of its own, not the host's log.
    @Test func aFloodingWorkerIsCutAndCounted() throws {
        let scratch = try Scratch()
        let plugin = try scratch.plugin("intruder.so", try PluginSource.fixture("intruder"))
        let long = String(repeating: "x", count: 3000)
        let run = try Command.pushhost(
            ["run", "--state", scratch.file("state"), "--plugin", plugin, "--isolate", "intruder",
             "--set", "intruder.try=forge:\(long)", "--set", "intruder.flood=1500"],
            stdin: "")
        let carried = run.stderr.split(separator: "\n").filter { $0.contains("pushhost: plugin intruder: ") }
        let cut = try #require(carried.first { $0.contains("xxxx") }, "\(run.stderr.prefix(2000))")
        #expect(cut.hasSuffix("(952 more bytes cut)"), "\(cut.suffix(80))")
        #expect(carried.contains { $0.contains("lines of its output dropped (more than 200 a second)") }, "\(run.stderr.suffix(2000))")
        #expect(carried.count < 1500, "\(carried.count) lines")
    }

    /// The first process of a worker's namespaces, which tells the host how
    /// the worker ended, is not the worker's to read or write: its pipe to
    /// the host (fd 7) and its environment are closed to the plugin.
    @Test func theProcessThatStandsInIsOutOfReach() throws {
        let scratch = try Scratch()
        for what in ["write:/proc/1/fd/7", "read:/proc/1/environ", "read:/proc/1/mem"] {
            let walled = try WallsTests.attempt(what, in: scratch)
            #expect(walled.line == "intruder: \(what): Permission denied", "\(walled.stderr)")
        }
        // Its own are its own.
        let own = try WallsTests.attempt("read:/proc/self/environ", in: scratch)
        #expect(own.line == "intruder: read:/proc/self/environ: ok", "\(own.stderr)")
    }

    /// The capability sets the intruder printed (`intruder: caps: CapPrm=... CapEff=...`), by name.
    static func capabilities(in stderr: String) -> [String: UInt64]? {
        guard let line = stderr.split(separator: "\n").first(where: { $0.contains("intruder: caps: Cap") }),
              let start = line.range(of: "intruder: caps: ")
        else { return nil }
        var sets: [String: UInt64] = [:]
        for pair in line[start.upperBound...].split(separator: " ") {
            let parts = pair.split(separator: "=")
            guard parts.count == 2, let value = UInt64(parts[1], radix: 16) else { return nil }
            sets[String(parts[0])] = value
        }
        return sets
    }
}

/// A named Unix stream socket listening for the length of a test.
final class UnixListener {
    let fd: Int32
    let path: String

    init(path: String) throws {
        self.path = path
        fd = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0)
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        let bytes = Array(path.utf8)
        try #require(bytes.count < MemoryLayout.size(ofValue: address.sun_path))
        withUnsafeMutableBytes(of: &address.sun_path) { $0.copyBytes(from: bytes) }
        let length = socklen_t(MemoryLayout<sockaddr_un>.size)
        let listening = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { [fd] in bind(fd, $0, length) == 0 && listen(fd, 8) == 0 }
        }
        try #require(listening)
    }

    deinit {
        close(fd)
        unlink(path)
    }
}
