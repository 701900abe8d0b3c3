import Foundation
import Testing

/// More files than the kernel's inotify queue holds: after IN_Q_OVERFLOW the
/// host rescans new/, and still handles every file exactly once in the run.
@Suite struct OverflowTests {
    @Test func overflowedQueueStillHandlesEveryFileOnce() throws {
        let limitText = try String(contentsOfFile: "/proc/sys/fs/inotify/max_queued_events", encoding: .utf8)
        let limit = try #require(Int(limitText.trimmingCharacters(in: .whitespacesAndNewlines)), "\(limitText)")
        let scratch = try Scratch()
        let spool = scratch.spool
        let hold = try scratch.write("hold", "")
        let plugins = try scratch.probe("bg", [.background])
        let host = try scratch.startWatching(plugins, environment: ["PUSHHOST_TEST_HOLD_WATCH": hold])

        // The watcher reads nothing while the hold file exists: the queue overflows.
        let names = (0..<(limit + 500)).map { String(format: "over-%06d", $0) }
        try spool.dropMany(names) { #"{"data":{"n":"\#($0)"}}"# }
        try FileManager.default.removeItem(atPath: hold)
        let drained = eventually(timeout: .seconds(60), every: .milliseconds(50)) {
            spool.count("cur") == names.count
        }
        try #require(drained, "cur/ holds \(spool.count("cur")) of \(names.count)\n\(host.stderr.suffix(2000))")
        let exit = host.stop()
        #expect(exit == .status(0), "\(host.stderr.suffix(2000))")

        #expect(host.stderr.contains("overflowed"), "\(host.stderr.suffix(2000))")
        #expect(host.stderr.contains("rescanning"), "\(host.stderr.suffix(2000))")
        #expect(spool.count("new") == 0)
        #expect(spool.count("failed") == 0)
        let allInCur = spool.names("cur") == names
        #expect(allInCur, "cur/ differs from the files dropped")
        // Exactly once: one handler call and one report line per file.
        let seen = scratch.probeLines().filter { $0.event == "background" }.map(\.id)
        let reported = try scratch.reportLines().compactMap(\.sourceFile)
        for (what, ids) in [("handler calls", seen), ("report lines", reported)] {
            let counts = Dictionary(ids.map { ($0, 1) }, uniquingKeysWith: +)
            let twice = counts.filter { $0.value > 1 }.keys.sorted()
            let missing = names.filter { counts[$0] == nil }
            #expect(ids.count == names.count, "\(what): \(ids.count) for \(names.count) files")
            #expect(twice.isEmpty, "\(what): \(twice.count) more than once, e.g. \(twice.prefix(5))")
            #expect(missing.isEmpty, "\(what): \(missing.count) missing, e.g. \(missing.prefix(5))")
        }
    }
}
