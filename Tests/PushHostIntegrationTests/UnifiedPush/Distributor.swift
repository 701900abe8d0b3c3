import Foundation
import Testing

/// A fake UnifiedPush distributor on a `SessionBus`: python-dbusmock serving
/// `org.unifiedpush.Distributor2` as `org.unifiedpush.Distributor.fake`,
/// with `Register` given by the test, and the pushes a push server would
/// relay, encrypted with `cryptography` (`Tests/Fixtures/unifiedpush/distributor.py`).
final class Distributor {
    private let bus: SessionBus
    private let server: BusService

    init(on bus: SessionBus) throws {
        self.bus = bus
        server = try BusService([Self.script, bus.address, "serve"], on: bus)
        try tool(["wait"])
    }

    private static let script = Paths.fixtures.appendingPathComponent("unifiedpush/distributor.py").path

    /// From now on `Register` succeeds and calls the connector's
    /// `NewEndpoint` back with `https://push.example.net/up/` and the
    /// token's first 8 characters.
    func accept() throws { try tool(["accept"]) }

    /// From now on `Register` fails with `reason`.
    func refuse(_ reason: String) throws { try tool(["refuse", reason]) }

    /// The `Register` calls so far: their `service`, `token` and `description`.
    func registrations() throws -> [[String: String]] {
        let output = try tool(["registrations"])
        return try #require(try JSONSerialization.jsonObject(with: Data(output.utf8)) as? [[String: String]])
    }

    /// Encrypts `text` to the keys in `keys` (the connector's key file) and
    /// calls the connector's `Message` (`version` 2 or 1); unless
    /// `waiting`, sends the call without waiting for its answer.
    func push(
        to app: String, token: String, keys: String, _ text: String, id: String = "", version: Int = 2, waiting: Bool = true
    ) throws {
        try tool(["push", app, token, keys, text, id, "\(version)"] + (waiting ? [] : ["nowait"]))
    }

    /// Starts sending `count` pushes (message ids `s-0`, `s-1`, ...) one
    /// after another, each once the last was answered; each answer is a
    /// line of the file `answers`, `s-N taken` or `s-N refused ERROR`. The
    /// sender ends when every push was answered.
    func stream(to app: String, token: String, keys: String, count: Int, answers: String) throws -> Process {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/python3")
        process.arguments = [Self.script, bus.address, "stream", app, token, keys, "\(count)", answers]
        process.standardOutput = FileHandle.nullDevice
        try process.run()
        return process
    }

    /// Calls `Message` with `bytes` as they are.
    func pushRaw(to app: String, token: String, _ bytes: [UInt8]) throws {
        try tool(["raw", app, token, bytes.map { String(format: "%02x", $0) }.joined()])
    }

    func unregister(_ app: String, token: String) throws { try tool(["unregister", app, token]) }

    @discardableResult
    private func tool(_ arguments: [String]) throws -> String {
        let result = try Command.run("/usr/bin/python3", [Self.script, bus.address] + arguments)
        try #require(result.status == 0, "distributor.py \(arguments.first ?? ""): \(result.rawStderr)")
        return result.stdout
    }
}

/// The unifiedpush plugin, built once per test process with its documented
/// command (`make -C transports unifiedpush`).
enum UnifiedPushPlugin {
    /// On CI always; elsewhere when the bus, the mock and the libraries are there.
    static let canRun = TransportBuild.canRun(
        libraries: ["libsystemd", "libcrypto"], modules: ["dbusmock", "cryptography"], programs: ["/usr/bin/dbus-daemon"])

    static func path() throws -> String { try TransportBuild.library("unifiedpush", file: "libunifiedpush.so") }
}
