import Foundation
import Testing

/// A small network of its own for one partition test: a network namespace
/// for nats-server (and the test's own clients: the publisher, the
/// relay), and one per host, each host joined to the
/// server's namespace by a veth pair on a /30 of its own:
///
///     server namespace                              host namespace
///     lo 127.0.0.1 (nats-server 0.0.0.0:4222)
///     to-a 10.77.1.1/30  <------ veth ------>  uplink 10.77.1.2/30   (host a)
///     to-b 10.77.2.1/30  <------ veth ------>  uplink 10.77.2.2/30   (host b)
///
/// Namespaces have their own addresses and ports, so every test uses the
/// same ones; the namespace names are unique per test (the test process's
/// pid and a counter). `tearDown` (call it from a `defer`) kills what was
/// started in them and deletes them; namespaces left by a test process that
/// died are deleted by the next one.
///
/// A link is cut with iptables: a DROP of everything coming in on it, at
/// both of its ends (`cut`). Each kernel sends as it always does and no
/// packet arrives, as when a switch or a cable between them fails: no RST,
/// no ICMP, no carrier change, and a new connect() hangs rather than fails.
/// That is what a partition looks like to the plugin and to libnats: silence.
/// Taking the link down would instead tell both kernels (no carrier, the
/// route is gone, connect() fails at once with ENETUNREACH), and a DROP in
/// OUTPUT makes connect() fail at once with EPERM; neither is silence.
final class PartitionNetwork {
    /// One host's link to the server's namespace.
    struct Link {
        let host: String
        let namespace: String
        /// The veth end in the server's namespace, and its address (the server, as the host sees it).
        let serverEnd: String
        let serverAddress: String
        /// The veth end in the host's namespace, and its address.
        let hostEnd: String
        let hostAddress: String
    }

    /// The namespace of nats-server and of the test's clients.
    let server: String
    private(set) var links: [String: Link] = [:]
    private var namespaces: [String] = []
    /// What tearDown ends, last started first.
    private var stoppers: [() -> Void] = []
    private var tornDown = false
    private let lock = NSLock()

    /// Makes the server's namespace and one for each of `hosts`, with their links.
    init(hosts: [String]) throws {
        try PartitionLab.requireCapabilities()
        let stem = PartitionLab.nextStem()
        server = stem + "-server"
        do {
            try PartitionLab.setupLock.withLock {
                try make(server)
                for (index, host) in hosts.enumerated() {
                    let namespace = "\(stem)-\(host)"
                    try make(namespace)
                    let link = Link(host: host, namespace: namespace, serverEnd: "to-\(host)",
                                    serverAddress: "10.77.\(index + 1).1", hostEnd: "uplink", hostAddress: "10.77.\(index + 1).2")
                    try PartitionLab.ip(["-n", server, "link", "add", link.serverEnd, "type", "veth", "peer", "name", link.hostEnd,
                                         "netns", namespace])
                    try PartitionLab.ip(["-n", server, "addr", "add", link.serverAddress + "/30", "dev", link.serverEnd])
                    try PartitionLab.ip(["-n", namespace, "addr", "add", link.hostAddress + "/30", "dev", link.hostEnd])
                    try PartitionLab.ip(["-n", server, "link", "set", link.serverEnd, "up"])
                    try PartitionLab.ip(["-n", namespace, "link", "set", link.hostEnd, "up"])
                    links[host] = link
                }
            }
        } catch {
            tearDown()
            throw error
        }
    }

    deinit { tearDown() }

    private func make(_ namespace: String) throws {
        try PartitionLab.ip(["netns", "add", namespace])
        namespaces.append(namespace)
        try PartitionLab.ip(["-n", namespace, "link", "set", "lo", "up"])
    }

    func link(_ host: String) throws -> Link {
        try #require(links[host], "no host \(host) in this network")
    }

    /// `ip netns exec NAMESPACE`, to put before a command.
    func prefix(_ namespace: String) -> [String] { [PartitionLab.ipPath, "netns", "exec", namespace] }

    /// Runs `arguments` in `namespace` to the end.
    func run(in namespace: String, _ arguments: [String], stdin: String = "") throws -> Command {
        try Command.run(PartitionLab.ipPath, ["netns", "exec", namespace] + arguments, stdin: stdin)
    }

    /// iptables in `namespace`; throws its reason when it fails.
    private func iptables(in namespace: String, _ arguments: [String]) throws {
        let result = try run(in: namespace, [PartitionLab.iptablesPath, "-w"] + arguments)
        try #require(result.status == 0, "iptables \(arguments.joined(separator: " ")) in \(namespace): \(result.rawStderr)")
    }

