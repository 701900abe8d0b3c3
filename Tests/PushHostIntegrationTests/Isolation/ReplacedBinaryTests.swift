import Foundation
import Testing

/// A package upgrade replaces the `pushhost` file under a running host. A
/// worker reads the host's own memory layout of each message, so a worker
/// started after that (here, after a crash) must be the host's build, not
/// the new file's.
@Suite struct ReplacedBinaryTests {
    @Test func aWorkerStartedAfterAnUpgradeIsTheHostsOwnBuild() throws {
        let scratch = try Scratch()
        // The host runs from a copy of the build, which the "upgrade" replaces by a rename, as dpkg does.
        try FileManager.default.createDirectory(atPath: scratch.file("bin"), withIntermediateDirectories: true)
        let binary = scratch.file("bin/pushhost")
        try FileManager.default.copyItem(atPath: Paths.pushhost, toPath: binary)
        let input = Pipe()
        let host = try HostProcess(
            ["run", "--state", scratch.file("state"), "--report", scratch.file("report.ndjson")]
                + (try scratch.worker([.data, .background])) + ["--isolate", "worker"],
            program: binary, errorPath: scratch.file("stderr.log"), input: input)
        func send(_ line: String) { input.fileHandleForWriting.write(Data((line + "\n").utf8)) }
        send(#"{"message_id":"m1","data":{}}"#)
        #expect(eventually(timeout: .seconds(20)) { scratch.workerCalls().contains { $0.call == "on_background m1" } }, "\(host.stderr)")

        let marker = scratch.file("new-build-ran")
        _ = try scratch.write("bin/pushhost.new", "#!/bin/sh\necho \"$@\" > \(marker)\nexit 3\n")
        #expect(chmod(scratch.file("bin/pushhost.new"), 0o755) == 0)
        #expect(rename(scratch.file("bin/pushhost.new"), binary) == 0)

        // m2 crashes the worker; the one started after it serves m3.
        send(#"{"message_id":"m2","data":{"fault":"segv"}}"#)
        send(#"{"message_id":"m3","data":{}}"#)
        try input.fileHandleForWriting.close()
        #expect(host.waitForExit(timeout: .seconds(30)) == .status(0), "\(host.stderr)")
        let report = try scratch.reportLines()
        #expect(report.map { $0["status"] as? String } == ["delivered", "failed", "delivered"], "\(report)\n\(host.stderr)")
        #expect(!FileManager.default.fileExists(atPath: marker), "the replaced file ran as a worker")
        #expect(scratch.workerCalls().contains { $0.call == "on_background m3" }, "\(host.stderr)")
    }
}
