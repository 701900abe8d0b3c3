import Foundation
import Testing

/// Inside a worker a plugin sees the same host ABI as in the host: the
/// message accessors, its settings, log, current_token, complete from
/// another thread, and the screen handlers.
@Suite struct IsolatedABITests {
    static let asks = "id,target,get:notification.title,get:data.colour,get:data.nothing,config:colour,config:size,config:missing,json,log:said in a worker"
    static let input = ndjson(
        #"{"message_id":"m1","notification":{"title":"Hello"},"data":{"rx_gcm_key_target":"a","colour":"red","ask":"\#(asks)"}}"#,
        #"{"message_id":"m2","data":{"colour":"blue","ask":"id,target,get:notification.title,get:data.colour"}}"#)

    /// Runs the input with the plugin isolated or not; its answers and standard error.
    static func answers(_ scratch: Scratch, isolated: Bool) throws -> (run: HostRun, m1: [String], m2: [String]) {
        let tag = isolated ? "isolated" : "inhost"
        let plugins = try scratch.worker([.data], settings: ["size": "XL", "log": scratch.file("\(tag).log")])
        let run = try scratch.runHost(plugins + (isolated ? ["--isolate", "all"] : []), stdin: input, tag: tag)
        return (run, scratch.workerAnswers("m1", log: "\(tag).log"), scratch.workerAnswers("m2", log: "\(tag).log"))
    }

    @Test func accessorsSettingsAndLogAnswerAsInTheHost() throws {
        let scratch = try Scratch()
        try scratch.write("worker.json", #"{"colour": "green", "size": "S"}"#)
        let isolated = try Self.answers(scratch, isolated: true)
        #expect(isolated.run.exit == .status(0), "\(isolated.run.stderr)")
        #expect(isolated.run.statuses == ["undelivered", "undelivered"], "\(isolated.run.stderr)")
        let calls = scratch.workerCalls(log: "isolated.log")
        #expect(calls.map(\.call) == ["on_data m1", "on_data m2"])
        #expect(calls.allSatisfy { $0.pid != isolated.run.pid && $0.ppid == isolated.run.pid }, "host \(isolated.run.pid): \(calls)")

        let json = try #require(isolated.m1.first { $0.hasPrefix("json=") }).dropFirst("json=".count)
        #expect(isolated.m1.filter { !$0.hasPrefix("json=") } == [
            "id=m1", "target=a", "get:notification.title=Hello", "get:data.colour=red", "get:data.nothing=NULL",
            "config:colour=green", "config:size=XL", "config:missing=NULL", "json_len=ok", "log=said in a worker",
        ])
        let message = try #require(try JSONSerialization.jsonObject(with: Data(json.utf8)) as? [String: Any], "\(json)")
        #expect(message["id"] as? String == "m1")
        #expect(message["target"] as? String == "a")
        #expect((message["notification"] as? [String: Any])?["title"] as? String == "Hello")
        #expect(isolated.m2 == ["id=m2", "target=NULL", "get:notification.title=NULL", "get:data.colour=blue"])
        #expect(isolated.run.stderrLines.filter { $0.contains("said in a worker") } == ["info worker: said in a worker"], "\(isolated.run.stderr)")

        // Word for word what the same plugin sees in the host.
        let inHost = try Self.answers(scratch, isolated: false)
        #expect(inHost.run.exit == .status(0), "\(inHost.run.stderr)")
        #expect(isolated.m1 == inHost.m1)
        #expect(isolated.m2 == inHost.m2)
        #expect(inHost.run.stderrLines.filter { $0.contains("said in a worker") } == ["info worker: said in a worker"])
    }

