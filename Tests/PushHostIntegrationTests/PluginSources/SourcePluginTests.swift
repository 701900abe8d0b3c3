import Foundation
import Testing

/// Plugins with `ph.source/1` (docs/plugins.md, sources): the host starts them after every
/// plugin was created, runs until SIGINT or SIGTERM even when standard input
/// ends, and sends each record they submit through `ph.intake/1` down the
/// same path as a line of standard input; `done` tells the source how it
/// ended, once, after its report line.
@Suite struct SourcePluginTests {
    /// Starts `pushhost run` with its own state folder, the report into
    /// `report.ndjson`, standard error into `stderr.log`, and standard input
    /// empty: only a source keeps it running. `isolated`: every plugin in a
    /// worker, the source's records crossing to the host as they come.
    static func startHost(_ scratch: Scratch, _ arguments: [String], isolated: Bool = false) throws -> HostProcess {
        try HostProcess(
            ["run", "--state", scratch.file("state"), "--report", scratch.file("report.ndjson")] + arguments
                + (isolated ? ["--isolate", "all"] : []),
            errorPath: scratch.file("stderr.log"))
    }

    /// The `source` of a report line as `kind plugin record`, e.g. `plugin fifo-source 2`.
    static func source(_ line: [String: Any]) -> String {
        let source = line["source"] as? [String: Any] ?? [:]
        let record = (source["record"] as? Int).map(String.init) ?? "nil"
        return "\(source["kind"] as? String ?? "nil") \(source["plugin"] as? String ?? "nil") \(record)"
    }

    // MARK: - The sample fifo-source

    /// The sample fifo-source's `run` arguments, reading `records.fifo`:
    /// made here, so that behind walls its worker is granted that FIFO alone.
    static func fifoSource(_ scratch: Scratch) throws -> (fifo: String, plugin: [String]) {
        let fifo = scratch.file("records.fifo")
        guard mkfifo(fifo, 0o600) == 0 else { throw POSIXError(POSIXErrorCode(rawValue: errno) ?? .EIO) }
        return (fifo, loading(Paths.sample("fifo-source"), as: "fifo-source", ["path": fifo, "sandbox.write": fifo]))
    }

    /// Opens `fifo` for writing once a reader holds it (the plugin's start),
    /// without ever blocking; -1 when none came within 20 s or the host ended.
    static func openWhenRead(_ fifo: String, host: HostProcess) -> Int32 {
        var fd: Int32 = -1
        // ENOENT until create made it, ENXIO until start opened it.
        eventually(timeout: .seconds(20)) {
            fd = open(fifo, O_WRONLY | O_NONBLOCK | O_CLOEXEC)
            return fd >= 0 || host.waitForExit(timeout: .zero) != nil
        }
        return fd
    }

    /// Writes `text` in one write (it fits in the pipe, so it does not block).
    static func write(_ fd: Int32, _ text: String) -> Bool {
        let bytes = Array(text.utf8)
        return bytes.withUnsafeBytes { Foundation.write(fd, $0.baseAddress, $0.count) } == bytes.count
    }