    /// Cuts `host`'s link: from now on every packet on it is dropped where it
    /// arrives, at both ends (see the type's comment: silence).
    func cut(_ host: String) throws {
        let link = try link(host)
        try iptables(in: link.namespace, ["-I", "INPUT", "-i", link.hostEnd, "-j", "DROP"])
        try iptables(in: server, ["-I", "INPUT", "-i", link.serverEnd, "-j", "DROP"])
    }

    /// Lets `host`'s link carry packets again.
    func heal(_ host: String) throws {
        let link = try link(host)
        try iptables(in: server, ["-D", "INPUT", "-i", link.serverEnd, "-j", "DROP"])
        try iptables(in: link.namespace, ["-D", "INPUT", "-i", link.hostEnd, "-j", "DROP"])
    }

    /// Drops each packet on `host`'s link with `probability`, in each
    /// direction (iptables' statistic match, where it arrives).
    func lose(_ probability: Double, on host: String) throws {
        let link = try link(host)
        let rule = ["-m", "statistic", "--mode", "random", "--probability", String(probability), "-j", "DROP"]
        try iptables(in: link.namespace, ["-A", "INPUT", "-i", link.hostEnd] + rule)
        try iptables(in: server, ["-A", "INPUT", "-i", link.serverEnd] + rule)
    }

    /// Packets dropped so far on `host`'s link by `lose`'s rules, in each direction.
    func dropped(on host: String) throws -> (toHost: Int, toServer: Int) {
        let link = try link(host)
        func count(_ namespace: String, _ interface: String) throws -> Int {
            let result = try run(in: namespace, [PartitionLab.iptablesPath, "-w", "-L", "INPUT", "-v", "-x", "-n"])
            return result.stdout.split(separator: "\n").filter { $0.contains(interface) && $0.contains("DROP") }
                .compactMap { Int($0.split(separator: " ").first ?? "") }.reduce(0, +)
        }
        return (try count(link.namespace, link.hostEnd), try count(server, link.serverEnd))
    }

    /// Something to end at tearDown (a process started in a namespace).
    func atTearDown(_ stop: @escaping () -> Void) {
        lock.withLock { stoppers.append(stop) }
    }

    /// Starts `arguments` in `namespace` in the background, its standard
    /// output and error into `output`; killed at tearDown.
    func start(in namespace: String, _ arguments: [String], output: String) throws -> NamespacedProcess {
        let process = try NamespacedProcess(prefix(namespace) + arguments, output: output)
        atTearDown { process.kill() }
        return process
    }

    /// Kills everything started in the namespaces, then deletes them. Safe to call twice.
    func tearDown() {
        let (stops, names) = lock.withLock { () -> ([() -> Void], [String]) in
            if tornDown { return ([], []) }
            tornDown = true
            defer { stoppers = []; namespaces = [] }
            return (stoppers, namespaces)
        }
        for stop in stops.reversed() { stop() }
        // Deleting a namespace deletes the veth ends in it, and their peers.
        for name in names.reversed() { _ = try? Command.run(PartitionLab.ipPath, ["netns", "del", name]) }
    }
}

/// A program running in a namespace, its output in a file.
final class NamespacedProcess: @unchecked Sendable {
    private let process = Process()
    let output: String

    init(_ arguments: [String], output: String) throws {
        self.output = output
        FileManager.default.createFile(atPath: output, contents: nil)
        let file = try FileHandle(forWritingTo: URL(fileURLWithPath: output))
        defer { try? file.close() }
        process.executableURL = URL(fileURLWithPath: arguments[0])
        process.arguments = Array(arguments.dropFirst())
        process.standardInput = FileHandle.nullDevice
        process.standardOutput = file
        process.standardError = file
        try process.run()
    }

    deinit { kill() }

    var isRunning: Bool { process.isRunning }
    var text: String { (try? String(contentsOfFile: output, encoding: .utf8)) ?? "" }

    /// SIGKILL, and waits for it to end.
    func kill() {
        guard process.isRunning else { return }
        Foundation.kill(process.processIdentifier, SIGKILL)
        process.waitUntilExit()
    }

    /// SIGTERM; whether it ended within `timeout` (else it is killed).
    func terminate(timeout: Duration = .seconds(10)) -> Bool {
        guard process.isRunning else { return true }
        Foundation.kill(process.processIdentifier, SIGTERM)
        let ended = eventually(timeout: timeout) { !self.process.isRunning }
        if !ended { kill() }
        process.waitUntilExit()
        return ended
    }

    /// Waits until its output contains `text`; false at the timeout or when it ended first.
    func waitFor(_ text: String, timeout: Duration = .seconds(10)) -> Bool {
        eventually(timeout: timeout) { self.text.contains(text) || !self.process.isRunning }
        return self.text.contains(text)
    }
}

