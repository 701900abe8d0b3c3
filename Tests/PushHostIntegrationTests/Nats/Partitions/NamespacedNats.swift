import Foundation
import Testing

/// nats-server with JetStream in the server's namespace of a
/// `PartitionNetwork`, on 0.0.0.0:4222 there (a namespace's ports are its
/// own), its store in the test's scratch folder. It can be stopped (or
/// killed) and started again with the same store.
/// The test's client (Tests/Fixtures/nats/jetstream.c) runs in that
/// namespace too and connects over its loopback, which no cut touches.
final class NamespacedNatsServer {
    static let port = 4222
    private let network: PartitionNetwork
    private let scratch: Scratch
    private var process: NamespacedProcess?
    private var starts = 0

    /// How the test's clients, in the server's namespace, reach it.
    let localURL = "nats://127.0.0.1:\(NamespacedNatsServer.port)"

    /// Whether its log traces each protocol message (ServerTrace reads it).
    private let trace: Bool
    /// Its log files, one per start.
    private(set) var logs: [String] = []

    init(_ network: PartitionNetwork, _ scratch: Scratch, trace: Bool = false) throws {
        self.network = network
        self.scratch = scratch
        self.trace = trace
        try start()
    }

    /// The URL `host` connects to: the server's end of its link, on `port`
    /// (another port: a relay's).
    func url(for host: String, port: Int = NamespacedNatsServer.port) throws -> String {
        "nats://\(try network.link(host).serverAddress):\(port)"
    }

    /// Starts it (again), with the store it had.
    func start() throws {
        starts += 1
        let config = try scratch.write("nats/server.conf", """
            listen: 0.0.0.0:\(Self.port)
            jetstream { store_dir: "\(scratch.file("nats/store"))" }
            trace: \(trace)

            """)
        let log = scratch.file("nats/server-\(starts).log")
        logs.append(log)
        let process = try network.start(in: network.server, ["/usr/sbin/nats-server", "-c", config, "-l", log],
                                        output: scratch.file("nats/server-\(starts).out"))
        self.process = process
        var text = ""
        eventually(timeout: .seconds(10)) {
            text = (try? String(contentsOfFile: log, encoding: .utf8)) ?? ""
            return text.contains("Server is ready") || !process.isRunning
        }
        try #require(text.contains("Server is ready"), "nats-server did not start:\n\(text)\(process.text)")
    }

    /// Where its log is now: events ServerTrace reads later than this have larger positions.
    func mark() -> Int {
        let size = (try? FileManager.default.attributesOfItem(atPath: logs.last ?? ""))?[.size] as? Int
        return (logs.count - 1) << 40 | (size ?? 0)
    }

    /// What its trace says so far (with `trace`).
    func traced() -> ServerTrace {
        ServerTrace(logs: logs, hosts: Dictionary(uniqueKeysWithValues: network.links.values.map { ($0.hostAddress, $0.host) }))
    }

    /// SIGKILL: no goodbye to the clients (which a cut would not let through anyway).
    func kill() { process?.kill() }

    /// SIGTERM, as an operator restarting it: it closes its connections
    /// and its store, and ends.
    func stop() throws {
        guard let process else { return }
        try #require(process.terminate(), "nats-server did not end on SIGTERM")
    }

    private func tool(_ arguments: [String], stdin: String = "") throws -> Command {
        try network.run(in: network.server, [try NatsPlugin.tool()] + arguments, stdin: stdin)
    }

    /// Publishes each of `records` to `subject` and waits until each is stored.
    func publish(_ records: [String], to subject: String) throws {
        let result = try tool(["publish", localURL, subject], stdin: records.joined(separator: "\n") + "\n")
        try #require(result.status == 0, "jetstream publish: \(result.rawStderr)")
    }

    /// Each message stored in `stream`.
    func messages(in stream: String) throws -> [[String: Any]] {
        let result = try tool(["dump", localURL, stream])
        try #require(result.status == 0, "jetstream dump: \(result.rawStderr)")
        return try result.stdout.split(separator: "\n").map { line in
            try #require(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])
        }
    }

    /// The stream's `messages` and the consumer's `pending`, `ack_pending`,
    /// `redelivered` and `delivered` (see NatsServer.state).
    func state(of stream: String = "PUSHES", consumer: String = "pushhost") throws -> [String: Int] {
        let result = try tool(["info", localURL, stream, consumer])
        try #require(result.status == 0, "jetstream info: \(result.rawStderr)")
        return try #require(try JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [String: Int])
    }

    /// `state` as one line for the test's output, or why there is none.
    func describeState() -> String {
        guard let state = try? state() else { return "(no consumer info)" }
        return ["messages", "pending", "ack_pending", "redelivered", "delivered"].map { "\($0) \(state[$0] ?? -1)" }
            .joined(separator: ", ")
    }
}