    @Test(arguments: [false, true]) func fifoSourceFeedsTheHostUntilSIGTERM(isolated: Bool) throws {
        let scratch = try Scratch()
        let (fifo, fifoSource) = try Self.fifoSource(scratch)
        let host = try Self.startHost(
            scratch,
            fifoSource
                + scratch.probe("d", [.data])
                + scratch.probe("bg", [.background], settings: ["get": "source.kind,source.plugin,source.record"]), isolated: isolated)
        let fd = Self.openWhenRead(fifo, host: host)
        try #require(fd >= 0, "the FIFO was never opened for reading:\n\(host.stderr)")
        defer { close(fd) }

        let message = #"{"message_id":"m-1","to":"device","data":{"title":"Hello"}}"#
        let records = ndjson(message, "this is not JSON", #"{"pushhost":"token","token":"T1"}"#)
        try #require(Self.write(fd, records), "cannot write to the FIFO")
        let third = host.waitForStderr("info fifo-source: record 3:")
        try #require(third, "no done for record 3:\n\(host.stderr)")

        let report = try scratch.reportLines()
        try #require(report.count == 3, "\(report)")
        #expect(report[0]["id"] as? String == "m-1")
        #expect(report[0]["status"] as? String == "delivered")
        #expect(report[0]["route"] as? String == "background")
        #expect(report[1]["status"] as? String == "rejected")
        #expect(report[1]["error"] != nil, "\(report[1])")
        // Bytes from a FIFO come from outside: a host event there is rejected, never applied.
        #expect(report[2]["status"] as? String == "rejected")
        #expect((report[2]["error"] as? String)?.contains("not taken from here: plugin fifo-source did not submit it as a host event of its own") == true,
                "\(report[2])")
        #expect(report.map(Self.source) == ["plugin fifo-source 1", "plugin fifo-source 2", "plugin fifo-source 3"])
        #expect(scratch.probeCalls() == ["d data m-1", "bg background m-1"])
        let seen = scratch.probeLines().first { $0.event == "background" }
        #expect(seen?.values(["source.kind", "source.plugin", "source.record"])
            == ["source.kind": "plugin", "source.plugin": "fifo-source", "source.record": "1"], "\(String(describing: seen))")
        let done = host.stderr.split(separator: "\n").filter { $0.hasPrefix("info fifo-source: record ") }
        #expect(done == ["info fifo-source: record 1: done", "info fifo-source: record 2: rejected",
                         "info fifo-source: record 3: rejected"], "\(host.stderr)")
        #expect(!FileManager.default.fileExists(atPath: scratch.file("state/token")), "a forged token was stored")

        // Standard input ended long ago: the source keeps the host running.
        // A message without an id of its own is named after the source; a
        // failed one (the data probe says so) is worth a retry.
        #expect(host.waitForExit(timeout: .milliseconds(300)) == nil, "the host ended:\n\(host.stderr)")
        let more = ndjson(#"{"data":{"k":"v"}}"#, #"{"message_id":"m-5","data":{"d":{"verdict":"failed"}}}"#)
        try #require(Self.write(fd, more), "cannot write to the FIFO")
        let fifth = host.waitForStderr("info fifo-source: record 5:")
        #expect(fifth, "\(host.stderr)")
        let later = try scratch.reportLines().dropFirst(3)
        #expect(later.map { $0["id"] as? String ?? "nil" } == ["fifo-source-4", "m-5"])
        #expect(later.map { $0["status"] as? String ?? "nil" } == ["delivered", "failed"])
        #expect(later.map(Self.source) == ["plugin fifo-source 4", "plugin fifo-source 5"])
        let moreDone = host.stderr.split(separator: "\n").filter { $0.hasPrefix("info fifo-source: record ") }.dropFirst(3)
        #expect(Array(moreDone) == ["info fifo-source: record 4: done", "info fifo-source: record 5: retry"], "\(host.stderr)")

        let exit = host.stop()
        #expect(exit == .status(0), "\(host.stderr)")
        #expect(scratch.probeLines().suffix(2).map(\.text).sorted() == ["bg destroy", "d destroy"])
        #expect(try scratch.reportLines().count == 5)
    }

    // MARK: - A test source that submits from its own thread

    /// Builds `burst` (Tests/Fixtures/plugins/burst.c: its settings and the
    /// lines it writes) and returns the `run` arguments that load it with
    /// `settings` and `out`.
    static func burst(_ scratch: Scratch, _ settings: [String: String]) throws -> [String] {
        let file = try scratch.plugin("burst.so", PluginSource.fixture("burst"))
        return loading(file, as: "burst", scratch.writing(settings, to: scratch.file("burst.out"), as: "out"))
    }

    /// The lines `burst` wrote.
    static func burstLines(_ scratch: Scratch) -> [String] {
        scratch.read("burst.out").split(separator: "\n").map(String.init)
    }

    /// Many records, submitted far faster than the host takes them (every
    /// one waits 5 ms in the data stage, at most 2 at a time), so that submit
    /// blocks: each gets exactly one done, in submit order, after its report line.
    @Test(arguments: [false, true]) func everySubmittedRecordGetsOneDoneInOrder(isolated: Bool) throws {
        let scratch = try Scratch()
        let count = 600
        let host = try Self.startHost(
            scratch,
            try Self.burst(scratch, ["count": "\(count)"])
                + scratch.probe("d", [.data], settings: ["verdict": "pending", "delay_ms": "5"])
                + scratch.probe("bg", [.background])
                + ["--max-pending", "2"], isolated: isolated)
        let last = "done \(count) done ok"
        eventually(timeout: .seconds(30)) {
            Self.burstLines(scratch).contains(last) || host.waitForExit(timeout: .zero) != nil
        }
        try #require(Self.burstLines(scratch).contains(last),
                     "not every record was done:\n\(Self.burstLines(scratch).suffix(5))\n\(host.stderr)")
        #expect(host.waitForExit(timeout: .milliseconds(100)) == nil, "the host ended:\n\(host.stderr)")
        let exit = host.stop()
        #expect(exit == .status(0), "\(host.stderr)")

        let lines = Self.burstLines(scratch)
        let done = lines.filter { $0.hasPrefix("done ") }
        #expect(done == (1...count).map { "done \($0) done ok" }, "\(done.prefix(5)) ... \(done.suffix(5))")
        #expect(lines.contains("accepted \(count)"))
        #expect(lines.contains("submitted all"))
        // Submit held the thread back: never more records out than --max-pending
        // (and the one waiting in submit, counted before the call).
        let most = lines.first { $0.hasPrefix("most outstanding ") }.flatMap { Int($0.dropFirst("most outstanding ".count)) }
        // (In a worker, done crosses back a moment after the host made room: a few more.)
        #expect(most.map { $0 > 0 && $0 <= (isolated ? 3 + 2 : 3) } == true, "most outstanding: \(String(describing: most))")
        #expect(lines.first == "started")
        #expect(lines.last == "destroy")
        #expect(lines.contains("stop"))

        let report = try scratch.reportLines()
        let ids = (1...count).map { "b-\($0)" }
        #expect(report.map { $0["id"] as? String ?? "nil" } == ids)
        #expect(report.map(Self.source) == (1...count).map { "plugin burst \($0)" })
        #expect(report.allSatisfy { $0["status"] as? String == "delivered" })
        #expect(scratch.probeCalls().filter { $0.hasPrefix("bg ") } == ids.map { "bg background \($0)" })
    }

    @Test(arguments: [false, true]) func aSourceThatDoesNotStartStopsTheHost(isolated: Bool) throws {
        let scratch = try Scratch()
        let host = try Self.startHost(
            scratch, try Self.burst(scratch, ["fail": "true"]) + scratch.probe("bg", [.background]), isolated: isolated)
        let exit = host.waitForExit()
        #expect(exit == .status(1), "\(host.stderr)")
        let errors = host.stderr.split(separator: "\n").map(String.init)
        #expect(errors.contains("error burst: asked to fail"), "\(host.stderr)")
        #expect(errors.contains("error pushhost: plugin burst: its source did not start (start returned -1)"),
                "\(host.stderr)")
        #expect(Self.burstLines(scratch) == ["destroy"])
        #expect(scratch.probeLines().map(\.text) == ["bg destroy"])
        #expect(scratch.read("report.ndjson").isEmpty)
    }

    /// After SIGTERM, submit returns -1; what the host began before still
    /// gets its report line and its done, what it had not begun comes back
    /// (retry, no report line), and the host exits 0.
    @Test(arguments: [false, true]) func submitReturnsMinusOneOnceTheHostStops(isolated: Bool) throws {
        let scratch = try Scratch()
        let host = try Self.startHost(
            scratch, try Self.burst(scratch, ["pause_us": "1000"]) + scratch.probe("bg", [.background]), isolated: isolated)
        eventually(timeout: .seconds(20)) {
            Self.burstLines(scratch).contains("done 20 done ok") || host.waitForExit(timeout: .zero) != nil
        }
        try #require(Self.burstLines(scratch).contains("done 20 done ok"),
                     "records are not flowing:\n\(Self.burstLines(scratch).suffix(5))\n\(host.stderr)")
        #expect(!Self.burstLines(scratch).contains("stopped after -1"))
        let exit = host.stop()
        #expect(exit == .status(0), "\(host.stderr)")

        let lines = Self.burstLines(scratch)
        #expect(lines.contains("stopped after -1"), "\(lines.suffix(5))")
        #expect(lines.contains("stop"))
        #expect(lines.last == "destroy")
        let accepted = lines.first { $0.hasPrefix("accepted ") }.flatMap { Int($0.dropFirst("accepted ".count)) }
        let count = try #require(accepted, "\(lines.suffix(5))")
        #expect(count >= 20)
        let done = lines.filter { $0.hasPrefix("done ") }
        let handled = done.prefix { $0.hasSuffix(" done ok") }.count
        #expect(handled >= 20)
        #expect(done == (1...count).map { $0 <= handled ? "done \($0) done ok" : "done \($0) retry other" },
                "\(done.suffix(5)), accepted \(count)")
        let report = try scratch.reportLines()
        #expect(report.map { $0["id"] as? String ?? "nil" } == (1...handled).map { "b-\($0)" })
    }
    /// SIGTERM while the sample's reader thread is blocked in submit (the
    /// host is full): the host unblocks it with -1 before it calls stop, which
    /// joins that thread; it finishes the records it accepted and exits 0.
    @Test(arguments: [false, true]) func fifoSourceStopsWhileItsReaderIsBlockedInSubmit(isolated: Bool) throws {
        let scratch = try Scratch()
        let (fifo, fifoSource) = try Self.fifoSource(scratch)
        let host = try Self.startHost(
            scratch,
            fifoSource + ["--max-pending", "1"]
                + scratch.probe("d", [.data], settings: ["verdict": "pending", "delay_ms": "5"]), isolated: isolated)
        let fd = Self.openWhenRead(fifo, host: host)
        try #require(fd >= 0, "the FIFO was never opened for reading:\n\(host.stderr)")
        defer { close(fd) }
        let total = 1000
        let records = (1...total).map { #"{"message_id":"f-\#($0)","data":{}}"# + "\n" }.joined()  // 31 KiB: fits in the pipe
        try #require(Self.write(fd, records), "cannot write to the FIFO")
        let flowing = host.waitForStderr("info fifo-source: record 3: done")
        try #require(flowing, "\(host.stderr)")

        let exit = host.stop()
        #expect(exit == .status(0), "\(host.stderr)")
        let done = host.stderr.split(separator: "\n").filter { $0.hasPrefix("info fifo-source: record ") }.map(String.init)
        let report = try scratch.reportLines()
        #expect(report.count >= 3 && report.count < total, "\(report.count) of \(total) records were reported")
        #expect(report.map { $0["id"] as? String ?? "nil" } == (0..<report.count).map { "f-\($0 + 1)" })
        // What the host had begun is done; what it had not, it gave back.
        #expect(done.prefix(report.count) == (0..<report.count).map { "info fifo-source: record \($0 + 1): done" }[...], "\(done.suffix(3))")
        #expect(done.dropFirst(report.count).allSatisfy { $0.hasSuffix(": retry") }, "\(done.suffix(3))")
        #expect(scratch.probeLines().last?.text == "d destroy")
    }
}
