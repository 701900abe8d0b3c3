import Foundation
import Testing

/// A Swift plugin at a stop (`lingerer`): its `shutdown` comes after the
/// data handler still under way ended, and a source that ignores its
/// cancellation keeps no host from exiting once `--stop-timeout` ran out;
/// in the host and in a worker behind its walls.
@Suite struct SwiftShutdownTests {
    /// A host with `lingerer` (`settings`, its log in the scratch folder),
    /// `--stop-timeout 1`, and `input` on standard input.
    static func start(_ scratch: Scratch, isolated: Bool, _ settings: [String: String] = [:], input: Pipe) throws -> HostProcess {
        let package = try PluginPackage.shared()
        let walled: [String: String] = isolated ? ["isolate": "true", "sandbox.write": scratch.path] : [:]
        let plugin = loading(
            package.library("lingerer"), as: "lingerer", walled.merging(settings.merging(["log": scratch.file("lingerer.log")]) { $1 }) { $1 })
        return try HostProcess(
            ["run", "--state", scratch.file("state"), "--report", scratch.file("report.ndjson"), "--stop-timeout", "1"] + plugin,
            errorPath: scratch.file("stderr.log"), input: input)
    }

    /// A data handler suspended at the stop is cancelled and awaited before
    /// `shutdown`, though it takes 100 ms to end once cancelled.
    @Test(arguments: [false, true]) func aSuspendedDataHandlerEndsBeforeShutdown(isolated: Bool) throws {
        let scratch = try Scratch()
        let input = Pipe()
        let host = try Self.start(scratch, isolated: isolated, input: input)
        input.fileHandleForWriting.write(Data(#"{"message_id":"m-1","data":{"sleep_ms":"60000"}}"#.utf8 + [0x0A]))
        #expect(eventually(timeout: .seconds(30)) { scratch.lines("lingerer.log").first == ["started", "m-1"] }, "\(host.stderr)")
        #expect(host.stop() == .status(0), "\(host.stderr)")
        #expect(scratch.lines("lingerer.log") == [["started", "m-1"], ["cancelled", "m-1"], ["ended", "m-1"], ["shutdown"]], "\(host.stderr)")
        let report = try scratch.reportLines()
        #expect(report.map { $0["status"] as? String } == ["failed"], "\(report)")
    }

    /// A source whose `run` never ends: the host exits once `--stop-timeout`
    /// ran out, saying which plugin it left (in the host, the watchdog ends
    /// it with status 4; a worker is killed, and the host ends with 4 too).
    @Test(arguments: [false, true]) func aSourceThatIgnoresItsCancellationKeepsNoHostAlive(isolated: Bool) throws {
        let scratch = try Scratch()
        let input = Pipe()
        let host = try Self.start(scratch, isolated: isolated, ["stubborn": "yes"], input: input)
        #expect(eventually(timeout: .seconds(30)) { scratch.lines("lingerer.log").first == ["running"] }, "\(host.stderr)")
        let signalled = ContinuousClock.now
        let exit = host.stop(timeout: .seconds(10))
        let took = ContinuousClock.now - signalled
        #expect(exit == .status(4), "\(host.stderr)")
        #expect(took < .seconds(4), "the host took \(took) to exit after SIGTERM with --stop-timeout 1")
        #expect(!scratch.lines("lingerer.log").contains(["shutdown"]))
        let said = isolated
            ? "plugin lingerer: its worker did not end by the stop's deadline (--stop-timeout 1.0s) after destroy; killed"
            : "stopping: plugin lingerer is still in destroy after"
        #expect(host.stderr.contains(said), "\(host.stderr)")
    }
}
