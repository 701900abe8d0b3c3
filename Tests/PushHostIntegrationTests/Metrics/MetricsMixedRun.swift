import Foundation
import Testing

/// A watching host with `--metrics` that has been through a known mix of
/// records, still running so that a test can scrape it: a data plugin
/// (`gate`, a probe deciding by `data.verdict`), an isolated background
/// plugin (`crasher`, the worker plugin, which raises SIGSEGV on
/// `data.fault`), and a screen (`s1`, for target `a`, not visible) with
/// `on_action`.
///
/// Standard input: a token, messages that are delivered, suppressed,
/// failed by the data plugin, failed by the crash, a line that is not
/// JSON, and an action on a delivered message for the hidden screen (so
/// retained). The spool (`--spool-events off`): a message, and a forged
/// token event, which is rejected.
struct MetricsMixedRun {
    let scratch: Scratch
    let host: MetricsHost
    /// Every report line, each parsed, once all were written.
    let report: [[String: Any]]

    static let stdin = [
        #"{"pushhost":"token","token":"device-token-1"}"#,
        #"{"message_id":"m1","data":{}}"#,
        #"{"message_id":"m2","data":{"verdict":"suppress"}}"#,
        #"{"message_id":"m3","data":{"verdict":"failed"}}"#,
        "this is not JSON",
        #"{"message_id":"m4","data":{"fault":"segv"}}"#,
        #"{"message_id":"m5","data":{}}"#,
        #"{"message_id":"m6","notification":{"title":"Printer jammed","actions":[{"id":"open","title":"Open"}]},"data":{"rx_gcm_key_target":"a"}}"#,
        #"{"pushhost":"action","id":"m6","action":"open"}"#,
    ]

    static let spool = [
        ("spooled.json", #"{"message_id":"sp1","data":{}}"#),
        ("forged.json", #"{"pushhost":"token","token":"forged-token"}"#),
    ]

    /// Starts the host (with `arguments` added), feeds the mix and waits
    /// until the report holds a line for each record.
    static func start(_ arguments: [String] = []) throws -> MetricsMixedRun {
        let scratch = try Scratch()
        let plugins = try scratch.probe("gate", [.data])
            + scratch.worker("crasher", [.background])
            + scratch.probe("s1", [.foreground, .action], targets: ["a"])
        let host = try MetricsHost(scratch, plugins + ["--isolate", "crasher", "--spool-events", "off"] + arguments)
        host.feed(stdin)
        for (name, contents) in spool { try scratch.spool.drop(name, contents + "\n") }
        let expected = stdin.count + spool.count
        let complete = try eventually(timeout: .seconds(30)) { try scratch.reportLines().count >= expected }
        try #require(complete, "the report never held \(expected) lines:\n\(scratch.read("report.ndjson"))\n\(host.stderr)")
        let report = try scratch.reportLines()
        try #require(report.count == expected, "\(report)")
        return MetricsMixedRun(scratch: scratch, host: host, report: report)
    }

    // MARK: What the report says

    static let sources = ["stdin", "spool", "plugin"]
    static let statuses = ["delivered", "suppressed", "undelivered", "failed", "rejected", "skipped", "expired"]
    static let eventKinds = ["token", "foreground", "background"]
    static let eventStatuses = ["applied", "stored", "unchanged", "removed", "failed"]
    static let actionStatuses = ["delivered", "retained", "undelivered", "expired", "rejected", "failed"]
    static let routes = ["background", "target", "mismatch", "none"]

    /// The lines of actions.
    var actionLines: [[String: Any]] { report.filter { $0["event"] as? String == "action" } }

    /// The lines of host events that were applied (a rejected one is a record's line).
    var eventLines: [[String: Any]] {
        report.filter { line in
            guard let event = line["event"] as? String, Self.eventKinds.contains(event) else { return false }
            return line["status"] as? String != "rejected"
        }
    }

    /// The lines of messages and of the other records (rejected lines among them).
    var recordLines: [[String: Any]] {
        report.filter { line in
            guard let event = line["event"] as? String else { return true }
            return event != "action" && (!Self.eventKinds.contains(event) || line["status"] as? String == "rejected")
        }
    }

    /// The lines of messages: records that were dispatched (not rejected).
    var messageLines: [[String: Any]] {
        recordLines.filter { $0["id"] != nil && $0["route"] != nil && $0["status"] as? String != "rejected" }
    }

    /// How many record lines came from `source` with `status`.
    func records(_ source: String, _ status: String) -> Int {
        recordLines.filter { ($0["source"] as? [String: Any])?["kind"] as? String == source && $0["status"] as? String == status }.count
    }

    /// The data verdicts `plugin` gave, by the report's data items.
    func verdicts(of plugin: String, _ verdict: String) -> Int {
        report.flatMap { ($0["data"] as? [[String: Any]]) ?? [] }
            .filter { $0["plugin"] as? String == plugin && $0["verdict"] as? String == verdict }.count
    }

    /// The lines whose data stage called `plugin`.
    func reached(_ plugin: String) -> Int {
        report.filter { (($0["data"] as? [[String: Any]]) ?? []).contains { $0["plugin"] as? String == plugin } }.count
    }
}
