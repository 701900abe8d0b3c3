import Foundation
import Testing

/// `--metrics`: what `/metrics` counts agrees with the report. A running
/// host goes through a known mix (`MetricsMixedRun`); once the report holds
/// every line, each counter must equal the count of its lines, grouped by
/// the test from the report itself.
@Suite struct MetricsCountTests {
    typealias Run = MetricsMixedRun

    @Test func theCountersAgreeWithTheReport() throws {
        let run = try Run.start()
        let metrics = try run.host.scrape()
        #expect(metrics.duplicates.isEmpty, "\(metrics.duplicates)")

        // The mix is what it means to be (so that the comparisons below compare something).
        #expect(run.records("stdin", "delivered") == 3)
        #expect(run.records("stdin", "suppressed") == 1)
        #expect(run.records("stdin", "failed") == 2)
        #expect(run.records("stdin", "rejected") == 1)
        #expect(run.records("spool", "delivered") == 1)
        #expect(run.records("spool", "rejected") == 1)
        #expect(run.eventLines.count == 1)
        #expect(run.actionLines.map { $0["status"] as? String } == ["retained"])

        for source in Run.sources {
            for status in Run.statuses {
                let labels = ["source": source, "status": status]
                #expect(metrics["pushhost_records_total", labels] == Double(run.records(source, status)), "\(labels)")
            }
        }
        for kind in Run.eventKinds {
            for status in Run.eventStatuses {
                let expected = run.eventLines.filter { $0["event"] as? String == kind && $0["status"] as? String == status }.count
                #expect(metrics["pushhost_host_events_total", ["kind": kind, "status": status]] == Double(expected), "\(kind) \(status)")
            }
        }
        for status in Run.actionStatuses {
            let expected = run.actionLines.filter { $0["status"] as? String == status }.count
            #expect(metrics["pushhost_actions_total", ["status": status]] == Double(expected), "\(status)")
        }
        for route in Run.routes {
            let expected = run.messageLines.filter { $0["route"] as? String == route }.count
            #expect(metrics["pushhost_messages_routed_total", ["route": route]] == Double(expected), "\(route)")
        }
        // Every report line is counted once, in one of the three families.
        let counted = ["pushhost_records_total", "pushhost_host_events_total", "pushhost_actions_total"]
            .flatMap { metrics.all($0).values }.reduce(0, +)
        #expect(counted == Double(run.report.count))
    }

    @Test func theDataPluginsVerdictsAndCallsAgreeWithTheReport() throws {
        let run = try Run.start()
        let metrics = try run.host.scrape()
        for verdict in ["continue", "suppress", "failed"] {
            let expected = run.verdicts(of: "gate", verdict)
            #expect(expected > 0, "the mix has a \(verdict) verdict")
            #expect(metrics["pushhost_data_verdicts_total", ["plugin": "gate", "verdict": verdict]] == Double(expected), "\(verdict)")
        }
        // One on_data call per message that reached it, as the report and the probe's own log say.
        let calls = run.scratch.probeLines().filter { $0.name == "gate" && $0.event == "data" }.count
        #expect(calls == run.reached("gate"))
        #expect(calls == run.messageLines.count)
        let durations = ["plugin": "gate", "handler": "on_data"]
        #expect(metrics["pushhost_handler_duration_seconds_count", durations] == Double(calls))
        #expect(metrics["pushhost_handler_duration_seconds_bucket", durations.merging(["le": "+Inf"]) { $1 }] == Double(calls))
        // Nothing pending came: the pending histogram saw nothing.
        #expect(metrics["pushhost_data_pending_seconds_count", ["plugin": "gate"]] == 0)
    }

    @Test func theCrashOfAnIsolatedPluginIsCountedAndItsRestart() throws {
        let run = try Run.start()
        let metrics = try run.host.scrape()
        let crashed = run.report.filter { ($0["error"] as? String)?.contains("crasher crashed in on_background: SIGSEGV") == true }
        #expect(crashed.map { $0["id"] as? String } == ["m4"], "\(run.report)")
        #expect(metrics["pushhost_worker_crashes_total", ["plugin": "crasher", "signal": "SIGSEGV"]] == Double(crashed.count))
        #expect(metrics.all("pushhost_worker_crashes_total").values.reduce(0, +) == 1)
        // Each worker the plugin ran in wrote `create` first.
        let starts = run.scratch.workerLines("crasher").filter { $0.kind == "create" }.count
        #expect(starts == 2)
        #expect(metrics["pushhost_worker_starts_total", ["plugin": "crasher"]] == Double(starts))
        #expect(metrics["pushhost_worker_restarts_total", ["plugin": "crasher"]] == Double(starts - 1))
        #expect(metrics["pushhost_plugin_disabled", ["plugin": "crasher"]] == 0)
        // Its calls, as its log says, the crashing one included.
        let calls = run.scratch.workerCalls("crasher").filter { $0.kind == "on_background" }.count
        #expect(metrics["pushhost_handler_duration_seconds_count", ["plugin": "crasher", "handler": "on_background"]] == Double(calls))
        // The plugins in the host have no workers.
        #expect(metrics["pushhost_worker_starts_total", ["plugin": "gate"]] == nil)
    }

    @Test func theLevelsTheTokenAndTheBuildAreTold() throws {
        let run = try Run.start()
        // The levels are published at the end of each turn, just after the
        // turn's report lines are written: the one that took the action in
        // tells it retained, and nothing else under way.
        let retained = run.actionLines.filter { $0["status"] as? String == "retained" }.count
        #expect(retained == 1)
        let settled = try eventually(timeout: .seconds(10)) {
            let levels = try run.host.scrape()
            return levels["pushhost_retained_actions"] == Double(retained) && levels["pushhost_records_in_flight"] == 0
        }
        let metrics = try run.host.scrape()
        #expect(settled, "\(metrics)")
        for level in ["pushhost_messages_held", "pushhost_messages_pending", "pushhost_intake_queued_records", "pushhost_spool_new_files"] {
            #expect(metrics[level] == 0, "\(level)")
        }
        // A token is stored, so its age is told.
        let age = try #require(metrics["pushhost_token_age_seconds"], "\(metrics)")
        #expect(age >= 0)
        let version = try Command.pushhost(["--version"]).stdout.trimmingCharacters(in: .whitespacesAndNewlines)
        let info = metrics.all("pushhost_build_info")
        #expect(info.count == 1, "\(info)")
        #expect(info.first?.key["version"] == version, "\(info)")
        #expect(info.first?.key["abi"]?.isEmpty == false, "\(info)")
        #expect(info.first?.value == 1)
        // The report was written, never in vain.
        #expect((metrics["pushhost_report_writes_total"] ?? 0) >= 1)
        #expect(metrics["pushhost_report_write_failures_total"] == 0)
        #expect(metrics["pushhost_store_write_failures_total"] == 0)
    }
}
