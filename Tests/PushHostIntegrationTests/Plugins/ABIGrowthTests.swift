import Foundation
import Testing

/// How the ABI grows (include/pushhost.h, docs/abi.md): a plugin built
/// against a newer header, in which each table the host hands out has one
/// field more and PH_ABI_MINOR is one above, and which declares the older
/// minor 1.2 to load in older hosts, loads in this host, finds every field
/// of 1.2 covered and the newer one not (PH_HAS_FIELD), and works
/// (Tests/Fixtures/plugins/newer.c). Older plugins loading unchanged are
/// ABICompatibilityTests and ABI11CompatibilityTests.
@Suite struct ABIGrowthTests {
    /// This header with a field `future` appended to ph_host, ph_intake,
    /// ph_chain_api and ph_state, and PH_ABI_MINOR 3: the folder that holds it.
    static func newerHeader(in scratch: Scratch) throws -> String {
        var header = try String(contentsOf: Paths.include.appendingPathComponent("pushhost.h"), encoding: .utf8)
        let future = "    void (*PH_NULLABLE future)(void);\n"
        let start = try #require(header.range(of: "struct ph_host {"))
        let end = try #require(header.range(of: "\n};", range: start.upperBound..<header.endIndex))
        header.insert(contentsOf: "\n" + future.dropLast(), at: end.lowerBound)
        for table in ["ph_intake", "ph_chain_api", "ph_state"] {
            let closing = "\n} \(table);"
            try #require(header.contains(closing))
            header = header.replacingOccurrences(of: closing, with: "\n" + future + "} \(table);")
        }
        try #require(header.contains("#define PH_ABI_MINOR 2\n"))
        header = header.replacingOccurrences(of: "#define PH_ABI_MINOR 2\n", with: "#define PH_ABI_MINOR 3\n")
        let folder = scratch.file("newer-include")
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        try header.write(toFile: folder + "/pushhost.h", atomically: true, encoding: .utf8)
        return folder
    }

    @Test func aPluginOfANewerHeaderThatDeclaresTheOlderMinorLoadsAndAsksFirst() throws {
        let scratch = try Scratch()
        let plugin = try scratch.plugin("newer.so", PluginSource.fixture("newer"), include: Self.newerHeader(in: scratch))
        let run = try scratch.runHost(["--plugin", plugin, "--set", "newer.out=\(scratch.file("out"))"], stdin: #"{"message_id":"m1"}"# + "\n")
        #expect(run.exit == .status(0), "\(run.stderr)")
        #expect(run.statuses == ["delivered"])
        #expect(scratch.read("out").split(separator: "\n").map(String.init) == [
            "ph_host fail yes", "ph_host future no",
            "ph_intake submit_record yes", "ph_intake future no",
            "ph_chain_api stop yes", "ph_chain_api future no",
            "ph_state directory yes", "ph_state future no",
            "background",
        ])
    }

    /// The same plugin declaring the newer header's minor, as it would by
    /// default, is refused with both versions named.
    @Test func aPluginOfANewerMinorIsRefusedWithBothVersions() throws {
        let scratch = try Scratch()
        let source = try PluginSource.fixture("newer").replacingOccurrences(of: ".abi_minor = 2,", with: ".abi_minor = PH_ABI_MINOR,")
        let plugin = try scratch.plugin("newer.so", source, include: Self.newerHeader(in: scratch))
        let run = try scratch.runHost(["--plugin", plugin], stdin: "")
        #expect(run.exit == .status(1), "\(run.stderr)")
        #expect(run.stderrLines.contains(
            "error pushhost: refused plugin \(plugin): built for ABI 1.3, but this host speaks ABI 1.2 (the plugin's minor is newer)"),
            "\(run.stderr)")
    }
}
