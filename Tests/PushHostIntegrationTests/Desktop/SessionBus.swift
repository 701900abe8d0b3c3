import Foundation
import Testing

/// A private session bus for one test: a real `dbus-daemon` listening on a
/// socket in the test's scratch folder, stopped when this goes away.
///
/// Its configuration is a session bus's without service activation, so
/// that a notification server installed on the machine (dunst, say) is
/// never started by a call: a test has the server it starts, or none.
final class SessionBus {
    let address: String
    private let daemon = Process()

    init(_ scratch: Scratch) throws {
        let configuration = try scratch.write("bus.conf", """
            <!DOCTYPE busconfig PUBLIC "-//freedesktop//DTD D-Bus Bus Configuration 1.0//EN"
             "http://www.freedesktop.org/standards/dbus/1.0/busconfig.dtd">
            <busconfig>
              <type>session</type>
              <listen>unix:path=\(scratch.file("bus"))</listen>
              <auth>EXTERNAL</auth>
              <policy context="default">
                <allow send_destination="*" eavesdrop="true"/>
                <allow eavesdrop="true"/>
                <allow own="*"/>
              </policy>
            </busconfig>
            """)
        daemon.executableURL = URL(fileURLWithPath: "/usr/bin/dbus-daemon")
        daemon.arguments = ["--config-file=\(configuration)", "--nofork", "--print-address=1"]
        // The daemon prints its address once it listens.
        address = try firstLine(of: daemon)
        try #require(!address.isEmpty, "dbus-daemon printed no address")
    }

    /// SIGKILL: a child of the test runner may start with SIGTERM blocked.
    deinit {
        kill(daemon.processIdentifier, SIGKILL)
        daemon.waitUntilExit()
    }

    /// The environment that points a client at this bus.
    var environment: [String: String] { ["DBUS_SESSION_BUS_ADDRESS": address] }
}

/// A Python program serving on a `SessionBus` (`/usr/bin/python3
/// ARGUMENTS`), killed when this goes away.
final class BusService {
    private let process = Process()

    init(_ arguments: [String], on bus: SessionBus) throws {
        process.executableURL = URL(fileURLWithPath: "/usr/bin/python3")
        process.arguments = arguments
        process.environment = ProcessInfo.processInfo.environment.merging(bus.environment) { $1 }
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        try process.run()
    }

    var pid: Int32 { process.processIdentifier }

    /// SIGKILL, as for the bus.
    deinit {
        kill(process.processIdentifier, SIGKILL)
        process.waitUntilExit()
    }
}

/// A real notification server on a `SessionBus`: python-dbusmock's
/// `notification_daemon` template, which answers `Notify` (with the id it
/// was asked to replace, else a new one from 1), records every call, and
/// emits the signals a test asks for. `Tests/Fixtures/desktop/notifications.py`
/// reads its calls and makes it emit.
final class NotificationServer {
    private let bus: SessionBus
    private let server: BusService

    /// Starts the server and waits until it owns its name (taken over from
    /// a server still on the bus, for a test of a restarted one). `capabilities`
    /// replaces the template's own list (which has `body-markup`, but neither
    /// `actions` nor `inline-reply`).
    init(on bus: SessionBus, capabilities: [String]? = nil) throws {
        self.bus = bus
        var arguments = ["-m", "dbusmock", "--session", "--template", "notification_daemon"]
        if let capabilities {
            let parameters = try JSONSerialization.data(withJSONObject: ["capabilities": capabilities.joined(separator: " ")])
            arguments += ["--parameters", String(decoding: parameters, as: UTF8.self)]
        }
        server = try BusService(arguments, on: bus)
        try tool(["wait", "\(server.pid)"])
    }

    /// One `Notify` call, its arguments by name.
    struct Call {
        let appName: String
        let replacesID: Int
        let icon: String
        let summary: String
        let body: String
        let actions: [String]
        let hints: [String: Any]
        let expireTimeout: Int
    }

