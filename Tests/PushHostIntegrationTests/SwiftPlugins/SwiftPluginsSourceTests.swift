import Foundation
import Testing

/// A source written in Swift (`SourcePlugin`, the package's `feeder`): its
/// `run` submits records through `Intake` and learns each one's result,
/// suspends while the host is full without losing a record, reaches its
/// state folder, and is cancelled when the host stops.
@Suite struct SwiftPluginsSourceTests {
    /// Starts a host with `feeder` (`settings`, its log in the scratch
    /// folder) and a background probe, standard input empty.
    static func start(_ scratch: Scratch, _ settings: [String: String], _ flags: [String] = []) throws -> HostProcess {
        let package = try PluginPackage.shared()
        let plugins = loading(package.library("feeder"), as: "feeder", settings.merging(["log": scratch.file("feeder.log")]) { $1 })
            + (try scratch.probe("bg", [.background]))
        return try HostProcess(
            ["run", "--state", scratch.file("state"), "--report", scratch.file("report.ndjson")] + flags + plugins,
            errorPath: scratch.file("stderr.log"))
    }

    /// In the host, and in a worker behind its walls (its records cross to
    /// the host, their results come back).
    @Test(arguments: [false, true])
    func aSwiftSourceSubmitsAndLearnsEachResult(isolated: Bool) throws {
        let scratch = try Scratch()
        let walled: [String: String] = isolated ? ["isolate": "true", "sandbox.write": scratch.path] : [:]
        let host = try Self.start(scratch, walled.merging(["count": "3", "event": "yes"]) { $1 })
        let ran = eventually(timeout: .seconds(30)) { scratch.lines("feeder.log").last?.first == "ran" }
        try #require(ran, "\(host.stderr)\n\(scratch.read("feeder.log"))")
        #expect(host.stop() == .status(0), "\(host.stderr)")
        #expect(scratch.lines("feeder.log") == [
            ["folder", "yes"], ["f-1", "done"], ["f-2", "done"], ["f-3", "done"],
            ["event", "rejected"], ["own-event", "done"], ["ran", "5"],
        ])
        let report = try scratch.reportLines()
        #expect(report.map { ($0["id"] ?? $0["event"]) as? String } == ["f-1", "f-2", "f-3", nil, "background"], "\(report)")
        #expect(report.map { $0["status"] as? String } == ["delivered", "delivered", "delivered", "rejected", "applied"])
        #expect(scratch.probeCalls() == ["bg background f-1", "bg background f-2", "bg background f-3"])
    }

    /// Bytes that are not UTF-8, and empty records, submitted as they are:
    /// the host rejects each with its report line and takes the next.
    @Test func oddBytesAreRejectedByTheHostNotLost() throws {
        let scratch = try Scratch()
        let host = try Self.start(scratch, ["count": "1", "odd": "yes"])
        let ran = eventually(timeout: .seconds(30)) { scratch.lines("feeder.log").last?.first == "ran" }
        try #require(ran, "\(host.stderr)\n\(scratch.read("feeder.log"))")
        #expect(host.stop() == .status(0), "\(host.stderr)")
        #expect(scratch.lines("feeder.log") == [
            ["folder", "yes"], ["not-utf8", "rejected"], ["empty", "rejected"], ["empty-text", "rejected"], ["f-1", "done"], ["ran", "1"],
        ])
        let report = try scratch.reportLines()
        #expect(report.map { $0["status"] as? String } == ["rejected", "rejected", "rejected", "delivered"])
        #expect((report.first?["error"] as? String ?? "").contains("UTF-8"), "\(report)")
    }

    /// With room for two records, 200 submits made at once wait while the
    /// host is full, and every record comes through once.
    @Test func aFullHostSuspendsSubmitsAndLosesNothing() throws {
        let scratch = try Scratch()
        let host = try Self.start(scratch, ["count": "200", "together": "yes"], ["--max-pending", "2"])
        let ran = eventually(timeout: .seconds(60)) { scratch.lines("feeder.log").last?.first == "ran" }
        try #require(ran, "\(host.stderr)")
        #expect(host.stop() == .status(0), "\(host.stderr)")
        let results = scratch.lines("feeder.log").dropFirst().dropLast()
        #expect(Set(results.map { $0.first ?? "" }) == Set((1...200).map { "f-\($0)" }) && results.count == 200)
        #expect(Set(results.map { $0.last ?? "" }) == ["done"], "\(results.filter { $0.last != "done" }.prefix(5))")
        let report = try scratch.reportLines()
        #expect(Set(report.compactMap { $0["id"] as? String }) == Set((1...200).map { "f-\($0)" }) && report.count == 200)
        #expect(Set(report.map { $0["status"] as? String }) == ["delivered"])
    }

    /// A stop cancels `run`: the submit under way, or the next, says
    /// `.stopped`, `run` returns, and the host exits 0 with every plugin's
    /// destroy done.
    @Test func aStopCancelsTheRun() throws {
        let scratch = try Scratch()
        let host = try Self.start(scratch, ["count": "1000000"])
        let started = eventually(timeout: .seconds(30)) { scratch.lines("feeder.log").count > 20 }
        try #require(started, "\(host.stderr)")
        #expect(host.stop() == .status(0), "\(host.stderr)")
        let last = try #require(scratch.lines("feeder.log").last)
        #expect(last.first == "stopped after", "\(last)")
        let ran = Int(last.last ?? "") ?? 0
        #expect(ran >= 20 && ran < 1_000_000, "\(last)")
        #expect(scratch.probeLines().last?.event == "destroy")
    }

    /// The SDK declares what the plugin offers and uses: the listing shows
    /// it as a source with a state folder without creating it.
    @Test func theListingShowsASwiftSourceWithoutCreatingIt() throws {
        let package = try PluginPackage.shared()
        let json = try jsonLines(Command.pushhost(["plugins", "--json", "--plugin", package.library("feeder")]).stdout)
        #expect(json.first?["roles"] as? [String] == ["source", "state"], "\(json)")
        #expect(json.first?["extensions"] as? [String] == ["ph.source/1", "ph.intake/1", "ph.state/1"], "\(json)")
    }
}
