import Foundation
import Testing

/// What `--isolate` puts in workers besides handlers: ffi manifests and
/// sources (interceptors: IsolatedInterceptorTests).
@Suite struct IsolatedSetupTests {
    static func message(_ id: String) -> String {
        #"{"message_id":"\#(id)","data":{}}"#
    }

    /// An ffi manifest runs in a worker of its own under `--isolate NAME`
    /// or `all`: its functions are called there, as in the host.
    @Test(arguments: [["--isolate", "legacy", "--isolate", "worker"], ["--isolate", "all"]])
    func anFFIManifestRunsInItsWorker(_ flags: [String]) throws {
        let scratch = try Scratch()
        let manifest = try scratch.ffi(handlers: [Legacy.background()])
        let run = try scratch.runHost(try scratch.worker([.background]) + ["--ffi", manifest] + flags, stdin: ndjson(Self.message("m1")))
        #expect(run.exit == .status(0), "\(run.stderr)")
        #expect(run.statuses == ["delivered"], "\(run.stderr)")
        #expect(run.line("m1")?["ui"] as? [String] == ["worker", "legacy"])
        #expect(scratch.legacyHandlerCalls.count == 1, "\(scratch.legacyCalls)")
        #expect(scratch.legacyCalls.first?.hasPrefix("legacy_open ") == true && scratch.legacyCalls.last == "legacy_close", "\(scratch.legacyCalls)")
        #expect(!run.stderr.contains("runs in the host"), "\(run.stderr)")
    }

    /// A manifest that binds libc's `raise` to `data.signal`: isolated, the
    /// message whose call raises SIGSEGV fails with the crash, and the next
    /// goes to the worker started again; nothing else is lost.
    @Test func anIsolatedFFIHandlerThatCrashesCostsItsMessage() throws {
        let scratch = try Scratch()
        let manifest = try scratch.write("raiser.ffi.json", """
            {"library": "libc.so.6", "handlers": [{"role": "background", "symbol": "raise", "returns": "int32", "params": ["int32"],
              "args": [{"path": "data.signal", "default": 0}]}]}
            """)
        let run = try scratch.runHost(
            ["--ffi", manifest, "--isolate", "raiser"],
            stdin: ndjson(Self.message("m1"), #"{"message_id":"m2","data":{"signal":"11"}}"#, Self.message("m3")))
        #expect(run.exit == .status(0), "\(run.stderr)")
        #expect(run.statuses == ["delivered", "failed", "delivered"], "\(run.stderr)")
        #expect(run.line("m2")?["error"] as? String == "plugin raiser crashed in on_background: SIGSEGV")
        #expect(run.stderrLines.contains { $0.hasPrefix("error pushhost: plugin raiser crashed in on_background: SIGSEGV; restarting its worker") },
                "\(run.stderr)")
    }

    /// `--isolate all` runs a source in a worker of its own: its records
    /// cross to the host and reach the isolated plugins, its `done` comes
    /// back to it there.
    @Test func aSourceRunsInItsWorker() throws {
        let scratch = try Scratch()
        let (fifo, fifoSource) = try SourcePluginTests.fifoSource(scratch)
        let host = try HostProcess(
            ["run", "--state", scratch.file("state"), "--report", scratch.file("report.ndjson"), "--isolate", "all"]
                + fifoSource + scratch.worker([.background]),
            errorPath: scratch.file("stderr.log"))
        let fd = SourcePluginTests.openWhenRead(fifo, host: host)
        try #require(fd >= 0, "the FIFO was never opened for reading:\n\(host.stderr)")
        defer { close(fd) }
        #expect(TransportWorker.pids(of: host.pid, plugin: Paths.sample("fifo-source")).count == 1)
        try #require(SourcePluginTests.write(fd, ndjson(Self.message("m1"))))
        #expect(host.waitForStderr("info fifo-source: record 1: done"), "\(host.stderr)")
        #expect(host.stop() == .status(0), "\(host.stderr)")
        #expect(!host.stderr.contains("--isolate does not apply"), "\(host.stderr)")
        #expect(try scratch.reportLines().map { $0["status"] as? String } == ["delivered"])
        let lines = scratch.workerLines()
        #expect(lines.map(\.call) == ["create", "on_background m1", "destroy"])
        #expect(lines.allSatisfy { $0.pid != host.pid }, "\(lines)")
    }
}
