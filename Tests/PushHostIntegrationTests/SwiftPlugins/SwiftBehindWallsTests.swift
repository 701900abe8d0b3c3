import Foundation
import Testing

/// Swift plugins behind the default walls (docs/running.md, walls): the
/// Swift runtime's thread pool reads its threads' `/proc/TID/stat` and ends
/// the process when it cannot, so a worker has a `/proc` of its own that
/// holds only its processes. For a minute under load, the Swift samples
/// (`inbox`, `orders`, `debounce`) and `pool`, which keeps the pool's queue
/// full across its checks and suspends, run isolated, each in its worker,
/// without a crash.
@Suite struct SwiftBehindWallsTests {
    @Test func swiftPluginsRunAMinuteUnderLoadWithoutACrash() throws {
        let package = try PluginPackage.shared()
        let scratch = try Scratch()
        try FileManager.default.createDirectory(atPath: scratch.file("inbox"), withIntermediateDirectories: true)
        let input = Pipe()
        let host = try HostProcess(
            ["run", "--state", scratch.file("state"), "--report", scratch.file("report.ndjson"), "--isolate", "all", "--sandbox", "on",
             "--plugin", Paths.sample("inbox"), "--plugin", Paths.sample("orders"), "--plugin", Paths.sample("debounce"),
             "--plugin", package.library("pool"),
             "--set", "inbox.path=\(scratch.file("inbox/inbox.tsv"))", "--set", "inbox.sandbox.write=\(scratch.file("inbox"))",
             "--log-level", "debug"],
            errorPath: scratch.file("stderr"), input: input)
        let started = ContinuousClock.now
        var sent = 0
        while ContinuousClock.now - started < .seconds(60) {
            let target = ["orders", "issues", nil][sent % 3]
            let line = gcm("m-\(sent)", target: target, data: ["title": "t\(sent)", "body": "b"]) + "\n"
            input.fileHandleForWriting.write(Data(line.utf8))
            sent += 1
            usleep(50_000)
        }
        try input.fileHandleForWriting.close()
        #expect(host.waitForExit(timeout: .seconds(60)) == .status(0), "\(host.stderr.suffix(3000))")
        let stderr = host.stderr
        #expect(!stderr.contains("crashed"), "\(stderr.suffix(3000))")
        for plugin in ["inbox", "orders", "debounce", "pool"] {
            #expect(stderr.contains("debug pushhost: plugin \(plugin): its worker's walls stand: own namespaces, "), "\(plugin): \(stderr.prefix(3000))")
        }
        let report = try scratch.reportLines()
        #expect(report.count == sent, "\(report.count) of \(sent)")
        let statuses = Set(report.compactMap { $0["status"] as? String })
        #expect(statuses.isSubset(of: ["delivered", "suppressed", "undelivered"]), "none failed: \(statuses)")
    }
}