    @Test func tokenEventsReachTheWorkerAndCurrentTokenFollows() throws {
        let scratch = try Scratch()
        let token = #"{"pushhost":"token","token":"TOKEN"}"#
        let ask = #"{"message_id":"ID","data":{"ask":"token"}}"#
        let run = try scratch.runHost(try scratch.worker([.token, .data]) + ["--isolate", "all"], stdin: ndjson(
            ask.replacingOccurrences(of: "ID", with: "m0"),
            token.replacingOccurrences(of: "TOKEN", with: "T1"),
            ask.replacingOccurrences(of: "ID", with: "m1"),
            token.replacingOccurrences(of: "TOKEN", with: "T2"),
            token.replacingOccurrences(of: "TOKEN", with: "T2"),
            ask.replacingOccurrences(of: "ID", with: "m2")))
        #expect(run.exit == .status(0), "\(run.stderr)")
        #expect(run.statuses == ["undelivered", "stored", "undelivered", "stored", "unchanged", "undelivered"], "\(run.stderr)")
        let lines = scratch.workerLines()
        let tokens = lines.filter { $0.kind == "on_token" }
        #expect(tokens.map { "\($0.id) \($0.fields.last ?? "")" } == ["T1 -", "T2 T1"])
        #expect(scratch.workerAnswers("m0") == ["token=NULL"])
        #expect(scratch.workerAnswers("m1") == ["token=T1"])
        #expect(scratch.workerAnswers("m2") == ["token=T2"])
        let pids = Set(lines.compactMap(\.pid))
        #expect(pids.count == 1 && !pids.contains(run.pid), "one worker, not the host \(run.pid): \(lines)")
        #expect(lines.compactMap(\.ppid).allSatisfy { $0 == run.pid })
    }

