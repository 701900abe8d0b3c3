import Foundation
import Testing

/// A plugin's extension table is read as far as its `struct_size` covers
/// this host's fields (include/pushhost.h): a source built against a newer
/// header, whose `ph_source` is a field larger, starts and stops as any
/// other; one whose table ends before `stop` is refused, naming the table
/// (Tests/Fixtures/plugins/declared.c).
@Suite struct ExtensionTableTests {
    @Test func aLargerSourceTableFromANewerHeaderStartsAndStops() throws {
        let scratch = try Scratch()
        let plugin = try DeclaredExtensionsTests.declared(scratch, ["EXTENSIONS PH_EXT_SOURCE, NULL", "OFFERS_SOURCE", "LARGER_TABLE"])
        let host = try HostProcess(
            ["run", "--state", scratch.file("state"), "--plugin", plugin, "--set", "declared.mark=\(scratch.file("mark"))"],
            errorPath: scratch.file("stderr.log"))
        // A host with a source runs until it is told to stop.
        let started = eventually(timeout: .seconds(20)) { scratch.read("mark") == "create\nstart\n" }
        try #require(started, "\(host.stderr)")
        #expect(host.stop() == .status(0), "\(host.stderr)")
        #expect(scratch.read("mark") == "create\nstart\nstop\n")
    }

    @Test func aSourceTableThatEndsBeforeStopIsRefused() throws {
        let scratch = try Scratch()
        let plugin = try DeclaredExtensionsTests.declared(scratch, ["EXTENSIONS PH_EXT_SOURCE, NULL", "OFFERS_SOURCE", "SMALLER_TABLE"])
        let run = try scratch.runHost(["--plugin", plugin, "--set", "declared.mark=\(scratch.file("mark"))"], stdin: "")
        #expect(run.exit == .status(1), "\(run.stderr)")
        #expect(run.stderrLines.contains("error pushhost: plugin declared: its ph.source/1 table (16 bytes) lacks start or stop"), "\(run.stderr)")
        #expect(!scratch.read("mark").contains("start"))
    }
}
