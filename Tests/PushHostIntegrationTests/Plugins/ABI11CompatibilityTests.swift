import Foundation
import Testing

/// A source plugin (Tests/Fixtures/plugins/old-source.c) built against the
/// 1.1 header (kept in Tests/Fixtures/pushhost-1.1) works unchanged in this
/// 1.2 host: its `submit` hands over messages; a host event it submits,
/// which 1.1 had no way to mark as its own, is rejected; `done` comes once
/// for each.
@Suite struct ABI11CompatibilityTests {
    static let include11 = Paths.fixtures.appendingPathComponent("pushhost-1.1").path

    @Test func a11SourceWorksAndItsHostEventIsRejected() throws {
        let scratch = try Scratch()
        let file = try scratch.plugin("old-source.so", PluginSource.fixture("old-source"), include: Self.include11)
        let listing = try Command.pushhost(["plugins", "--json", "--plugin", file])
        #expect(listing.stdout.contains(#""abi":"1.1""#), "\(listing.stdout)")
        // It offers a source, and 1.1 had no way to declare it.
        #expect(listing.stdout.contains(#""roles":[],"targets":[],"extensions":null"#), "\(listing.stdout)")
        let host = try SourcePluginTests.startHost(
            scratch, ["--plugin", file, "--set", "old-source.out=\(scratch.file("out"))"] + scratch.probe("bg", [.background, .token]))
        eventually(timeout: .seconds(20)) { scratch.read("out").contains("done 2 ") || host.waitForExit(timeout: .zero) != nil }
        #expect(host.stop() == .status(0), "\(host.stderr)")
        #expect(scratch.read("out") == "done 1 0\ndone 2 2\n")
        let report = try scratch.reportLines()
        #expect(report.map { $0["status"] as? String } == ["delivered", "rejected"])
        #expect(scratch.probeCalls() == ["bg background old-1"])
    }
}