    /// A crash in on_token fails that token event only; the token is stored
    /// all the same, so the next one has it as previous.
    @Test func aCrashInOnTokenFailsThatEventOnly() throws {
        let scratch = try Scratch()
        let run = try scratch.runHost(try scratch.worker([.token, .background]) + ["--isolate", "all"], stdin: ndjson(
            #"{"pushhost":"token","token":"T1"}"#, #"{"pushhost":"token","token":"segv"}"#,
            #"{"pushhost":"token","token":"T2"}"#, #"{"message_id":"m1","data":{"ask":"token"}}"#))
        #expect(run.exit == .status(0), "\(run.stderr)")
        #expect(run.statuses == ["stored", "failed", "stored", "delivered"], "\(run.report)")
        #expect(run.report[1]["error"] as? String == "plugin worker crashed in on_token: SIGSEGV")
        let tokens = scratch.workerCalls().filter { $0.kind == "on_token" }.map { "\($0.id) \($0.fields.last ?? "")" }
        #expect(tokens == ["T1 -", "segv T1", "T2 segv"])
        #expect(scratch.workerAnswers("m1") == ["token=T2"])
        #expect(scratch.workerLines().byProcess.count == 2, "\(scratch.workerLines())")
    }

    /// PH_PENDING, then complete from the plugin's own thread in the worker.
    @Test func completeFromAnotherThreadInTheWorker() throws {
        let scratch = try Scratch()
        let start = ContinuousClock.now
        let run = try scratch.runHost(try scratch.worker([.data, .background]) + ["--isolate", "all"], stdin: ndjson(
            #"{"message_id":"m1","data":{"fault":"later"}}"#,
            #"{"message_id":"m2","data":{"fault":"later"}}"#,
            #"{"message_id":"m3","data":{}}"#))
        #expect(ContinuousClock.now - start >= .milliseconds(50))
        #expect(run.exit == .status(0), "\(run.stderr)")
        #expect(run.statuses == ["delivered", "delivered", "delivered"], "\(run.stderr)")
        #expect(run.report.map { $0["data"] as? [[String: String]] } == Array(repeating: [["plugin": "worker", "verdict": "continue"]], count: 3))
        let lines = scratch.workerLines()
        for id in ["m1", "m2"] {
            let calls = lines.filter { $0.id == id }.map(\.call)
            #expect(calls == ["on_data \(id)", "complete \(id)", "on_background \(id)"], "\(lines)")
        }
        let pids = Set(lines.compactMap(\.pid))
        #expect(pids.count == 1 && !pids.contains(run.pid), "\(lines)")
        #expect(!run.stderr.contains("ignored"), "\(run.stderr)")
    }

    /// An isolated screen in the foreground gets on_target and on_mismatch;
    /// a crash in on_target fails that message only.
    @Test func anIsolatedScreenInTheForeground() throws {
        let scratch = try Scratch()
        let plugins = try scratch.worker([.foreground], targets: ["a"])
        let run = try scratch.runHost(plugins + ["--isolate", "all", "--foreground", "worker"], stdin: ndjson(
            #"{"message_id":"m1","data":{"rx_gcm_key_target":"a"}}"#,
            #"{"message_id":"m2","data":{"rx_gcm_key_target":"b"}}"#,
            #"{"message_id":"m3","data":{"rx_gcm_key_target":"a","fault":"segv"}}"#,
            #"{"message_id":"m4","data":{"rx_gcm_key_target":"b","fault":"segv"}}"#,
            #"{"message_id":"m5","data":{"rx_gcm_key_target":"a"}}"#))
        #expect(run.exit == .status(0), "\(run.stderr)")
        #expect(run.statuses == ["delivered", "delivered", "failed", "failed", "delivered"], "\(run.stderr)")
        #expect(run.report.map { $0["route"] as? String } == ["target", "mismatch", "target", "mismatch", "target"])
        #expect(run.line("m1")?["ui"] as? [String] == ["worker"])
        #expect(run.line("m2")?["ui"] as? [String] == ["worker"])
        #expect(run.line("m3")?["error"] as? String == "plugin worker crashed in on_target: SIGSEGV")
        #expect(run.line("m4")?["error"] as? String == "plugin worker crashed in on_mismatch: SIGSEGV")
        let calls = scratch.workerCalls()
        #expect(calls.map(\.call) == ["on_target m1", "on_mismatch m2", "on_target m3", "on_mismatch m4", "on_target m5"])
        #expect(calls.allSatisfy { $0.pid != run.pid && $0.ppid == run.pid })
        // Three workers: the first crashed at m3, the second at m4.
        #expect(scratch.workerLines().byProcess.map { $0.lines.filter(\.isCall).map(\.id) } == [["m1", "m2", "m3"], ["m4"], ["m5"]])
    }

    /// on_action in a worker gets the action and its input; a crash in it
    /// fails that action only.
    @Test func actionsReachAnIsolatedScreen() throws {
        let scratch = try Scratch()
        let plugins = try scratch.worker([.foreground, .action], targets: ["a"])
        let offered = #"[{"id":"open","title":"Open"},{"id":"segv","title":"Crash"},{"id":"reply","title":"Reply","input":true}]"#
        func action(_ name: String, _ input: String = "") -> String {
            #"{"pushhost":"action","id":"m1","action":"\#(name)"\#(input.isEmpty ? "" : #","input":"\#(input)""#)}"#
        }
        let run = try scratch.runHost(plugins + ["--isolate", "all", "--foreground", "worker"], stdin: ndjson(
            #"{"message_id":"m1","notification":{"title":"Jam","actions":\#(offered)},"data":{"rx_gcm_key_target":"a"}}"#,
            action("open"), action("segv"), action("reply", "on my way"), action("tap")))
        #expect(run.exit == .status(0), "\(run.stderr)")
        try #require(run.statuses == ["delivered", "delivered", "failed", "delivered", "delivered"], "\(run.report)")
        #expect(run.report[2]["error"] as? String == "plugin worker crashed in on_action: SIGSEGV")
        #expect(run.report[3]["ui"] as? [String] == ["worker"])
        let calls = scratch.workerCalls().map { $0.fields.count > 4 ? "\($0.call) \($0.fields[4...].joined(separator: " "))" : $0.call }
        #expect(calls == ["on_target m1", "on_action m1 open NULL", "on_action m1 segv NULL", "on_action m1 reply on my way", "on_action m1 tap NULL"])
        let workers = scratch.workerLines().byProcess
        #expect(workers.map { $0.lines.filter(\.isCall).count } == [3, 2], "\(scratch.workerLines())")
        #expect(workers.allSatisfy { $0.pid != run.pid })
    }
}