/// What the partition tests need of the machine, and the namespaces' names.
enum PartitionLab {
    static let ipPath = ["/usr/sbin/ip", "/sbin/ip", "/usr/bin/ip", "/bin/ip"]
        .first { FileManager.default.isExecutableFile(atPath: $0) } ?? "/usr/sbin/ip"
    static let iptablesPath = ["/usr/sbin/iptables", "/sbin/iptables", "/usr/bin/iptables"]
        .first { FileManager.default.isExecutableFile(atPath: $0) } ?? "/usr/sbin/iptables"
    static let python = "/usr/bin/python3"

    /// `ip netns add` and the first mount of /run/netns do not like to race.
    static let setupLock = NSLock()

    /// Runs `ip arguments`; throws its reason when it fails.
    static func ip(_ arguments: [String]) throws {
        let result = try Command.run(ipPath, arguments)
        try #require(result.status == 0, "ip \(arguments.joined(separator: " ")): \(result.rawStderr)")
    }

    private static let counter = ManagedCounter()

    /// A name no other test (of this process or another) uses: `phpart-PID-N`.
    static func nextStem() -> String {
        _ = removeLeftovers
        return "phpart-\(getpid())-\(counter.next())"
    }

    /// Namespaces named by a test process that no longer runs (it crashed
    /// before its teardown): deleted once per process.
    private static let removeLeftovers: Void = {
        guard let list = try? Command.run(ipPath, ["netns", "list"]) else { return }
        for line in list.stdout.split(separator: "\n") {
            let name = String(line.split(separator: " ").first ?? "")
            let parts = name.split(separator: "-")
            guard parts.count >= 3, parts[0] == "phpart", let pid = Int32(parts[1]), pid != getpid(),
                  Foundation.kill(pid, 0) != 0, errno == ESRCH else { continue }
            _ = try? Command.run(ipPath, ["netns", "del", name])
        }
    }()

    /// Why this machine cannot run the partition tests, or nil when it can:
    /// root, iproute2 with `ip netns` and veth pairs, iptables with the
    /// statistic match in a namespace, /usr/bin/python3, nats-server and libnats.
    static let missing: String? = {
        if geteuid() != 0 { return "not root: network namespaces need CAP_SYS_ADMIN and CAP_NET_ADMIN" }
        if !FileManager.default.isExecutableFile(atPath: ipPath) { return "no ip (apt-get install iproute2)" }
        if !FileManager.default.isExecutableFile(atPath: iptablesPath) { return "no iptables (apt-get install iptables)" }
        if !FileManager.default.isExecutableFile(atPath: python) { return "no \(python) (apt-get install python3)" }
        if !FileManager.default.isExecutableFile(atPath: "/usr/sbin/nats-server") { return "no nats-server (apt-get install nats-server)" }
        if (try? Command.run("pkg-config", ["--exists", "libnats"]))?.status != 0 { return "no libnats (apt-get install libnats-dev)" }
        // Try it: a namespace, a veth pair in it, and the rule the loss test adds.
        let probe = "phpart-\(getpid())-probe"
        defer { _ = try? Command.run(ipPath, ["netns", "del", probe]) }
        let steps: [[String]] = [
            ["netns", "add", probe],
            ["-n", probe, "link", "add", "probe0", "type", "veth", "peer", "name", "probe1"],
            ["netns", "exec", probe, iptablesPath, "-w", "-A", "INPUT", "-i", "probe0", "-m", "statistic", "--mode", "random",
             "--probability", "0.01", "-j", "DROP"],
        ]
        return setupLock.withLock {
            for step in steps {
                guard let result = try? Command.run(ipPath, step) else { return "\(ipPath) could not run" }
                if result.status != 0 {
                    return "cannot make a network namespace here: ip \(step.joined(separator: " ")): "
                        + result.rawStderr.trimmingCharacters(in: .whitespacesAndNewlines)
                }
            }
            return nil
        }
    }()

    /// Whether the tests run: on CI always (a missing capability must fail
    /// there, not skip); elsewhere when nothing is missing, else they are
    /// skipped, and the reason is printed.
    static var canRun: Bool {
        if ProcessInfo.processInfo.environment["CI"] == "true" { return true }
        if let missing {
            _ = saySkipped
            return false
        }
        return true
    }

    /// The reason, printed once (the condition is asked for the suite and each test).
    private static let saySkipped: Void = { print("PartitionTests skipped: \(missing ?? "")") }()

    /// Fails the test with the reason when the machine cannot make the
    /// namespaces (on CI, where the tests are not skipped).
    static func requireCapabilities() throws {
        try #require(missing == nil, "\(missing ?? "")")
    }
}

private final class ManagedCounter: @unchecked Sendable {
    private let lock = NSLock()
    private var value = 0
    func next() -> Int { lock.withLock { value += 1; return value } }
}
