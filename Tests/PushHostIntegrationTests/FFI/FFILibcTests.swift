import Foundation
import Testing

/// The system's own libraries, found by bare name through the library search:
/// libc's `puts` works as a background handler as it stands; libm's `pow`
/// bound to a string path is refused at load like a bad plugin.
@Suite struct FFILibcTests {
    static let puts = #"""
        {"library": "libc.so.6", "description": "Titles on standard output.",
         "handlers": [{"role": "background", "symbol": "puts", "returns": "int32", "params": ["string"], "args": ["notification.title"]}]}
        """#

    static let pow = #"""
        {"library": "libm.so.6",
         "handlers": [{"role": "data", "symbol": "pow", "returns": "double", "params": ["double", "double"], "args": ["notification.title", 2]}]}
        """#

    static func titled(_ id: String, _ title: String) -> String {
        #"{"message_id":"\#(id)","notification":{"title":"\#(title)"}}"#
    }

    @Test func putsWritesEachTitleToStandardOutput() throws {
        let scratch = try Scratch()
        let manifest = try scratch.write("titles.ffi.json", Self.puts)
        let report = scratch.file("report.ndjson")
        let result = try Command.pushhost(
            ["run", "--state", scratch.file("state"), "--report", report, "--ffi", manifest],
            stdin: ndjson(Self.titled("m1", "First"), Self.titled("m2", "Second, with spaces"), Self.titled("m3", "Ünïcödé")))
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stdout == "First\nSecond, with spaces\nÜnïcödé\n")
        let lines = try jsonLines(scratch.read("report.ndjson"))
        #expect(lines.map { $0["status"] as? String } == ["delivered", "delivered", "delivered"])
        #expect(lines.map { $0["ui"] as? [String] } == [["titles"], ["titles"], ["titles"]])
    }

    @Test func powBoundToATitleIsRefusedByTheListing() throws {
        let scratch = try Scratch()
        let manifest = try scratch.write("power.ffi.json", Self.pow)
        let listing = try Command.pushhost(["plugins", "--ffi", manifest])
        #expect(listing.status == 1)
        let line = try #require(listing.stdout.split(separator: "\n").first { $0.hasPrefix("refused ") }, "\(listing.stdout)")
        #expect(line.hasPrefix("refused \(manifest): handler data"), "\(line)")
        #expect(line.contains("notification.title"), "\(line)")
        #expect(line.contains("double"), "\(line)")
    }

    @Test func powRefusedStopsTheRunBeforeInput() throws {
        let scratch = try Scratch()
        let manifest = try scratch.write("power.ffi.json", Self.pow)
        let result = try scratch.run(["--ffi", manifest], stdin: ndjson(Self.titled("m1", "2")))
        #expect(result.status == 1)
        #expect(result.stdout.isEmpty, "\(result.stdout)")
        let refusals = result.errorLines.filter { $0.contains("refused plugin") }
        #expect(refusals.count == 1, "\(result.stderr)")
        #expect(refusals.first?.contains("\(manifest): handler data") == true, "\(result.stderr)")
    }

    @Test func powRefusedIsSkippedWithSkipBadPlugins() throws {
        let scratch = try Scratch()
        let bad = try scratch.write("power.ffi.json", Self.pow)
        let good = try scratch.write("titles.ffi.json", Self.puts)
        let report = scratch.file("report.ndjson")
        let result = try Command.pushhost(
            ["run", "--state", scratch.file("state"), "--report", report, "--skip-bad-plugins", "--ffi", bad, "--ffi", good],
            stdin: ndjson(Self.titled("m1", "still here")))
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.errorLines.filter { $0.contains("refused") && $0.contains(bad) }.count == 1, "\(result.stderr)")
        #expect(result.stdout == "still here\n")
        #expect(try jsonLines(scratch.read("report.ndjson")).map { $0["data"] as? [[String: String]] } == [[]])
    }
}
