import Foundation
import Testing
#if canImport(Glibc)
import Glibc
#endif

/// A host with `--metrics 127.0.0.1:0` (or `address`; nil for no flag, as
/// with `PUSHHOST_METRICS` in `environment`) watching the spool of its
/// scratch folder, its standard input a pipe the test writes to.
final class MetricsHost {
    let process: HostProcess
    /// The port it serves on, from its log.
    let port: Int
    private let input = Pipe()

    /// Starts `pushhost run --state state --report REPORT --watch spool
    /// --metrics ADDRESS ARGUMENTS` and waits until it watches the spool
    /// and said where it serves.
    init(
        _ scratch: Scratch, _ arguments: [String], report: String? = nil, address: String? = "127.0.0.1:0",
        environment: [String: String]? = nil
    ) throws {
        try scratch.spool.create()
        // Feeding a host that died must fail with EPIPE, not kill the tests.
        signal(SIGPIPE, SIG_IGN)
        process = try HostProcess(
            ["run", "--state", scratch.file("state"), "--report", report ?? scratch.file("report.ndjson"),
             "--watch", scratch.spool.path] + (address.map { ["--metrics", $0] } ?? []) + arguments,
            errorPath: scratch.file("stderr.log"), environment: environment, input: input)
        let watching = process.waitForStderr("info pushhost: watching \(scratch.spool.path)/new")
        try #require(watching, "the host never said it was watching:\n\(process.stderr)")
        port = try #require(MetricsEndpoint.port(inLog: process.stderr), "no port in:\n\(process.stderr)")
    }

    deinit {
        try? input.fileHandleForWriting.close()
    }

    /// Writes `lines` to the host's standard input, each ended by a newline.
    func feed(_ lines: [String]) {
        try? input.fileHandleForWriting.write(contentsOf: Data(lines.map { $0 + "\n" }.joined().utf8))
    }

    func scrape() throws -> MetricsText {
        try MetricsEndpoint.scrape(port: port)
    }

    func health() throws -> MetricsEndpoint.Answer {
        try MetricsEndpoint.health(port: port)
    }

    var stderr: String { process.stderr }
}
