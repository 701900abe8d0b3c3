import Foundation
import Testing

/// What a reload tells a service manager and a scraper: `RELOADING=1` with
/// `MONOTONIC_USEC=` when it begins and `READY=1` when it ends, either way;
/// `pushhost_reloads_total{result}` and each plugin's generation; and
/// `/healthz` at 200 all through a reload that waits for a pending verdict.
@Suite struct ReloadServiceTests {
    @Test func aReloadSaysReloadingThenReady() throws {
        let scratch = try Scratch()
        let folder = try PluginFolder(scratch)
        try scratch.spool.create()
        try folder.install("one", version: "1")
        let manager = try NotifyListener()
        let host = try scratch.startWatching(["--plugins", folder.path], environment: manager.environment())
        #expect(manager.waitFor { $0.contains { $0.has("READY=1") } }, "\(manager.texts)\n\(host.stderr)")

        try folder.install("one", version: "2")
        let before = Self.monotonicMicroseconds()
        host.send(SIGHUP)
        #expect(manager.waitFor { $0.filter { $0.has("READY=1") }.count == 2 }, "\(manager.texts)\n\(host.stderr)")
        // A refused one says the same.
        try folder.install("one", version: "3", defines: ["FAIL_CREATE"])
        host.send(SIGHUP)
        #expect(manager.waitFor { $0.filter { $0.has("READY=1") }.count == 3 }, "\(manager.texts)\n\(host.stderr)")
        #expect(host.stop() == .status(0), "\(host.stderr)")
        manager.drain()

        let texts = manager.texts
        let reloading = texts.enumerated().filter { $0.element.has("RELOADING=1") }.map(\.offset)
        let ready = texts.enumerated().filter { $0.element.has("READY=1") }.map(\.offset)
        #expect(reloading.count == 2, "\(texts)")
        #expect(ready.count == 3, "\(texts)")
        guard reloading.count == 2, ready.count == 3 else { return }
        #expect(ready[0] < reloading[0] && reloading[0] < ready[1] && ready[1] < reloading[1] && reloading[1] < ready[2], "\(texts)")
        for index in reloading {
            let text = texts[index]
            let stamp = text.split(separator: "\n").first { $0.hasPrefix("MONOTONIC_USEC=") }.flatMap { UInt64($0.dropFirst("MONOTONIC_USEC=".count)) }
            let when = try #require(stamp, "no MONOTONIC_USEC in \(text)")
            #expect(when >= before, "\(when) is before the signal (\(before))")
            #expect(text.status?.hasPrefix("reloading") == true, "\(text)")
        }
        #expect(texts[ready[1]].status?.hasPrefix("dispatching: 1 plugin") == true, "\(texts[ready[1]])")
        #expect(!texts.contains { $0.has("STOPPING=1") && texts.firstIndex(of: $0)! < ready[2] }, "\(texts)")
    }

    @Test func aReloadIsCountedAndTheHostStaysHealthy() throws {
        let scratch = try Scratch()
        let folder = try PluginFolder(scratch)
        try folder.install("one", version: "1", settings: ["pending_ms": "800"])
        let host = try MetricsHost(scratch, ["--plugins", folder.path])
        var metrics = try host.scrape()
        #expect(metrics["pushhost_reloads_total", ["result": "ok"]] == 0)
        #expect(metrics["pushhost_reloads_total", ["result": "refused"]] == 0)
        #expect(metrics["pushhost_plugin_generation", ["plugin": "one"]] == 0)

        try scratch.spool.drop("slow", #"{"message_id":"slow","data":{}}"#)
        usleep(100_000)
        try folder.install("one", version: "2")
        try folder.install("two", version: "1")
        host.process.send(SIGHUP)
        var answers: [MetricsEndpoint.Answer] = []
        let reloaded = eventually(timeout: .seconds(20), every: .milliseconds(20)) {
            if let answer = try? host.health() { answers.append(answer) }
            return host.process.stderr.contains("reloaded:")
        }
        #expect(reloaded, "\(host.stderr)")
        #expect(answers.count > 5, "\(answers.count) answers during the reload")
        #expect(answers.allSatisfy { $0.status == 200 }, "\(answers.filter { $0.status != 200 })")

        try folder.install("two", version: "2", defines: ["FAIL_CREATE"])
        host.process.send(SIGHUP)
        #expect(host.process.waitForStderr("reload refused"), "\(host.stderr)")
        metrics = try host.scrape()
        #expect(metrics["pushhost_reloads_total", ["result": "ok"]] == 1, "\(metrics)")
        #expect(metrics["pushhost_reloads_total", ["result": "refused"]] == 1, "\(metrics)")
        #expect(metrics["pushhost_plugin_generation", ["plugin": "one"]] == 1, "\(metrics)")
        #expect(metrics["pushhost_plugin_generation", ["plugin": "two"]] == 1, "\(metrics)")
        // The handlers' durations of one go on across its instances.
        #expect((metrics["pushhost_handler_duration_seconds_count", ["plugin": "one", "handler": "on_data"]] ?? 0) >= 1, "\(metrics)")
        #expect(try host.health().status == 200)
        #expect(host.process.stop() == .status(0), "\(host.stderr)")
    }

    /// CLOCK_MONOTONIC in microseconds, as `MONOTONIC_USEC=` counts it.
    static func monotonicMicroseconds() -> UInt64 {
        var now = timespec()
        clock_gettime(CLOCK_MONOTONIC, &now)
        return UInt64(now.tv_sec) * 1_000_000 + UInt64(now.tv_nsec) / 1000
    }
}
