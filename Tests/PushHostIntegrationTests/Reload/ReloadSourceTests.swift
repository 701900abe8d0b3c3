import Foundation
import Testing

/// A source plugin whose settings change at a reload: the running source is
/// stopped (what it submits from then on is refused, and what it submitted
/// and the host did not take goes back to it), the new one starts after
/// the switch; every record either source had taken gets its `done`, once,
/// and its report line, once. In the host, and in a worker.
@Suite struct ReloadSourceTests {
    @Test(arguments: [false, true])
    func aChangedSourceHandsOverWithNothingLost(isolated: Bool) throws {
        let scratch = try Scratch()
        let folder = try PluginFolder(scratch)
        try scratch.spool.create()
        let first = scratch.file("first.log"), second = scratch.file("second.log")
        for file in [first, second] { FileManager.default.createFile(atPath: file, contents: nil) }
        let source = try PluginSource.fixture("burst")
        try folder.install("burst", source: source, settings: ["out": first, "pause_us": "200"], writes: [first])
        // A data plugin whose verdicts wait 2 ms: records are under way at the reload.
        try folder.install("one", version: "1", settings: ["pending_ms": "2"])
        let host = try scratch.startWatching(["--plugins", folder.path] + (isolated ? ["--isolate", "all"] : []))
        #expect(eventually(timeout: .seconds(20)) { Self.doneLines(first).count >= 300 }, "\(host.stderr)")

        try folder.configure("burst", ["out": second, "pause_us": "200"], writes: [second])
        host.send(SIGHUP)
        #expect(host.waitForStderr("reloaded: changed burst (settings, grants), unchanged 1"), "\(host.stderr)")
        #expect(eventually(timeout: .seconds(20)) { Self.doneLines(second).count >= 300 }, "\(host.stderr)")
        #expect(host.stop() == .status(0), "\(host.stderr)")

        // The first source met the refusal, was stopped and destroyed; the second at the stop.
        let firstLines = Self.lines(first)
        #expect(firstLines.contains("stopped after -1"), "\(firstLines.suffix(5))")
        #expect(firstLines.last == "destroy", "\(firstLines.suffix(5))")
        let report = try scratch.reportLines()
        var reported = 0
        for (log, name) in [(first, "first"), (second, "second")] {
            let lines = Self.lines(log)
            let accepted = try #require(lines.first { $0.hasPrefix("accepted ") }.flatMap { Int($0.dropFirst("accepted ".count)) }, "\(name): \(lines.suffix(5))")
            let done = Self.doneLines(log)
            // Each record it had taken got one done: handled (with its own report line), or given back.
            #expect(done.count == accepted, "\(name): \(done.count) done for \(accepted) accepted")
            #expect(Set(done.map(\.number)).count == done.count, "\(name): a done twice")
            #expect(done.allSatisfy { $0.result == "retry" || ($0.result == "done" && $0.line == "ok") }, "\(name): \(done.filter { $0.result != "done" }.prefix(3))")
            reported += done.filter { $0.result == "done" }.count
        }
        // A report line for each record handled, none for one given back.
        #expect(report.count == reported, "\(report.count) lines for \(reported) records handled")
        let numbers = report.compactMap { ($0["source"] as? [String: Any])?["record"] as? Int }
        #expect(Set(numbers).count == numbers.count, "a record reported twice")
    }

    /// `done N RESULT ok|other` lines of a burst log.
    static func doneLines(_ log: String) -> [(number: Int, result: String, line: String)] {
        lines(log).compactMap { line in
            let words = line.split(separator: " ")
            guard words.count == 4, words[0] == "done", let number = Int(words[1]) else { return nil }
            return (number, String(words[2]), String(words[3]))
        }
    }

    static func lines(_ log: String) -> [String] {
        ((try? String(contentsOfFile: log, encoding: .utf8)) ?? "").split(separator: "\n").map(String.init)
    }
}
