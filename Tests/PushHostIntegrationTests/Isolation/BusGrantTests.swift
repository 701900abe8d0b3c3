import Foundation
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// A `bus` grant opens that bus and no other socket (docs/running.md,
/// walls): behind walls a plugin makes no Unix socket; the host connects to
/// the granted bus for it (`ph.bus/1`), anew each time it asks, so a bus
/// that restarted is reached again. The bus here is a listening socket the
/// test names in `DBUS_SESSION_BUS_ADDRESS`.
@Suite struct BusGrantTests {
    /// The intruder's attempt `what`, walled, granted `grants`, with the session bus at `bus`.
    static func attempt(_ what: String, grants: [String], bus: String, in scratch: Scratch) throws -> String? {
        let plugin = try scratch.plugin("intruder.so", try PluginSource.fixture("intruder"))
        let run = try Command.pushhost(
            ["run", "--state", scratch.file("state"), "--plugin", plugin, "--isolate", "intruder", "--set", "intruder.try=\(what)"]
                + grants.flatMap { ["--set", "intruder.sandbox.\($0)"] },
            environment: ["DBUS_SESSION_BUS_ADDRESS": "unix:path=\(bus)"])
        return WallsTests.printed(in: run.stderr)
    }

    @Test func theGrantedBusAndNoOtherSocket() throws {
        let scratch = try Scratch()
        let bus = try UnixListener(path: scratch.file("bus.sock"))
        let other = try UnixListener(path: scratch.file("other.sock"))
        #expect(try Self.attempt("bus:session", grants: ["bus=session"], bus: bus.path, in: scratch) == "intruder: bus:session: ok")
        #expect(bus.accepted() == "create\n")
        // A named socket beside it, and the bus not granted.
        #expect(try Self.attempt("unix:\(other.path)", grants: ["bus=session"], bus: bus.path, in: scratch)
            == "intruder: unix:\(other.path): Operation not permitted")
        #expect(try Self.attempt("bus:system", grants: ["bus=session"], bus: bus.path, in: scratch) == "intruder: bus:system: Permission denied")
        #expect(try Self.attempt("bus:session", grants: [], bus: bus.path, in: scratch) == "intruder: bus:session: Permission denied")
        #expect(bus.accepted(timeout: 0.2) == nil)
        // Unwalled, both are reached.
        let plugin = try scratch.plugin("intruder.so", try PluginSource.fixture("intruder"))
        let open = try Command.pushhost(
            ["run", "--state", scratch.file("state"), "--plugin", plugin, "--isolate", "intruder", "--sandbox", "off",
             "--set", "intruder.try=unix:\(other.path)"])
        #expect(WallsTests.printed(in: open.stderr) == "intruder: unix:\(other.path): ok", "\(open.stderr)")
    }

    @Test func aBusThatRestartedIsReachedAgain() throws {
        let scratch = try Scratch()
        let path = scratch.file("bus.sock")
        var bus: UnixListener? = try UnixListener(path: path)
        let plugin = try scratch.plugin("intruder.so", try PluginSource.fixture("intruder"))
        let input = Pipe()
        let host = try HostProcess(
            ["run", "--state", scratch.file("state"), "--plugin", plugin, "--isolate", "intruder", "--set", "intruder.try=bus:session",
             "--set", "intruder.bus_each=session", "--set", "intruder.sandbox.bus=session"],
            errorPath: scratch.file("stderr"), environment: ["DBUS_SESSION_BUS_ADDRESS": "unix:path=\(path)"], input: input)
        #expect(bus?.accepted(timeout: 20) == "create\n", "\(host.stderr)")
        bus = nil
        bus = try UnixListener(path: path)
        input.fileHandleForWriting.write(Data(#"{"message_id":"after-restart","data":{"title":"t"}}"#.utf8 + [10]))
        #expect(bus?.accepted(timeout: 20) == "after-restart\n", "\(host.stderr)")
        try input.fileHandleForWriting.close()
        #expect(host.waitForExit() == .status(0), "\(host.stderr)")
    }
}

extension UnixListener {
    /// What the next connection wrote before it closed (64 bytes at most), or nil when none came within `timeout` seconds.
    func accepted(timeout: Double = 10) -> String? {
        var watched = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
        guard poll(&watched, 1, Int32(timeout * 1000)) == 1 else { return nil }
        let connection = accept(fd, nil, nil)
        guard connection >= 0 else { return nil }
        defer { close(connection) }
        var bytes = [UInt8](repeating: 0, count: 64)
        var filled = 0
        while filled < bytes.count {
            let count = bytes.withUnsafeMutableBytes { read(connection, $0.baseAddress! + filled, $0.count - filled) }
            guard count > 0 else { break }
            filled += count
        }
        return String(decoding: bytes[..<filled], as: UTF8.self)
    }
}