    /// The `Notify` calls so far, in order.
    func calls() throws -> [Call] {
        let output = try tool(["calls"])
        let lists = try #require(try JSONSerialization.jsonObject(with: Data(output.utf8)) as? [[Any]])
        return try lists.map { arguments in
            try #require(arguments.count == 8, "Notify has 8 arguments: \(arguments)")
            return Call(
                appName: arguments[0] as? String ?? "", replacesID: arguments[1] as? Int ?? -1,
                icon: arguments[2] as? String ?? "", summary: arguments[3] as? String ?? "",
                body: arguments[4] as? String ?? "", actions: arguments[5] as? [String] ?? [],
                hints: arguments[6] as? [String: Any] ?? [:], expireTimeout: arguments[7] as? Int ?? 0)
        }
    }

    /// Waits until `count` calls were made, and returns them.
    func waitForCalls(_ count: Int, timeout: Duration = .seconds(20)) throws -> [Call] {
        var calls: [Call] = []
        eventually(timeout: timeout, every: .milliseconds(50)) {
            calls = (try? self.calls()) ?? []
            return calls.count >= count
        }
        try #require(calls.count >= count, "\(calls.count) Notify calls, not \(count)")
        return calls
    }

    /// Emits the server's signal `name`, e.g. `emit("ActionInvoked", "us", "1", "default")`.
    func emit(_ name: String, _ signature: String, _ values: String...) throws {
        try tool(["emit", name, signature] + values)
    }

    /// Another client of the bus sends signals as if the server (or, for
    /// `NameOwnerChanged`, the bus) did, each to every listener and to each
    /// connection by its name, as an attacker would:
    /// `forge("ActionInvoked", "us", "1", "default")`. "--" separates
    /// signals; "SELF" stands for the client's own bus name.
    func forge(_ words: String...) throws {
        try tool(["forge"] + words)
    }

    /// From now on, `Notify` answers only after `seconds` (the server's
    /// main loop sleeps: it answers nothing else meanwhile either).
    func hang(seconds: Int) throws {
        try tool(["hang", "\(seconds)"])
    }

    /// From now on, each `Notify` takes `seconds` and answers a new id.
    func slow(seconds: Double) throws {
        try tool(["slow", "\(seconds)"])
    }

    /// From now on, `Notify` answers the error `org.example.Error.Locked`
    /// ("the shell is locked").
    func fail() throws {
        try tool(["fail"])
    }

    @discardableResult
    private func tool(_ arguments: [String]) throws -> String {
        let script = Paths.fixtures.appendingPathComponent("desktop/notifications.py").path
        let result = try Command.run("/usr/bin/python3", [script, bus.address] + arguments)
        try #require(result.status == 0, "notifications.py \(arguments.joined(separator: " ")): \(result.rawStderr)")
        return result.stdout
    }
}

/// The desktop plugin, built once per test process with its documented
/// command (`make -C transports desktop`).
enum DesktopPlugin {
    /// Whether the tests can run here: on CI always (a missing package must
    /// fail there, not skip), elsewhere when the bus, the mock server and
    /// the plugin's libraries are installed.
    static let canRun = TransportBuild.canRun(
        libraries: ["libsystemd", "libcurl"], modules: ["dbusmock"], programs: ["/usr/bin/dbus-daemon"])

    /// The path of the built `libdesktop.so`.
    static func path() throws -> String { try TransportBuild.library("desktop", file: "libdesktop.so") }
}

/// Starts `process` with its standard output a pipe and standard error
/// discarded, and returns the first line it prints ("" when it prints none):
/// a server's address or port, printed once it listens.
func firstLine(of process: Process) throws -> String {
    let output = Pipe()
    process.standardOutput = output
    process.standardError = FileHandle.nullDevice
    try process.run()
    var printed = Data()
    while !printed.contains(UInt8(ascii: "\n")) {
        let chunk = output.fileHandleForReading.availableData
        if chunk.isEmpty { break }
        printed.append(chunk)
    }
    return String(decoding: printed, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
}
