import Foundation
import Testing
#if canImport(Glibc)
import Glibc
#endif

/// `--metrics HOST:PORT` and `PUSHHOST_METRICS`: an address that is not
/// `HOST:PORT`, or that cannot be bound, is a setup error (exit 1, before
/// any record is read) naming the address; the variable turns metrics on,
/// and an empty one leaves them off.
@Suite struct MetricsSetupTests {
    static let message = ndjson(#"{"message_id":"m1","data":{}}"#)

    @Test(arguments: ["nonsense", "127.0.0.1:99999", "::1:80", "127.0.0.1:", ":9469", "127.0.0.1:-1"])
    func anAddressThatIsNotHostAndPortIsASetupError(_ address: String) throws {
        let scratch = try Scratch()
        let result = try scratch.run(try scratch.probe("bg", [.background]) + ["--metrics", address], stdin: Self.message)
        #expect(result.status == 1, "\(result.stderr)")
        #expect(result.errorLines.contains { $0.hasPrefix("error pushhost: --metrics \(address): ") }, "\(result.stderr)")
        #expect(!result.stderr.contains("serving metrics"), "\(result.stderr)")
        #expect(result.stdout.isEmpty, "no record was read: \(result.stdout)")
        #expect(scratch.probeCalls().isEmpty)
    }

    @Test func aPortInUseIsASetupError() throws {
        let scratch = try Scratch()
        let (fd, port) = try Self.listen()
        defer { close(fd) }
        let address = "127.0.0.1:\(port)"
        let result = try scratch.run(try scratch.probe("bg", [.background]) + ["--metrics", address], stdin: Self.message)
        #expect(result.status == 1, "\(result.stderr)")
        // The reason as the kernel says it, and nothing of the library under it.
        #expect(result.errorLines.contains("error pushhost: --metrics \(address): Address already in use"), "\(result.stderr)")
        #expect(result.stdout.isEmpty, "no record was read: \(result.stdout)")
        #expect(scratch.probeCalls().isEmpty)
    }

    @Test func theVariableTurnsMetricsOn() throws {
        let scratch = try Scratch()
        let host = try MetricsHost(
            scratch, try scratch.probe("bg", [.background]), address: nil, environment: ["PUSHHOST_METRICS": "127.0.0.1:0"])
        #expect(host.stderr.contains("info pushhost: serving metrics at http://127.0.0.1:\(host.port)/metrics and health at /healthz"))
        #expect(MetricsEndpoint.listeningPorts(of: host.process.pid) == [host.port])
        #expect(try host.health().status == 200)
        #expect(try host.scrape()["pushhost_records_total", ["source": "stdin", "status": "delivered"]] == 0)
        #expect(host.process.stop() == .status(0), "\(host.stderr)")
    }

    @Test func theFlagWinsOverTheVariable() throws {
        let scratch = try Scratch()
        let host = try MetricsHost(scratch, [], environment: ["PUSHHOST_METRICS": "nonsense"])
        #expect(try host.health().status == 200)
        #expect(host.process.stop() == .status(0), "\(host.stderr)")
    }

    @Test func anEmptyVariableLeavesThemOff() throws {
        let scratch = try Scratch()
        try scratch.spool.create()
        let host = try scratch.startWatching(try scratch.probe("bg", [.background]), environment: ["PUSHHOST_METRICS": ""])
        try scratch.spool.drop("m1.json", Self.message)
        #expect(try eventually(timeout: .seconds(10)) { try scratch.reportLines().count == 1 }, "\(host.stderr)")
        #expect(MetricsEndpoint.listeningPorts(of: host.pid).isEmpty)
        #expect(host.stop() == .status(0), "\(host.stderr)")
        #expect(!host.stderr.contains("serving metrics"), "\(host.stderr)")
        #expect(!host.stderr.contains("--metrics"), "\(host.stderr)")
    }

    /// `[::1]:PORT` serves on IPv6 loopback (where this machine has one).
    @Test(.enabled(if: canBindIPv6Loopback, "no IPv6 loopback here"))
    func anIPv6AddressIsWrittenInBrackets() throws {
        let scratch = try Scratch()
        let host = try MetricsHost(scratch, [], address: "[::1]:0")
        let answer = try MetricsEndpoint.request("GET", "/healthz", port: host.port, host: "::1")
        #expect(answer.status == 200, "\(answer)")
        #expect(try MetricsEndpoint.scrape(port: host.port, host: "::1").all("pushhost_build_info").values.first == 1)
        // The address the log gives is one a browser or curl can take.
        #expect(host.stderr.contains("serving metrics at http://[::1]:\(host.port)/metrics"), "\(host.stderr)")
        #expect(host.process.stop() == .status(0), "\(host.stderr)")
    }

    static var canBindIPv6Loopback: Bool {
        let fd = socket(AF_INET6, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { return false }
        defer { close(fd) }
        var address = sockaddr_in6()
        address.sin6_family = sa_family_t(AF_INET6)
        address.sin6_addr = in6addr_loopback
        return withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, socklen_t(MemoryLayout<sockaddr_in6>.size)) == 0 }
        }
    }

    /// A socket of the test's own, listening on a port of 127.0.0.1 the kernel chose.
    static func listen() throws -> (Int32, Int) {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        inet_pton(AF_INET, "127.0.0.1", &address.sin_addr)
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                bind(fd, $0, length) == 0 && Glibc.listen(fd, 8) == 0 && getsockname(fd, $0, &length) == 0
            }
        }
        guard bound else {
            close(fd)
            throw MetricsEndpoint.Failure(description: "could not listen: errno \(errno)")
        }
        return (fd, Int(UInt16(bigEndian: address.sin_port)))
    }
}
