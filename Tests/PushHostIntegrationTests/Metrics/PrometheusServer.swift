import Foundation
import Testing

/// A Prometheus started for one test on a free loopback port, with its
/// storage and configuration in the test's scratch folder, scraping
/// `target` every second; killed by `stop` or when it goes away.
final class PrometheusServer {
    let port: Int
    private let process = Process()
    private let logPath: String

    struct Sample: CustomStringConvertible {
        let labels: [String: String]
        let value: Double
        var description: String { "\(labels) \(value)" }
    }

    init(scratch: Scratch, target: String) throws {
        port = try Self.freePort()
        let config = try scratch.write("prometheus/prometheus.yml", """
            global:
              scrape_interval: 1s
              scrape_timeout: 1s
              evaluation_interval: 1s
            scrape_configs:
              - job_name: pushhost
                scrape_interval: 1s
                static_configs:
                  - targets: ["\(target)"]

            """)
        logPath = scratch.file("prometheus/prometheus.log")
        _ = FileManager.default.createFile(atPath: logPath, contents: nil)
        let log = try FileHandle(forWritingTo: URL(fileURLWithPath: logPath))
        defer { try? log.close() }
        process.executableURL = URL(fileURLWithPath: MetricsPrometheusTests.binary)
        process.arguments = [
            "--config.file=\(config)", "--storage.tsdb.path=\(scratch.file("prometheus/data"))",
            "--web.listen-address=127.0.0.1:\(port)", "--log.level=warn",
        ]
        process.standardInput = FileHandle.nullDevice
        process.standardOutput = log
        process.standardError = log
        try process.run()
    }

    deinit { stop() }

    /// Kills Prometheus (if it still runs) and reaps it.
    func stop() {
        if process.isRunning {
            kill(process.processIdentifier, SIGKILL)
            process.waitUntilExit()
        }
    }

    var log: String { (try? String(contentsOfFile: logPath, encoding: .utf8)) ?? "" }

    /// The instant vector `expression` evaluates to now.
    func query(_ expression: String) throws -> [Sample] {
        var allowed = CharacterSet.alphanumerics
        allowed.insert(charactersIn: "-._~")
        let encoded = try #require(expression.addingPercentEncoding(withAllowedCharacters: allowed))
        let answer = try MetricsEndpoint.request("GET", "/api/v1/query?query=\(encoded)", port: port)
        try #require(answer.status == 200, "\(expression): \(answer)")
        let object = try #require(try JSONSerialization.jsonObject(with: Data(answer.body.utf8)) as? [String: Any])
        try #require(object["status"] as? String == "success", "\(object)")
        let data = try #require(object["data"] as? [String: Any])
        let result = try #require(data["result"] as? [[String: Any]])
        return try result.map { item in
            let labels = try #require(item["metric"] as? [String: String])
            let pair = try #require(item["value"] as? [Any])
            let value = try #require((pair.last as? String).flatMap(Double.init), "\(item)")
            return Sample(labels: labels, value: value)
        }
    }

    /// A loopback port nobody listens on now (bound, read, closed).
    static func freePort() throws -> Int {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        defer { close(fd) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = 0
        inet_pton(AF_INET, "127.0.0.1", &address.sin_addr)
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                bind(fd, $0, length) == 0 && getsockname(fd, $0, &length) == 0
            }
        }
        try #require(bound, "no free port: errno \(errno)")
        return Int(UInt16(bigEndian: address.sin_port))
    }
}
