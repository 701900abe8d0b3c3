import Foundation
import Testing

/// A real `nats-server` with JetStream on loopback, on a port it picks, its
/// store in the test's scratch folder. It can be killed and started again on
/// the same port with the same store, as a server that crashed and came back.
final class NatsServer {
    private let scratch: Scratch
    private let mappings: [String: String]
    /// More of its configuration (TLS, users), and how the test's client connects then.
    private let extra: String
    let clientEnvironment: [String: String]
    private var process: Process?
    private var starts = 0
    private(set) var port = -1

    var url: String { "nats://127.0.0.1:\(port)" }

    /// Starts the server; `mappings` are subject mappings of its account
    /// (`"orders.*": "orders.{{partition(2,1)}}.{{wildcard(1)}}"`).
    init(_ scratch: Scratch, mappings: [String: String] = [:], extra: String = "", clientEnvironment: [String: String] = [:]) throws {
        self.scratch = scratch
        self.mappings = mappings
        self.extra = extra
        self.clientEnvironment = clientEnvironment
        try start()
    }

    /// SIGKILL: no goodbye to the clients.
    deinit { kill() }

    func kill() {
        guard let process, process.isRunning else { return }
        Foundation.kill(process.processIdentifier, SIGKILL)
        process.waitUntilExit()
    }

    /// Starts it (again), on the port it had, with the store it had.
    func start() throws {
        starts += 1
        let mapped = mappings.map { "  \"\($0.key)\": \"\($0.value)\"" }.joined(separator: "\n")
        let config = try scratch.write("nats/server.conf", """
            listen: 127.0.0.1:\(port)
            jetstream { store_dir: "\(scratch.file("nats/store"))" }
            mappings {
            \(mapped)
            }
            \(extra)

            """)
        let log = scratch.file("nats/server-\(starts).log")
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/sbin/nats-server")
        process.arguments = ["-c", config, "-l", log]
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        try process.run()
        self.process = process
        let listening = "Listening for client connections on 127.0.0.1:"
        var text = ""
        eventually(timeout: .seconds(10)) {
            text = (try? String(contentsOfFile: log, encoding: .utf8)) ?? ""
            return text.contains("Server is ready") || !process.isRunning
        }
        let found = try #require(text.range(of: listening), "nats-server did not start:\n\(text)")
        port = try #require(Int(text[found.upperBound...].prefix { $0.isNumber }))
    }

    // MARK: The test's side of the stream (Tests/Fixtures/nats/jetstream.c)

    /// Publishes each of `records` to `subject` and waits until each is
    /// stored; with `subject` nil each record is "SUBJECT JSON".
    func publish(_ records: [String], to subject: String? = nil) throws {
        let result = try Command.run(try NatsPlugin.tool(), ["publish", url, subject ?? "-"],
                                     stdin: records.joined(separator: "\n") + "\n", environment: clientEnvironment.isEmpty ? nil : ProcessInfo.processInfo.environment.merging(clientEnvironment) { $1 })
        try #require(result.status == 0, "jetstream publish: \(result.rawStderr)")
    }

    /// Each message stored in `stream`: `sequence`, `subject`, `headers`, `data`.
    func messages(in stream: String) throws -> [[String: Any]] {
        let result = try Command.run(try NatsPlugin.tool(), ["dump", url, stream])
        try #require(result.status == 0, "jetstream dump: \(result.rawStderr)")
        return try result.stdout.split(separator: "\n").map { line in
            try #require(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])
        }
    }

    /// Deletes a consumer, as an operator might.
    func delete(consumer: String, of stream: String) throws {
        let result = try Command.run(try NatsPlugin.tool(), ["delete", url, stream, consumer])
        try #require(result.status == 0, "jetstream delete: \(result.rawStderr)")
    }

    /// The stream's `messages`, and the consumer's `pending` (never delivered),
    /// `ack_pending` (delivered and not settled; on this server a record given
    /// back with a Nak counts until it is delivered again), `redelivered` and
    /// `delivered` (every delivery, each redelivery too).
    func state(of stream: String, consumer: String = "pushhost") throws -> [String: Int] {
        let result = try Command.run(try NatsPlugin.tool(), ["info", url, stream, consumer])
        try #require(result.status == 0, "jetstream info: \(result.rawStderr)")
        return try #require(try JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [String: Int])
    }
}

/// The nats plugin, built once per test process with its documented command
/// (`make -C transports nats`), and the test's JetStream client.
enum NatsPlugin {
    /// On CI always; elsewhere when nats-server and libnats are there.
    static let canRun = TransportBuild.canRun(libraries: ["libnats"], programs: ["/usr/sbin/nats-server"])

    static func path() throws -> String { try TransportBuild.library("nats", file: "libpushhost-nats.so") }

    static func tool() throws -> String { try TransportBuild.program("nats/jetstream.c", libraries: ["libnats"]) }
}
