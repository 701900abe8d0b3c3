import Foundation
import Testing
#if canImport(Glibc)
import Glibc
#endif

/// What the `--metrics` tests share: a plain HTTP/1.1 client over a raw
/// socket (so a test can also send what no HTTP library would), the port
/// the host logs, and the listening sockets of a process. `MetricsText`
/// parses a scrape; `MetricsHost` runs a host to scrape.
enum MetricsEndpoint {
    /// One answer: its status, head and body.
    struct Answer: CustomStringConvertible {
        let status: Int
        let head: String
        let body: String

        var description: String { "\(status) \(body)" }
    }

    struct Failure: Error, CustomStringConvertible {
        let description: String
    }

    /// The port in the host's `serving metrics at http://HOST:PORT/metrics
    /// and health at /healthz` line (HOST may be an IPv6 address, bracketed or not).
    static func port(inLog log: String) -> Int? {
        guard let start = log.range(of: "serving metrics at http://"),
              let end = log[start.upperBound...].range(of: "/metrics and health at /healthz"),
              let colon = log[start.upperBound..<end.lowerBound].lastIndex(of: ":")
        else { return nil }
        return Int(log[log.index(after: colon)..<end.lowerBound])
    }

    // MARK: Sockets

    /// A TCP connection to `host` (`127.0.0.1` or `::1`) at `port`, its
    /// reads bounded by `timeout`; the caller closes it.
    static func connect(port: Int, host: String = "127.0.0.1", timeout: Duration = .seconds(10)) throws -> Int32 {
        let v6 = host.contains(":")
        let fd = socket(v6 ? AF_INET6 : AF_INET, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard fd >= 0 else { throw Failure(description: "socket: errno \(errno)") }
        var wait = timeval(tv_sec: Int(timeout.components.seconds), tv_usec: 0)
        setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &wait, socklen_t(MemoryLayout<timeval>.size))
        setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &wait, socklen_t(MemoryLayout<timeval>.size))
        let result: Int32
        if v6 {
            var address = sockaddr_in6()
            address.sin6_family = sa_family_t(AF_INET6)
            address.sin6_port = in_port_t(UInt16(port).bigEndian)
            inet_pton(AF_INET6, host, &address.sin6_addr)
            result = withUnsafePointer(to: &address) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { Glibc.connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in6>.size)) }
            }
        } else {
            var address = sockaddr_in()
            address.sin_family = sa_family_t(AF_INET)
            address.sin_port = in_port_t(UInt16(port).bigEndian)
            inet_pton(AF_INET, host, &address.sin_addr)
            result = withUnsafePointer(to: &address) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { Glibc.connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
            }
        }
        guard result == 0 else {
            let code = errno
            close(fd)
            throw Failure(description: "connect to \(host):\(port): errno \(code)")
        }
        return fd
    }

    /// Sends all of `bytes`; false when the peer closed or reset the connection
    /// (no SIGPIPE).
    @discardableResult
    static func send(_ fd: Int32, _ bytes: [UInt8]) -> Bool {
        var sent = 0
        while sent < bytes.count {
            let count = bytes[sent...].withUnsafeBytes { Glibc.send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
            if count < 0 && errno == EINTR { continue }
            guard count > 0 else { return false }
            sent += count
        }
        return true
    }

    /// Reads until the peer closes (or resets) the connection; nil when
    /// the read timed out first.
    static func readToEnd(_ fd: Int32) -> [UInt8]? {
        receive(fd) { _ in false }
    }

    /// Reads one answer: until its head and the body its Content-Length
    /// announces are in, or the peer closes (or resets) the connection;
    /// nil when the read timed out first.
    static func readAnswer(_ fd: Int32) -> [UInt8]? {
        receive(fd) { data in
            guard let split = (0..<max(0, data.count - 3)).first(where: { data[$0..<($0 + 4)].elementsEqual([13, 10, 13, 10]) }) else {
                return false
            }
            let head = String(decoding: data[..<split], as: UTF8.self).lowercased()
            let length = head.split(separator: "\r\n").first { $0.hasPrefix("content-length:") }
                .flatMap { Int($0.dropFirst("content-length:".count).trimmingCharacters(in: .whitespaces)) } ?? 0
            return data.count >= split + 4 + length
        }
    }

    /// Reads until `enough` says so of what came, or the peer closes (or
    /// resets) the connection; nil when the read timed out first.
    private static func receive(_ fd: Int32, until enough: ([UInt8]) -> Bool) -> [UInt8]? {
        var data: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 65536)
        while !enough(data) {
            let count = buffer.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
            if count > 0 {
                data += buffer[0..<count]
            } else if count == 0 || errno == ECONNRESET {
                return data
            } else if errno != EINTR {
                return nil
            }
        }
        return data
    }

    /// Whether the peer has closed `fd` (a read would see its end or a
    /// reset), without waiting.
    static func isClosedByPeer(_ fd: Int32) -> Bool {
        var byte: UInt8 = 0
        let count = recv(fd, &byte, 1, Int32(MSG_DONTWAIT) | Int32(MSG_PEEK))
        return count == 0 || (count < 0 && errno == ECONNRESET)
    }

    /// Sends `request` as it is on a new connection and reads until the
    /// server closes it: its answer, or nil when it closed without one.
    static func exchange(_ request: [UInt8], port: Int, host: String = "127.0.0.1") throws -> Answer? {
        let fd = try connect(port: port, host: host)
        defer { close(fd) }
        send(fd, request)
        guard let bytes = readToEnd(fd) else { throw Failure(description: "no answer and no close from \(host):\(port)") }
        return try parse(bytes)
    }

    /// `METHOD PATH HTTP/1.1` with `Connection: close`.
    static func request(_ method: String = "GET", _ path: String, port: Int, host: String = "127.0.0.1") throws -> Answer {
        let text = "\(method) \(path) HTTP/1.1\r\nHost: pushhost\r\nUser-Agent: pushhost-tests\r\nConnection: close\r\n\r\n"
        guard let answer = try exchange(Array(text.utf8), port: port, host: host) else {
            throw Failure(description: "\(method) \(path): the connection closed without an answer")
        }
        return answer
    }

    /// The answer in `bytes`; nil for no bytes at all.
    static func parse(_ bytes: [UInt8]) throws -> Answer? {
        guard !bytes.isEmpty else { return nil }
        guard let split = (0..<max(0, bytes.count - 3)).first(where: { bytes[$0..<($0 + 4)].elementsEqual([13, 10, 13, 10]) }) else {
            throw Failure(description: "no head in: \(String(decoding: bytes.prefix(200), as: UTF8.self))")
        }
        let head = String(decoding: bytes[..<split], as: UTF8.self)
        let fields = head.split(separator: " ", maxSplits: 2)
        guard fields.count >= 2, fields[0].hasPrefix("HTTP/1."), let status = Int(fields[1]) else {
            throw Failure(description: "no status line in: \(head)")
        }
        var body = Array(bytes[(split + 4)...])
        if head.lowercased().contains("transfer-encoding: chunked") { body = try unchunked(body) }
        return Answer(status: status, head: head, body: String(decoding: body, as: UTF8.self))
    }

    /// The bytes of a chunked body, its chunks joined.
    static func unchunked(_ bytes: [UInt8]) throws -> [UInt8] {
        var body: [UInt8] = []
        var index = 0
        while true {
            guard let end = (index..<max(index, bytes.count - 1)).first(where: { bytes[$0] == 13 && bytes[$0 + 1] == 10 }),
                  let size = Int(String(decoding: bytes[index..<end], as: UTF8.self).split(separator: ";").first ?? "", radix: 16)
            else { throw Failure(description: "a bad chunk") }
            if size == 0 { return body }
            guard end + 2 + size <= bytes.count else { throw Failure(description: "a chunk cut short") }
            body += bytes[(end + 2)..<(end + 2 + size)]
            index = end + 2 + size + 2
        }
    }

    /// `GET /metrics`, parsed; throws unless it answered 200.
    static func scrape(port: Int, host: String = "127.0.0.1") throws -> MetricsText {
        let answer = try request("GET", "/metrics", port: port, host: host)
        guard answer.status == 200 else { throw Failure(description: "GET /metrics: \(answer)") }
        return try MetricsText(answer.body)
    }

    /// `GET /healthz`.
    static func health(port: Int) throws -> Answer {
        try request("GET", "/healthz", port: port)
    }

    // MARK: Listening sockets

    /// The TCP ports process `pid` listens on (IPv4 and IPv6): its socket
    /// descriptors matched by inode against `/proc/PID/net/tcp` and `tcp6`.
    static func listeningPorts(of pid: Int32) -> Set<Int> {
        let fds = "/proc/\(pid)/fd"
        var inodes: Set<String> = []
        for name in (try? FileManager.default.contentsOfDirectory(atPath: fds)) ?? [] {
            if let target = try? FileManager.default.destinationOfSymbolicLink(atPath: fds + "/" + name),
               target.hasPrefix("socket:[") {
                inodes.insert(String(target.dropFirst("socket:[".count).dropLast()))
            }
        }
        var ports: Set<Int> = []
        for table in ["tcp", "tcp6"] {
            let text = (try? String(contentsOfFile: "/proc/\(pid)/net/\(table)", encoding: .utf8)) ?? ""
            for line in text.split(separator: "\n").dropFirst() {
                let columns = line.split(separator: " ")
                // sl local_address rem_address st tx:rx tr:when retrnsmt uid timeout inode
                guard columns.count > 9, columns[3] == "0A", inodes.contains(String(columns[9])),
                      let port = columns[1].split(separator: ":").last.flatMap({ Int($0, radix: 16) })
                else { continue }
                ports.insert(port)
            }
        }
        return ports
    }
}