/// One pushhost instance in its host's namespace, reading the stream
/// through the nats plugin, as NatsHost does on loopback (the same
/// defaults: a work-queue stream PUSHES the plugin creates, ack_wait 2 s,
/// a back-off of 0.1 s), with its own state folder, report and standard
/// error in the scratch folder. Its probe (data and background roles,
/// `NAME-probe.log`) answers each record after `delayMs` from a thread of
/// its own (0: at once), so the host works on it meanwhile.
final class NamespacedHost {
    let name: String
    let scratch: Scratch
    let host: HostProcess

    init(_ name: String, _ scratch: Scratch, network: PartitionNetwork, server: String, delayMs: Int = 0,
         settings: [String: String] = [:], options: [String] = []) throws {
        self.name = name
        self.scratch = scratch
        let answer = delayMs > 0 ? ["verdict": "pending", "delay_ms": String(delayMs)] : [:]
        let probe = try scratch.probe("probe", [.data, .background],
                                      settings: answer.merging(["log": scratch.file("\(name)-probe.log")]) { $1 })
        let all = NatsHost.defaults.merging(["servers": server]) { $1 }.merging(settings) { $1 }.filter { !$0.value.isEmpty }
        host = try HostProcess(
            ["netns", "exec", try network.link(name).namespace, Paths.pushhost,
             "run", "--state", scratch.file("\(name)-state"), "--report", scratch.file("\(name)-report.ndjson"),
             "--plugin", try NatsPlugin.path()]
                + all.sorted { $0.key < $1.key }.flatMap { ["--set", "nats.\($0.key)=\($0.value)"] } + probe + options,
            program: PartitionLab.ipPath, errorPath: scratch.file("\(name)-stderr.log"))
        let host = host
        network.atTearDown {
            host.send(SIGKILL)
            _ = host.waitForExit()
        }
    }

    /// Waits until the plugin reads the stream.
    func waitUntilReading() throws {
        try #require(host.waitForStderr("info nats: reading the stream"), "\(name):\n\(host.stderr)")
    }

    /// The report lines so far.
    var report: [[String: Any]] { (try? scratch.reportLines("\(name)-report.ndjson", lenient: true)) ?? [] }

    /// The ids of the report lines that say delivered.
    var delivered: [String] {
        report.filter { $0["status"] as? String == "delivered" }.compactMap { $0["id"] as? String }
    }

    /// The ids of the records its data stage began on (its probe's log).
    var begun: [String] {
        scratch.probeLines(scratch.file("\(name)-probe.log")).filter { $0.event == "data" }.map(\.id)
    }
}

/// One line per test: records published, handled (the delivered lines of
/// the hosts' reports), handled twice (ids reported by more than one host,
/// or twice by one), and lost (published, never reported delivered).
struct PartitionCount: CustomStringConvertible {
    let published: Int
    let handled: Int
    let twice: Int
    let lost: [String]

    init(published ids: [String], hosts: [NamespacedHost]) {
        let delivered = hosts.flatMap(\.delivered)
        var times: [String: Int] = [:]
        for id in delivered { times[id, default: 0] += 1 }
        published = ids.count
        handled = delivered.count
        twice = times.values.filter { $0 > 1 }.count
        lost = ids.filter { times[$0] == nil }
    }

    var description: String {
        "published \(published), handled \(handled), handled twice \(twice), lost \(lost.count)"
            + (lost.isEmpty ? "" : " (\(lost.prefix(20).joined(separator: " "))\(lost.count > 20 ? " ..." : ""))")
    }
}

/// Waits until every one of `ids` was reported delivered by one of `hosts`
/// and the stream holds no record; whether both happened by `timeout`.
@discardableResult
func waitUntilHandled(_ ids: [String], by hosts: [NamespacedHost], server: NamespacedNatsServer,
                      timeout: Duration = .seconds(40)) -> Bool {
    let wanted = Set(ids)
    return eventually(timeout: timeout, every: .milliseconds(100)) {
        wanted.isSubset(of: Set(hosts.flatMap(\.delivered))) && (try? server.state())?["messages"] == 0
    }
}

// MARK: The relay: 50 ms each way

extension PartitionNetwork {
    /// A TCP relay in the server's namespace, on 0.0.0.0:`port`, to
    /// `target` there: each chunk it reads is written on `delayMs` later,
    /// in order, in each direction. This kernel has no sch_netem, so this
    /// is the delay; the hosts connect to it instead of to the server.
    func startRelay(_ scratch: Scratch, port: Int, to target: Int, delayMs: Int) throws -> NamespacedProcess {
        let script = try scratch.write("relay.py", PartitionScripts.relay)
        let relay = try start(in: server, [PartitionLab.python, script, "0.0.0.0", String(port), "127.0.0.1", String(target), String(delayMs)],
                              output: scratch.file("relay.log"))
        try #require(relay.waitFor("ready"), "the relay did not start:\n\(relay.text)")
        return relay
    }
}

