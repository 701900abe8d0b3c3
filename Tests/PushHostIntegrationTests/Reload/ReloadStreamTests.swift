import Foundation
import Testing

/// SIGHUP while spool files stream in at a steady rate: a plugin replaced
/// by a version that behaves otherwise (it suppresses), one added, one
/// removed, a settings file changed, and a reload that changes nothing.
/// Every record gets one report line, none is lost or doubled, and the
/// calls of each record are all of one generation of the plugins (the
/// plugins write what they saw); the data verdicts pending at each reload
/// arrive. In the host, and with every plugin in a worker.
@Suite struct ReloadStreamTests {
    /// Each generation's data plugins, as their calls name them (`NAME VERSION TAG`).
    static let generations: [Set<String>] = [
        ["one 1 -", "two 1 -"],
        ["one 2 -", "two 1 -", "three 1 -"],
        ["one 2 -", "three 1 -"],
        ["one 2 blue", "three 1 -"],
    ]

    @Test(arguments: [false, true])
    func everyRecordMeetsOneGeneration(isolated: Bool) throws {
        let scratch = try Scratch()
        let folder = try PluginFolder(scratch)
        let spool = scratch.spool
        try spool.create()
        try folder.install("one", version: "1")
        // Every data call of two waits 3 ms for its verdict: some are pending at each reload.
        try folder.install("two", version: "1", settings: ["pending_ms": "3"])
        let host = try scratch.startWatching(["--plugins", folder.path] + (isolated ? ["--isolate", "all"] : []))

        // About 2,000 files a second, from a thread of their own.
        let names = (0..<4000).map { String(format: "r-%05d", $0) }
        let producer = Producer(spool: spool, names: names)
        producer.start()
        var reloads = 0
        func reload(_ change: () throws -> Void) throws {
            usleep(300_000)
            try change()
            host.send(SIGHUP)
            reloads += 1
            let done = eventually(timeout: .seconds(20)) { host.stderr.components(separatedBy: "reloaded: ").count - 1 == reloads }
            try #require(done, "reload \(reloads) did not end:\n\(host.stderr)")
        }
        try reload {
            try folder.install("one", version: "2", defines: ["SUPPRESS"])
            try folder.install("three", version: "1")
        }
        try reload { try folder.remove("two") }
        try reload { try folder.configure("one", ["tag": "blue"]) }
        try reload {}
        producer.wait()
        let handled = eventually(timeout: .seconds(60)) { spool.count("new") == 0 && (try? scratch.reportLines().count) == names.count }
        try #require(handled, "\(spool.count("new")) files left in new/:\n\(host.stderr)")
        #expect(host.stop() == .status(0), "\(host.stderr)")

        let log = host.stderr
        #expect(log.contains("reloaded: added three, changed one (file), unchanged 1"), "\(log)")
        #expect(log.contains("reloaded: removed two, unchanged 2"), "\(log)")
        #expect(log.contains("reloaded: changed one (settings), unchanged 1"), "\(log)")
        #expect(log.contains("reloaded: nothing changed, unchanged 2"), "\(log)")
        #expect(!log.contains("refused"), "\(log)")

        // One report line a record, none twice, none failed.
        let report = try scratch.reportLines()
        let files = report.compactMap(\.sourceFile)
        #expect(files.count == names.count)
        #expect(Set(files) == Set(names))
        #expect(report.allSatisfy { ["delivered", "suppressed"].contains($0["status"] as? String) }, "\(report.filter { $0["status"] as? String == "failed" }.prefix(3))")

        // Each record's calls are those of one generation: its data calls
        // are all of that generation's data plugins, and its background
        // calls (the first generation's only: one 2 suppresses) the same plugins'.
        let calls = Dictionary(grouping: folder.calls, by: \.id)
        var seen = Set<Int>()
        for line in report {
            let id = try #require(line["id"] as? String)
            let data = Set((calls[id] ?? []).filter { $0.handler == "data" }.map(\.instance))
            let background = Set((calls[id] ?? []).filter { $0.handler == "background" }.map(\.instance))
            let generation = try #require(Self.generations.firstIndex(of: data), "\(id): data calls of no one generation: \(data.sorted())")
            seen.insert(generation)
            #expect((calls[id] ?? []).filter { $0.handler == "data" }.count == data.count, "\(id): a data call twice")
            if generation == 0 {
                #expect(background == data, "\(id): background calls \(background.sorted()) against \(data.sorted())")
                #expect(line["status"] as? String == "delivered")
            } else {
                #expect(background.isEmpty, "\(id): \(background.sorted())")
                #expect(line["status"] as? String == "suppressed")
            }
        }
        // The stream met every generation: the reloads came while it flowed.
        #expect(seen == [0, 1, 2, 3], "\(seen.sorted())")
        // The plugins that went were destroyed, the others once, at the stop.
        let lifecycle = (try String(contentsOfFile: folder.log, encoding: .utf8)).split(separator: "\n").filter { $0.hasSuffix("create") || $0.hasSuffix("destroy") }
        #expect(lifecycle.filter { $0.hasSuffix("destroy") }.count == lifecycle.filter { $0.hasSuffix("create") }.count, "\(lifecycle)")
    }
}

/// Drops spool files at about 2,000 a second on a thread of its own.
final class Producer: @unchecked Sendable {
    private let spool: SpoolFolder
    private let names: [String]
    private let done = DispatchSemaphore(value: 0)
    private(set) var failure: Error?

    init(spool: SpoolFolder, names: [String]) {
        self.spool = spool
        self.names = names
    }

    func start() {
        Thread.detachNewThread { [self] in
            for start in stride(from: 0, to: names.count, by: 20) {
                do {
                    try spool.dropMany(Array(names[start..<min(start + 20, names.count)])) { #"{"message_id":"\#($0)","data":{"n":"\#($0)"}}"# }
                } catch {
                    failure = error
                    break
                }
                usleep(10_000)
            }
            done.signal()
        }
    }

    func wait() {
        done.wait()
    }
}
