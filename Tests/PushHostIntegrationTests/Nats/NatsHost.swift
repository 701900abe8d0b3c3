import Foundation
import Testing

/// One pushhost instance reading a stream through the nats plugin, with its
/// own state folder, report and standard error in the test's scratch folder.
/// The settings default to a work-queue stream PUSHES on `pushes.>` that the
/// plugin creates, the dead-letter subject `dead.pushes`, an ack wait of 2 s
/// and a back-off of 0.1 s.
final class NatsHost {
    static let defaults = [
        "stream": "PUSHES", "subjects": "pushes.>", "create": "true", "dead_letter": "dead.pushes", "ack_wait": "2",
        "back_off": "0.1",
    ]

    let name: String
    let scratch: Scratch
    let host: HostProcess

    /// Starts the instance `name` with `settings` over the defaults (a value
    /// "" removes one) and `plugins` (run arguments) after the nats plugin;
    /// `isolated`: every plugin in a worker (`--isolate all`), behind walls
    /// that let nats connect to the server and nothing else.
    init(_ name: String, _ scratch: Scratch, server: NatsServer, settings: [String: String] = [:], plugins: [String] = [],
         options: [String] = [], isolated: Bool = false) throws {
        self.name = name
        self.scratch = scratch
        let all = Self.defaults.merging(["servers": server.url]) { $1 }.merging(settings) { $1 }.filter { !$0.value.isEmpty }
        host = try HostProcess(
            ["run", "--state", scratch.file("\(name)-state"), "--report", scratch.file("\(name)-report.ndjson"),
             "--plugin", try NatsPlugin.path()]
                + all.sorted { $0.key < $1.key }.flatMap { ["--set", "nats.\($0.key)=\($0.value)"] } + plugins + options
                + TransportWorker.walled(isolated, "nats", grants: ["connect=" + server.url.replacingOccurrences(of: "nats://", with: "")]),
            errorPath: scratch.file("\(name)-stderr.log"))
    }

    /// Waits until the plugin reads the stream.
    func waitUntilReading() throws {
        try #require(host.waitForStderr("info nats: reading the stream"), "\(name):\n\(host.stderr)")
    }

    /// Whether the plugin runs in a worker of its own when `isolated`, and in the host else.
    func runsNats(isolated: Bool) throws -> Bool {
        TransportWorker.runs(host, plugin: try NatsPlugin.path(), isolated: isolated)
    }

    /// The report lines so far.
    var report: [[String: Any]] { (try? scratch.reportLines("\(name)-report.ndjson", lenient: true)) ?? [] }

    /// The ids of the report lines so far.
    var ids: [String] { report.compactMap { $0["id"] as? String } }
}

/// Waits until `hosts` reported `count` lines between them; their ids.
func reportedIDs(_ hosts: [NatsHost], count: Int, timeout: Duration = .seconds(30)) -> [String] {
    eventually(timeout: timeout) { hosts.map(\.report.count).reduce(0, +) >= count }
    return hosts.flatMap(\.ids)
}

/// A record for the probe: `id`, with `data` fields.
func natsRecord(_ id: String, _ data: [String: String] = [:]) -> String {
    let fields = (["n": id] .merging(data) { $1 }).sorted { $0.key < $1.key }.map { "\"\($0.key)\":\"\($0.value)\"" }
    return #"{"message_id":"\#(id)","data":{\#(fields.joined(separator: ","))}}"#
}
