import Foundation
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// Servers that are down, fail, redirect or stall: the plugin only waits
/// (longer each time, within its bounds) and connects again; and a stop
/// ends it promptly whatever it is doing.
@Suite struct ReconnectTests {
    /// The waits the plugin logged ("connecting again in X s"), in order.
    static func waits(_ stderr: String) -> [Double] {
        stderr.components(separatedBy: "connecting again in ").dropFirst().compactMap { Double($0.prefix { $0 != " " }) }
    }

    /// Each wait is between half and all of min × 2ⁿ, capped at max (the
    /// log rounds to hundredths).
    static func followBackoff(_ waits: [Double], min: Double, max: Double) -> Bool {
        waits.enumerated().allSatisfy { step, wait in
            let ceiling = Swift.min(max, min * Double(1 << Swift.min(step, 40)))
            return wait >= ceiling / 2 - 0.006 && wait <= ceiling + 0.006
        }
    }

    /// A server that is down at first: connects are refused, each wait
    /// longer than the last, then the server comes up and messages arrive.
    @Test func aServerThatIsDownAtFirstIsWaitedFor() throws {
        let scratch = try Scratch()
        let port = try freePort()
        let host = try Host(scratch, ["url": "http://127.0.0.1:\(port)", "topic": "alerts", "backoff_min": "0.1", "backoff_max": "0.8"], flaky: true)
        try #require(host.waitForLog("connecting again in", count: 5), "\(host.stderr)")
        let waits = Self.waits(host.stderr)
        #expect(Self.followBackoff(waits, min: 0.1, max: 0.8), "\(waits)")
        #expect(Array(waits.prefix(4)) == waits.prefix(4).sorted(), "\(waits)")
        #expect(host.stderr.contains("warning ntfy: GET http://127.0.0.1:\(port)/alerts/json: cannot connect"), "\(host.stderr)")
        #expect(host.stderr.contains("Connection refused"), "\(host.stderr)")

        let server = try NtfyServer(scratch, port: port)
        try #require(eventually { server.subscribers("alerts") == 1 }, "\(host.stderr)")
        let message = try server.publish("alerts", title: "finally")
        try #require(host.waitFor(message), "\(host.stderr)")
        #expect(host.stop() == 0, "\(host.stderr)")
        #expect(host.ids == [message])
    }

    /// Error answers only make it wait, longer each time, then a success
    /// delivers; nothing of an error's body is submitted.
    @Test func errorAnswersOnlyMakeItBackOff() throws {
        let scratch = try Scratch()
        let server = try NtfyServer(scratch)
        try server.post("fail", ["count": 6, "status": 500])
        let host = try Host(scratch, StreamTests.quick(server, ["backoff_min": "0.05", "backoff_max": "0.4"]), flaky: true)
        try #require(eventually { server.subscribers("alerts") == 1 || !host.process.isRunning }, "\(host.stderr)")
        let message = try server.publish("alerts", title: "after the errors")
        try #require(host.waitFor(message), "\(host.stderr)")
        #expect(host.stop() == 0, "\(host.stderr)")
        #expect(try server.requests().map(\.status) == [500, 500, 500, 500, 500, 500, 200])
        #expect(host.stderr.components(separatedBy: "the server answered 500 Internal Server Error; connecting again in").count == 7, "\(host.stderr)")
        let waits = Self.waits(host.stderr)
        #expect(waits.count == 6 && Self.followBackoff(waits, min: 0.05, max: 0.4), "\(waits)")
        #expect(host.ids == [message])
        #expect(host.report.first?["ntfy_event"] as? String == "open", "an error's body was submitted: \(host.report)")
    }

