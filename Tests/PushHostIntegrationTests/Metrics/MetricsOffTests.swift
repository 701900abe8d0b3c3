import Foundation
import Testing

/// Without `--metrics` (and without `PUSHHOST_METRICS`), nothing of it is
/// there: no listening socket, no log line. The same check finds the port
/// of a host that has `--metrics`, so it can see one.
@Suite struct MetricsOffTests {
    @Test func withoutTheFlagNoPortIsOpened() throws {
        let scratch = try Scratch()
        try scratch.spool.create()
        var environment = ProcessInfo.processInfo.environment
        environment["PUSHHOST_METRICS"] = nil
        let host = try HostProcess(
            ["run", "--state", scratch.file("state"), "--report", scratch.file("report.ndjson"), "--watch", scratch.spool.path]
                + (try scratch.probe("bg", [.background])),
            errorPath: scratch.file("stderr.log"), environment: environment, inheriting: false)
        #expect(host.waitForStderr("info pushhost: watching"), "\(host.stderr)")
        try scratch.spool.drop("m1.json", ndjson(#"{"message_id":"m1","data":{}}"#))
        #expect(try eventually(timeout: .seconds(10)) { try scratch.reportLines().count == 1 }, "\(host.stderr)")
        #expect(MetricsEndpoint.listeningPorts(of: host.pid).isEmpty)
        #expect(host.stop() == .status(0), "\(host.stderr)")
        #expect(!host.stderr.contains("serving metrics"), "\(host.stderr)")
    }

    @Test func withTheFlagItsPortIsSeen() throws {
        let scratch = try Scratch()
        let host = try MetricsHost(scratch, try scratch.probe("bg", [.background]))
        #expect(MetricsEndpoint.listeningPorts(of: host.process.pid) == [host.port])
        #expect(host.process.stop() == .status(0), "\(host.stderr)")
    }
}

/// The port is the host's alone: a worker of an isolated plugin does not
/// hold it (no inherited listening socket).
@Suite struct MetricsWorkerPortTests {
    @Test func aWorkerHoldsNoListeningSocket() throws {
        let scratch = try Scratch()
        let host = try MetricsHost(scratch, try scratch.worker("iso", [.background]) + ["--isolate", "iso"])
        host.feed([#"{"message_id":"m1","data":{}}"#])
        #expect(try eventually(timeout: .seconds(20)) { try scratch.reportLines().count == 1 }, "\(host.stderr)")
        let workers = Self.children(of: host.process.pid)
        try #require(!workers.isEmpty, "no worker process")
        for worker in workers {
            #expect(MetricsEndpoint.listeningPorts(of: worker).isEmpty, "worker \(worker)")
        }
        #expect(MetricsEndpoint.listeningPorts(of: host.process.pid) == [host.port])
        #expect(host.process.stop() == .status(0), "\(host.stderr)")
    }

    /// The processes whose parent is `pid`.
    static func children(of pid: Int32) -> [Int32] {
        ((try? FileManager.default.contentsOfDirectory(atPath: "/proc")) ?? []).compactMap { name in
            guard let child = Int32(name),
                  let stat = try? String(contentsOfFile: "/proc/\(name)/stat", encoding: .utf8),
                  let close = stat.lastIndex(of: ")") else { return nil }
            let fields = stat[stat.index(after: close)...].split(separator: " ")
            return fields.count > 1 && Int32(fields[1]) == pid ? child : nil
        }
    }
}
