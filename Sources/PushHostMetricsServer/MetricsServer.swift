import NIOCore
import NIOHTTP1
import NIOPosix

#if canImport(Glibc)
import Glibc
#endif

/// The HTTP endpoint of `--metrics`: `GET /metrics` answers what `metrics`
/// renders (the Prometheus text format), `GET /healthz` 200 or 503 with
/// the one-line reason `health` gives. It runs on an event loop thread of
/// its own, never on the dispatch thread, and holds nothing of the host:
/// both answers are built by the closures, on that thread.
///
/// Anybody who reaches the port is a stranger: a request gets one answer
/// and is read no further (a body is dropped unread, and NIO's parser
/// bounds the head), a connection idle for `idleTimeout` is closed, and
/// at most `maxConnections` are open at once (the next ones are closed at
/// once).
public final class MetricsServer: Sendable {
    /// What `/healthz` says: whether the host is healthy, and why (not).
    public struct Health: Sendable {
        public let healthy: Bool
        public let reason: String

        public init(healthy: Bool, reason: String) {
            self.healthy = healthy
            self.reason = reason
        }
    }

    private let group: MultiThreadedEventLoopGroup
    private let channel: any Channel

    /// `HOST:PORT` as bound (the port the kernel chose, for port 0).
    public let address: String

    /// Binds `host`:`port` and serves from then on.
    ///
    /// - Throws: `MetricsServer.Failure` naming the address and why it could not be bound.
    public init(
        host: String, port: Int, maxConnections: Int = 64, idleTimeout: TimeAmount = .seconds(30),
        metrics: @escaping @Sendable () -> [UInt8], health: @escaping @Sendable () -> Health
    ) throws(Failure) {
        let group = MultiThreadedEventLoopGroup(numberOfThreads: 1)
        let open = OpenConnections(limit: maxConnections)
        let bootstrap = ServerBootstrap(group: group)
            .serverChannelOption(.backlog, value: 64)
            .serverChannelOption(.socketOption(.so_reuseaddr), value: 1)
            .childChannelInitializer { channel in
                guard open.admit() else { return channel.close() }
                channel.closeFuture.whenComplete { _ in open.leave() }
                return channel.eventLoop.makeCompletedFuture {
                    try channel.pipeline.syncOperations.configureHTTPServerPipeline(withErrorHandling: true)
                    try channel.pipeline.syncOperations.addHandler(IdleStateHandler(allTimeout: idleTimeout))
                    try channel.pipeline.syncOperations.addHandler(MetricsResponder(metrics: metrics, health: health))
                }
            }
        // An IPv6 address in brackets, as a URL writes it.
        let shown = host.contains(":") ? "[\(host)]" : host
        do {
            channel = try bootstrap.bind(host: host, port: port).wait()
        } catch let error as IOError {
            try? group.syncShutdownGracefully()
            throw Failure(address: "\(shown):\(port)", reason: String(cString: strerror(error.errnoCode)))
        } catch {
            try? group.syncShutdownGracefully()
            throw Failure(address: "\(shown):\(port)", reason: "\(error)")
        }
        self.group = group
        address = "\(shown):\(channel.localAddress?.port ?? port)"
    }

    /// Closes the port and ends its thread.
    public func close() {
        try? channel.close().wait()
        try? group.syncShutdownGracefully()
    }

    /// Why the address could not be bound.
    public struct Failure: Error, CustomStringConvertible {
        public let address: String
        public let reason: String

        public var description: String { "--metrics \(address): \(reason)" }
    }
}

/// How many connections are open, against a limit; from the event loop thread only.
private final class OpenConnections: @unchecked Sendable {
    private let limit: Int
    private var count = 0

    init(limit: Int) {
        self.limit = limit
    }

    func admit() -> Bool {
        guard count < limit else { return false }
        count += 1
        return true
    }

    func leave() {
        count -= 1
    }
}
