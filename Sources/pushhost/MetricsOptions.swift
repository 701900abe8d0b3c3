import ArgumentParser
import Logging
import PushHostCore
import PushHostMetricsServer
import PushHostSystem

#if canImport(Glibc)
import Glibc
import PushHostPipeline
#endif

/// `--metrics HOST:PORT`: Prometheus metrics at `/metrics` and the host's
/// health at `/healthz` (docs/running.md, metrics and health).
struct MetricsOptions: ParsableArguments {
    @Option(help: ArgumentHelp(
        "Serve Prometheus metrics at http://HOST:PORT/metrics and health at /healthz (default: $PUSHHOST_METRICS, else off); [::1]:PORT for IPv6.",
        valueName: "HOST:PORT"))
    var metrics: String?

    /// The address asked for: the flag, else `PUSHHOST_METRICS` (empty is off).
    private var address: String? {
        if let metrics { return metrics }
        guard let value = getenv("PUSHHOST_METRICS"), value.pointee != 0 else { return nil }
        return String(cString: value)
    }

    /// Starts serving when asked to: the metrics the host counts into, and
    /// the server to close at the end; nil when off.
    ///
    /// - Throws: `SetupError` naming the address when it is not `HOST:PORT`
    ///   or cannot be bound (a port in use, a host that is not this machine's).
    func start(logger: Logger) throws(SetupError) -> (HostMetrics, MetricsServer)? {
        guard let address else { return nil }
        let (host, port) = try Self.split(address)
        let metrics = HostMetrics()
        let server: MetricsServer
        do {
            server = try MetricsServer(
                host: host, port: port, metrics: { metrics.render() },
                health: {
                    let health = metrics.health.current
                    return MetricsServer.Health(healthy: health.healthy, reason: health.reason)
                })
        } catch {
            throw SetupError("\(error)")
        }
        logger.info("serving metrics at http://\(server.address)/metrics and health at /healthz")
        return (metrics, server)
    }

    /// `HOST:PORT` (`[V6]:PORT` for an IPv6 address) as its two parts.
    static func split(_ address: String) throws(SetupError) -> (host: String, port: Int) {
        let problem = SetupError("--metrics \(address): not HOST:PORT (127.0.0.1:9469, [::1]:9469, localhost:9469)")
        guard let colon = address.lastIndex(of: ":"), let port = Int(address[address.index(after: colon)...]), (0...65535).contains(port) else {
            throw problem
        }
        var host = String(address[..<colon])
        if host.hasPrefix("[") && host.hasSuffix("]") {
            host = String(host.dropFirst().dropLast())
        } else if host.contains(":") {
            throw problem
        }
        guard !host.isEmpty, !host.contains(where: { $0.isWhitespace || $0 == "/" || $0 == "[" || $0 == "]" }) else { throw problem }
        return (host, port)
    }
}