// MARK: Who settled what: the server's own trace

/// What the server did and heard, from its own trace (`trace: true`): each
/// record the consumer delivered, to which connection, as
/// `->> [MSG SUBJECT SID $JS.ACK.PUSHES.pushhost.DELIVERIES.STREAM_SEQ.CONSUMER_SEQ.TIME.PENDING SIZE]`,
/// and each Ack, Nak, Term and InProgress a client sent, as
/// `<<- [PUB $JS.ACK.... SIZE]` and then `<<- MSG_PAYLOAD: ["+ACK"]`. Each
/// trace line names the connection's address, which says which host it is
/// (the host's end of its link), and each settlement the delivery it
/// settles (its delivery count and stream sequence). Positions order the
/// events as the server logged them, across its starts.
struct ServerTrace {
    struct Event {
        let position: Int
        /// deliver, ack, nak, term, progress, next
        let kind: String
        /// The host (by its address), or the address.
        let host: String
        let sequence: Int
        let deliveries: Int
    }

    /// A settlement (Ack, Nak, Term) the server heard for a delivery after
    /// it had delivered the record again.
    struct Stale {
        let event: Event
        /// The newest delivery when the settlement came, and its host.
        let newer: Int
        let newerHost: String
        /// Whether that newest delivery had been settled already (the settlement then changed nothing).
        let newerSettled: Bool

        func describe(_ ids: [String]) -> String {
            "\(event.kind) from \(event.host) of \(ServerTrace.id(of: event.sequence, ids)) (stream sequence \(event.sequence)) delivery \(event.deliveries), "
                + "after delivery \(newer) to \(newerHost)\(newerSettled ? ", which had been settled already" : ", which was still under way")"
        }
    }

    let events: [Event]

    /// The id of the record at stream sequence `sequence`, when `ids` were
    /// published in order to an empty stream.
    static func id(of sequence: Int, _ ids: [String]) -> String {
        sequence >= 1 && sequence <= ids.count ? ids[sequence - 1] : "sequence \(sequence)"
    }

    /// The events of `logs` (the server's log files, one per start, in
    /// order); `hosts` names the addresses.
    init(logs: [String], hosts: [String: String]) {
        var events: [Event] = []
        for (start, path) in logs.enumerated() {
            let text = (try? String(contentsOfFile: path, encoding: .utf8)) ?? ""
            var offset = 0
            /// The connection (cid) whose PUB to $JS.ACK waits for its payload line.
            var settling: [Substring: (host: String, sequence: Int, deliveries: Int)] = [:]
            for line in text.split(separator: "\n", omittingEmptySubsequences: false) {
                defer { offset += line.utf8.count + 1 }
                guard let trace = line.range(of: "[TRC] ") else { continue }
                let rest = line[trace.upperBound...]
                let fields = rest.split(separator: " ", maxSplits: 4)
                guard fields.count >= 4, fields[1] == "-", fields[2].hasPrefix("cid:") else { continue }
                let address = String(fields[0].split(separator: ":").first ?? "")
                let cid = fields[2]
                let host = hosts[address] ?? address
                let position = start << 40 | offset
                if let op = rest.range(of: " - ->> [MSG ") {
                    let words = rest[op.upperBound...].split(separator: " ")
                    guard words.count == 4, let ack = Self.ackSubject(words[2]) else { continue }
                    events.append(Event(position: position, kind: "deliver", host: host, sequence: ack.sequence, deliveries: ack.deliveries))
                } else if let op = rest.range(of: " - <<- [PUB $JS.ACK.") {
                    let words = rest[op.upperBound...].split(separator: " ")
                    guard let ack = Self.ackSubject("$JS.ACK." + (words.first ?? "")) else { continue }
                    settling[cid] = (host, ack.sequence, ack.deliveries)
                } else if let op = rest.range(of: " - <<- MSG_PAYLOAD: [\""), let pub = settling.removeValue(forKey: cid) {
                    let payload = rest[op.upperBound...]
                    let kind = payload.hasPrefix("+WPI") ? "progress" : payload.hasPrefix("-NAK") ? "nak"
                        : payload.hasPrefix("+TERM") ? "term" : payload.hasPrefix("+NXT") ? "next" : "ack"
                    events.append(Event(position: position, kind: kind, host: pub.host, sequence: pub.sequence, deliveries: pub.deliveries))
                }
            }
        }
        self.events = events
    }

