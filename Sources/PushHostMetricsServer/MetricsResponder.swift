import NIOCore
import NIOHTTP1

/// Answers one connection's requests: `GET` (or `HEAD`) `/metrics` and
/// `/healthz`; 404 for any other path, 405 for any other method. A query
/// string is ignored. An idle connection is closed, and so is one whose
/// request could not be parsed, after its 400.
final class MetricsResponder: ChannelInboundHandler, RemovableChannelHandler {
    typealias InboundIn = HTTPServerRequestPart
    typealias OutboundOut = HTTPServerResponsePart

    private let metrics: @Sendable () -> [UInt8]
    private let health: @Sendable () -> MetricsServer.Health
    /// The head of the request being read, until its end.
    private var head: HTTPRequestHead?

    init(metrics: @escaping @Sendable () -> [UInt8], health: @escaping @Sendable () -> MetricsServer.Health) {
        self.metrics = metrics
        self.health = health
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        switch unwrapInboundIn(data) {
        case .head(let request): head = request
        case .body: break  // Nothing here takes a body; it is dropped as it comes.
        case .end:
            guard let request = head else { return }
            head = nil
            respond(to: request, context: context)
        }
    }

    /// A request NIO's parser refused: its handler answered 400 with
    /// `Connection: close`, and the connection closes, as it said.
    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        context.close(promise: nil)
    }

    func userInboundEventTriggered(context: ChannelHandlerContext, event: Any) {
        if event is IdleStateHandler.IdleStateEvent {
            context.close(promise: nil)
        } else {
            context.fireUserInboundEventTriggered(event)
        }
    }

    private func respond(to request: HTTPRequestHead, context: ChannelHandlerContext) {
        let path = request.uri.split(separator: "?", maxSplits: 1, omittingEmptySubsequences: false).first ?? ""
        let (status, type, body): (HTTPResponseStatus, String, [UInt8])
        switch (request.method, path) {
        case (.GET, "/metrics"), (.HEAD, "/metrics"):
            (status, type, body) = (.ok, "text/plain; version=0.0.4; charset=utf-8", metrics())
        case (.GET, "/healthz"), (.HEAD, "/healthz"):
            let health = health()
            (status, type, body) = (health.healthy ? .ok : .serviceUnavailable, "text/plain; charset=utf-8", Array((health.reason + "\n").utf8))
        case (_, "/metrics"), (_, "/healthz"):
            (status, type, body) = (.methodNotAllowed, "text/plain; charset=utf-8", Array("only GET and HEAD\n".utf8))
        default:
            (status, type, body) = (.notFound, "text/plain; charset=utf-8", Array("not found: /metrics and /healthz are served\n".utf8))
        }
        var headers = HTTPHeaders()
        headers.add(name: "Content-Type", value: type)
        headers.add(name: "Content-Length", value: "\(body.count)")
        headers.add(name: "Cache-Control", value: "no-store")
        let keepAlive = request.isKeepAlive
        if !keepAlive { headers.add(name: "Connection", value: "close") }
        context.write(wrapOutboundOut(.head(HTTPResponseHead(version: request.version, status: status, headers: headers))), promise: nil)
        if request.method != .HEAD {
            context.write(wrapOutboundOut(.body(.byteBuffer(context.channel.allocator.buffer(bytes: body)))), promise: nil)
        }
        let written = context.writeAndFlush(wrapOutboundOut(.end(nil)))
        if !keepAlive {
            written.assumeIsolated().whenComplete { _ in context.close(promise: nil) }
        }
    }
}
