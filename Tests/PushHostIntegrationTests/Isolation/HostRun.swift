import Foundation
import Testing

/// One `pushhost run` over standard input (read from a file) that a test
/// waited for, with the host's pid, which a worker's parent must be.
struct HostRun {
    let pid: Int32
    /// nil when the host still ran at the timeout (it is then killed).
    let exit: HostProcess.Exit?
    /// Standard error, without timestamps.
    let stderr: String
    /// The report lines, each parsed.
    let report: [[String: Any]]

    var stderrLines: [String] { stderr.split(separator: "\n").map(String.init) }

    /// The report line of message `id`.
    func line(_ id: String) -> [String: Any]? {
        report.first { $0["id"] as? String == id }
    }

    /// The `status` of each report line, in order.
    var statuses: [String?] { report.map { $0["status"] as? String } }

    /// The `id` (or `event`) of each report line, in order.
    var ids: [String?] { report.map { ($0["id"] as? String) ?? ($0["event"] as? String) } }
}

extension Scratch {
    /// Runs `pushhost run --state state --report report-TAG.ndjson ARGUMENTS`
    /// with `stdin` on standard input and standard error into
    /// `stderr-TAG.log`, and waits up to `timeout` for it to end; `environment`
    /// is added to the test's.
    func runHost(
        _ arguments: [String], stdin: String, tag: String = "1", environment: [String: String]? = nil, timeout: Duration = .seconds(40)
    ) throws -> HostRun {
        let input = try write("input-\(tag).ndjson", stdin)
        let handle = try #require(FileHandle(forReadingAtPath: input))
        defer { try? handle.close() }
        let report = "report-\(tag).ndjson"
        let host = try HostProcess(
            ["run", "--state", file("state"), "--report", file(report)] + arguments,
            errorPath: file("stderr-\(tag).log"), environment: environment, input: handle)
        let exit = host.waitForExit(timeout: timeout)
        return HostRun(pid: host.pid, exit: exit, stderr: host.stderr, report: try reportLines(report, lenient: true))
    }
}

/// `count` messages `PREFIX01`, `PREFIX02` ... with `data` (a JSON object's
/// members, without braces) each.
func messages(_ prefix: String, _ count: Int, data: String = "") -> [String] {
    (1...count).map { #"{"message_id":"\#(prefix)\#(String(format: "%02d", $0))","data":{\#(data)}}"# }
}

/// Lines of NDJSON from a list of records.
func ndjson(_ lines: [String]) -> String {
    lines.joined(separator: "\n") + "\n"
}
