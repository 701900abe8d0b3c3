import Foundation
import Testing
#if canImport(Glibc)
import Glibc
#endif

/// `--metrics`: whoever reaches the port is a stranger. Other methods and
/// paths get 405 and 404 and nothing of the machine; a huge header, a
/// crowd of connections, or a client that stalls halfway costs the host
/// nothing: it goes on dispatching, and a scrape after them works.
@Suite struct MetricsHostileClientTests {
    /// A host with a background plugin, its standard input fed by the test.
    static func start(_ scratch: Scratch) throws -> MetricsHost {
        try MetricsHost(scratch, try scratch.probe("bg", [.background]))
    }

    /// Feeds message `id` and waits for its report line: whether it was delivered.
    static func delivers(_ id: String, through host: MetricsHost, _ scratch: Scratch) throws -> Bool {
        host.feed([#"{"message_id":"\#(id)","data":{}}"#])
        try eventually(timeout: .seconds(20)) { try scratch.reportLines().contains { $0["id"] as? String == id } }
        return try scratch.reportLines().first { $0["id"] as? String == id }?["status"] as? String == "delivered"
    }

    @Test func otherMethodsAndPathsGetNothing() throws {
        let scratch = try Scratch()
        let host = try Self.start(scratch)
        let post = try MetricsEndpoint.exchange(Array(
            "POST /metrics HTTP/1.1\r\nHost: x\r\nContent-Length: 9\r\nConnection: close\r\n\r\nkill=true".utf8), port: host.port)
        #expect(post?.status == 405, "\(String(describing: post))")
        for method in ["PUT", "DELETE", "OPTIONS", "TRACE"] {
            #expect(try MetricsEndpoint.request(method, "/healthz", port: host.port).status == 405, "\(method)")
        }
        for path in ["/../../etc/passwd", "/metrics%00", "/metrics/../../etc/passwd", "/%2e%2e/%2e%2e/etc/passwd", "/", "/metrics/"] {
            let answer = try MetricsEndpoint.request("GET", path, port: host.port)
            #expect(answer.status == 404, "\(path): \(answer)")
            #expect(!answer.body.contains("root:"), "\(path): \(answer)")
            #expect(!answer.body.contains("pushhost_"), "\(path): \(answer)")
        }
        // What is served is served to GET and HEAD alone, whatever the query.
        let get = try MetricsEndpoint.request("GET", "/metrics?name[]=../../etc/passwd", port: host.port)
        #expect(get.status == 200 && get.body.contains("pushhost_build_info"), "\(get)")
        let head = try MetricsEndpoint.request("HEAD", "/metrics", port: host.port)
        #expect(head.status == 200 && head.body.isEmpty, "\(head)")
        #expect(try host.scrape()["pushhost_report_write_failures_total"] == 0)
        #expect(try Self.delivers("after", through: host, scratch))
    }

    @Test func aRequestThatIsNotHTTPGetsABadRequest() throws {
        let scratch = try Scratch()
        let host = try Self.start(scratch)
        for garbage in ["GARBAGE\r\n\r\n", "GET /metrics HTTP/9.9\r\n\r\n", "\u{1}\u{2}\u{3}\r\n\r\n"] {
            let fd = try MetricsEndpoint.connect(port: host.port)
            defer { close(fd) }
            MetricsEndpoint.send(fd, Array(garbage.utf8))
            let bytes = try #require(MetricsEndpoint.readAnswer(fd), "\(garbage.debugDescription): neither answered nor closed")
            if let answer = try MetricsEndpoint.parse(bytes) {
                #expect(answer.status == 400, "\(garbage.debugDescription): \(answer)")
            }
        }
        #expect(try host.health().status == 200)
        #expect(try Self.delivers("after", through: host, scratch))
    }

    @Test func aHeaderOfAMebibyteIsRefusedAndCostsNothing() throws {
        let scratch = try Scratch()
        let host = try Self.start(scratch)
        let fd = try MetricsEndpoint.connect(port: host.port)
        defer { close(fd) }
        let request = Array("GET /metrics HTTP/1.1\r\nHost: x\r\nX-Filler: ".utf8) + [UInt8](repeating: UInt8(ascii: "a"), count: 1 << 20)
            + Array("\r\n\r\n".utf8)
        MetricsEndpoint.send(fd, request)  // The server may close before all of it is sent.
        let bytes = try #require(MetricsEndpoint.readAnswer(fd), "the connection was neither answered nor closed")
        if let answer = try MetricsEndpoint.parse(bytes) {
            #expect((400..<600).contains(answer.status), "\(answer.head)")
            #expect(!answer.body.contains("pushhost_"), "the metrics were served for it")
            if answer.head.lowercased().contains("connection: close") {
                // Closed as its answer said (Connection: close), not left open until idle.
                #expect(eventually(timeout: .seconds(5)) { MetricsEndpoint.isClosedByPeer(fd) })
            }
        }
        #expect(try Self.delivers("after", through: host, scratch))
        let metrics = try host.scrape()
        #expect(metrics["pushhost_records_total", ["source": "stdin", "status": "delivered"]] == 1, "\(metrics)")
    }

    @Test func aHundredConnectionsHeldAtOnceCostNothing() throws {
        let scratch = try Scratch()
        let host = try Self.start(scratch)
        var held: [Int32] = []
        defer { held.forEach { close($0) } }
        for _ in 0..<100 { held.append(try MetricsEndpoint.connect(port: host.port)) }
        // At most 64 are kept: the server closes the others at once.
        let trimmed = eventually(timeout: .seconds(10)) { held.filter(MetricsEndpoint.isClosedByPeer).count >= 36 }
        #expect(trimmed, "\(held.filter(MetricsEndpoint.isClosedByPeer).count) of 100 closed by the server")
        #expect(try Self.delivers("while-held", through: host, scratch))
        held.forEach { close($0) }
        held = []
        let scraped = eventually(timeout: .seconds(10)) { (try? host.scrape()) != nil }
        #expect(scraped, "no scrape after the crowd left")
        let metrics = try host.scrape()
        #expect(metrics["pushhost_records_total", ["source": "stdin", "status": "delivered"]] == 1, "\(metrics)")
        #expect(try host.health().status == 200)
    }

    @Test func aClientThatStallsHalfwayHoldsNobodyUp() throws {
        let scratch = try Scratch()
        let host = try Self.start(scratch)
        let stalled = try MetricsEndpoint.connect(port: host.port)
        defer { close(stalled) }
        MetricsEndpoint.send(stalled, Array("GET /metrics HTTP/1.1\r\nHost: x\r\nX-Half: ".utf8))
        let second = try MetricsEndpoint.connect(port: host.port)
        defer { close(second) }
        MetricsEndpoint.send(second, Array("GET /heal".utf8))
        for _ in 0..<3 {
            #expect(try host.health().status == 200)
            #expect(try host.scrape()["pushhost_report_write_failures_total"] == 0)
        }
        #expect(try Self.delivers("beside-the-stall", through: host, scratch))
        // The stalled one got nothing: its request never ended.
        #expect(!MetricsEndpoint.isClosedByPeer(stalled))
        var byte: UInt8 = 0
        let count = recv(stalled, &byte, 1, Int32(MSG_DONTWAIT))
        let code = errno
        #expect(count < 0 && (code == EAGAIN || code == EWOULDBLOCK), "\(count) \(code)")
    }
}