    /// DELIVERIES and STREAM_SEQ of `$JS.ACK.STREAM.CONSUMER.DELIVERIES.STREAM_SEQ.CONSUMER_SEQ.TIME.PENDING`.
    static func ackSubject(_ subject: some StringProtocol) -> (deliveries: Int, sequence: Int)? {
        guard subject.hasPrefix("$JS.ACK.") else { return nil }
        let tokens = subject.split(separator: ".")
        guard tokens.count >= 9, let deliveries = Int(tokens[tokens.count - 5]), let sequence = Int(tokens[tokens.count - 4]) else {
            return nil
        }
        return (deliveries, sequence)
    }

    /// Sequence -> the hosts it was delivered to, in order.
    var routes: [Int: [String]] {
        var routes: [Int: [String]] = [:]
        for event in events where event.kind == "deliver" { routes[event.sequence, default: []].append(event.host) }
        return routes
    }

    /// The settlements of deliveries the server had superseded by another delivery of the record.
    var stale: [Stale] {
        var hostOf: [String: String] = [:]
        var newest: [Int: Int] = [:]
        var settled = Set<String>()
        var stale: [Stale] = []
        for event in events {
            let key = "\(event.sequence)/\(event.deliveries)"
            switch event.kind {
            case "deliver":
                hostOf[key] = event.host
                newest[event.sequence] = max(newest[event.sequence] ?? 0, event.deliveries)
            case "ack", "nak", "term", "next":
                if let last = newest[event.sequence], last > event.deliveries {
                    let lastKey = "\(event.sequence)/\(last)"
                    stale.append(Stale(event: event, newer: last, newerHost: hostOf[lastKey] ?? "?", newerSettled: settled.contains(lastKey)))
                }
                settled.insert(key)
            default:
                break
            }
        }
        return stale
    }

    /// InProgress the server heard for deliveries it had superseded.
    var staleProgress: Int {
        var newest: [Int: Int] = [:]
        var count = 0
        for event in events {
            if event.kind == "deliver" { newest[event.sequence] = max(newest[event.sequence] ?? 0, event.deliveries) }
            if event.kind == "progress", (newest[event.sequence] ?? 0) > event.deliveries { count += 1 }
        }
        return count
    }

    /// The deliveries the server never heard a settlement of.
    var unsettled: [Event] {
        var open: [String: Event] = [:]
        for event in events {
            let key = "\(event.sequence)/\(event.deliveries)"
            if event.kind == "deliver" { open[key] = event }
            else if ["ack", "nak", "term", "next"].contains(event.kind) { open[key] = nil }
        }
        return open.values.sorted { $0.position < $1.position }
    }

    /// The history of `sequence`, for a failure's message.
    func history(of sequence: Int) -> String {
        events.filter { $0.sequence == sequence && $0.kind != "progress" }
            .map { "\($0.kind) \($0.deliveries) \($0.kind == "deliver" ? "to" : "from") \($0.host)" }.joined(separator: ", ")
    }
}

/// The Python the tests run in the server's namespace (/usr/bin/python3, the standard library only).
enum PartitionScripts {
    /// relay.py LISTEN_HOST LISTEN_PORT TARGET_HOST TARGET_PORT DELAY_MS:
    /// a TCP relay that holds each chunk DELAY_MS before it writes it on,
    /// in each direction, in order; "ready" on standard output once it listens.
    static let relay = #"""
        import asyncio, sys

        LISTEN_HOST, LISTEN_PORT = sys.argv[1], int(sys.argv[2])
        TARGET_HOST, TARGET_PORT = sys.argv[3], int(sys.argv[4])
        DELAY = int(sys.argv[5]) / 1000.0

        async def pump(reader, writer):
            loop = asyncio.get_running_loop()
            queue = asyncio.Queue()

            async def deliver():
                while True:
                    due, chunk = await queue.get()
                    pause = due - loop.time()
                    if pause > 0:
                        await asyncio.sleep(pause)
                    if chunk is None:
                        return
                    writer.write(chunk)
                    await writer.drain()

            sender = asyncio.ensure_future(deliver())
            try:
                while True:
                    chunk = await reader.read(65536)
                    if not chunk:
                        break
                    queue.put_nowait((loop.time() + DELAY, chunk))
            except OSError:
                pass
            queue.put_nowait((loop.time() + DELAY, None))
            try:
                await sender
            except OSError:
                pass
            writer.close()

        async def serve(client_reader, client_writer):
            try:
                server_reader, server_writer = await asyncio.open_connection(TARGET_HOST, TARGET_PORT)
            except OSError:
                client_writer.close()
                return
            await asyncio.gather(pump(client_reader, server_writer), pump(server_reader, client_writer),
                                 return_exceptions=True)

        async def main():
            server = await asyncio.start_server(serve, LISTEN_HOST, LISTEN_PORT, reuse_address=True)
            print("ready", flush=True)
            async with server:
                await server.serve_forever()

        asyncio.run(main())
        """#

}