    /// A redirect, even to a server that would stream, is not followed:
    /// the other server hears nothing, and the plugin waits and asks again.
    @Test func aRedirectIsNotFollowed() throws {
        let scratch = try Scratch()
        let server = try NtfyServer(scratch)
        let other = try NtfyServer(scratch)
        let elsewhere = try other.publish("alerts", title: "from elsewhere")
        try server.post("fail", ["count": 2, "status": 302, "location": "http://localhost:\(other.port)/alerts/json?since=all"])
        let host = try Host(scratch, StreamTests.quick(server), flaky: true)
        try #require(eventually { server.subscribers("alerts") == 1 || !host.process.isRunning }, "\(host.stderr)")
        let message = try server.publish("alerts", title: "here")
        try #require(host.waitFor(message), "\(host.stderr)")
        #expect(host.stop() == 0, "\(host.stderr)")
        #expect(try other.requests().isEmpty)
        #expect(try server.requests().map(\.status) == [302, 302, 200])
        #expect(host.stderr.contains("the server answered 302 Found (redirects are not followed); connecting again in"), "\(host.stderr)")
        #expect(host.ids == [message])
        #expect(!host.ids.contains(elsewhere))
    }

    /// A stream that sends nothing for idle_timeout is ended and resumed
    /// from the last message.
    @Test func aStalledStreamIsEndedAfterTheIdleTimeout() throws {
        let scratch = try Scratch()
        let server = try NtfyServer(scratch, keepalive: 0.2)
        let host = try StreamTests.follow(scratch, server, StreamTests.quick(server, ["idle_timeout": "1.5"]))
        let first = try server.publish("alerts", title: "one")
        try #require(host.waitFor(first), "\(host.stderr)")
        let started = ContinuousClock.now
        try server.post("stall", ["topic": "alerts"])
        try #require(host.waitForLog("nothing read for idle_timeout"), "\(host.stderr)")
        let waited = ContinuousClock.now - started
        try #require(eventually { server.subscribers("alerts") == 2 }, "\(host.stderr)")
        let second = try server.publish("alerts", title: "two")
        try #require(host.waitFor(second), "\(host.stderr)")
        #expect(host.stop() == 0, "\(host.stderr)")
        #expect(waited >= .seconds(1.4) && waited < .seconds(10), "\(waited)")
        #expect(try server.requests().last?.since == first)
        #expect(host.ids == [first, second])
    }

    enum Moment: String, CaseIterable {
        /// Connected, waiting for the next line.
        case connected
        /// Waiting before the next connect (a long backoff).
        case waiting
        /// Connected to a server that sends nothing at all.
        case stalled
    }

    /// SIGTERM or SIGINT, whatever the plugin is doing: `run` returns at
    /// once (its request cancelled) and the host exits 0.
    @Test(arguments: Moment.allCases, [SIGTERM, SIGINT])
    func aStopEndsThePluginPromptly(moment: Moment, signal: Int32) throws {
        let scratch = try Scratch()
        let server = try NtfyServer(scratch, keepalive: 0.3)
        var settings = StreamTests.quick(server)
        if moment == .waiting {
            try server.post("fail", ["count": 1, "status": 503])
            settings["backoff_min"] = "60"
            settings["backoff_max"] = "60"
        }
        let host = try Host(scratch, settings, flaky: true)
        switch moment {
        case .connected, .stalled:
            try #require(eventually { server.subscribers("alerts") == 1 || !host.process.isRunning }, "\(host.stderr)")
            let message = try server.publish("alerts", title: "one")
            try #require(host.waitFor(message), "\(host.stderr)")
            if moment == .stalled { try server.post("stall", ["topic": "alerts"]) }
        case .waiting:
            try #require(host.waitForLog("connecting again in"), "\(host.stderr)")
        }
        let started = ContinuousClock.now
        let status = host.stop(signal, timeout: .seconds(15))
        let took = ContinuousClock.now - started
        #expect(status == 0, "\(host.stderr)")
        #expect(took < .seconds(3), "the host took \(took) to stop")
        #expect(!host.stderr.contains("error"), "\(host.stderr)")
    }
}
