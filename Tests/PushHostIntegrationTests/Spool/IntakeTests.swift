import Foundation
import Testing

/// Which spool files the host takes, in what order, and as which records.
@Suite struct IntakeTests {
    /// The background probe `bg`, which logs each message with its normalized JSON.
    static func plugins(_ scratch: Scratch) throws -> [String] {
        try scratch.probe("bg", [.background], settings: ["json": "true"])
    }

    /// The ids the background probe saw, in order.
    static func seen(_ scratch: Scratch) -> [String] {
        scratch.probeLines().filter { $0.event == "background" }.map(\.id)
    }

    /// Waits until `cur/` holds `names`.
    static func waitForCur(_ scratch: Scratch, _ names: [String], host: HostProcess) throws {
        let done = eventually(timeout: .seconds(20)) { Set(names).isSubset(of: scratch.spool.names("cur")) }
        try #require(done, "cur/ holds \(scratch.spool.names("cur")), not \(names)\n\(host.stderr)")
    }

    /// Stops the host with SIGTERM and expects exit 0.
    static func stop(_ host: HostProcess) {
        let exit = host.stop()
        #expect(exit == .status(0), "\(host.stderr)")
    }

    @Test func filesPresentAtStartGoOldestFirstThenByName() throws {
        let scratch = try Scratch()
        let spool = scratch.spool
        try spool.create()
        let base = Date(timeIntervalSince1970: 1_700_000_000)
        // Name order a, b, c, d; age order b, then c and d (same time, so by name), then a.
        let ages: [(String, TimeInterval)] = [("a", 30), ("b", 0), ("c", 10), ("d", 10)]
        for (name, offset) in ages {
            try spool.drop(name, #"{"data":{"n":"\#(name)"}}"#)
            try spool.setModified(name, base + offset)
        }
        let host = try scratch.startWatching(try Self.plugins(scratch))
        try Self.waitForCur(scratch, ["a", "b", "c", "d"], host: host)
        Self.stop(host)
        #expect(Self.seen(scratch) == ["b", "c", "d", "a"])
        #expect(try scratch.reportLines().map { $0["id"] as? String } == ["b", "c", "d", "a"])
        #expect(spool.names("new").isEmpty)
        #expect(spool.names("failed").isEmpty)
    }

    @Test func filesArrivingWhileRunningAreTakenWithTheirSource() throws {
        let scratch = try Scratch()
        let spool = scratch.spool
        let host = try scratch.startWatching(try Self.plugins(scratch))
        // A producer using `pushhost send`, then one renaming from tmp/ by hand.
        let payload = try scratch.write("payload.json", #"{"data":{"via":"send"}}"#)
        let sent = try Command.pushhost(["send", "--to", spool.path, payload])
        try #require(sent.status == 0, "\(sent.stderr)")
        let path = sent.stdout.trimmingCharacters(in: .newlines)
        #expect(path.hasPrefix(spool.folder("new") + "/"))
        let sentName = (path as NSString).lastPathComponent
        try Self.waitForCur(scratch, [sentName], host: host)
        try spool.drop("renamed.json", #"{"data":{"via":"rename"}}"#)
        try Self.waitForCur(scratch, [sentName, "renamed.json"], host: host)
        Self.stop(host)

        let lines = scratch.probeLines().filter { $0.event == "background" }
        try #require(lines.count == 2, "\(lines)")
        for (line, (name, via)) in zip(lines, [(sentName, "send"), ("renamed.json", "rename")]) {
            #expect(line.id == name)
            let message = try line.json()
            #expect(message["id"] as? String == name)
            #expect(message["source"] as? [String: String] == ["kind": "spool", "file": name])
            #expect(message["data"] as? [String: String] == ["via": via])
        }
        let report = try scratch.reportLines()
        #expect(report.map { $0["id"] as? String } == [sentName, "renamed.json"])
        #expect(report.map { $0["status"] as? String } == ["delivered", "delivered"])
        #expect(report.map { $0["source"] as? [String: String] } == [
            ["kind": "spool", "file": sentName], ["kind": "spool", "file": "renamed.json"],
        ])
        #expect(spool.names("new").isEmpty)
        #expect(spool.names("tmp").isEmpty)
    }

    @Test func multiRecordFileGivesNumberedIds() throws {
        let scratch = try Scratch()
        let spool = scratch.spool
        let host = try scratch.startWatching(try Self.plugins(scratch))
        try spool.drop("batch", ndjson(#"{"data":{"n":"1"}}"#, "", #"{"data":{"n":"2"}}"#))
        try Self.waitForCur(scratch, ["batch"], host: host)
        Self.stop(host)
        // Ids and sources name each record's line (the blank line counts).
        #expect(Self.seen(scratch) == ["batch#1", "batch#3"])
        let messages = try scratch.probeLines().filter { $0.event == "background" }.map { try $0.json() }
        let sources = messages.map { $0["source"] as? [String: Any] ?? [:] }
        #expect(sources.map { $0["kind"] as? String } == ["spool", "spool"])
        #expect(sources.map { $0["file"] as? String } == ["batch", "batch"])
        #expect(sources.map { $0["line"] as? Int } == [1, 3])
        #expect(messages.map { ($0["data"] as? [String: String])?["n"] } == ["1", "2"])
        let report = try scratch.reportLines()
        #expect(report.map { $0["id"] as? String } == ["batch#1", "batch#3"])
        #expect(report.map { $0["status"] as? String } == ["delivered", "delivered"])
        #expect(report.map(\.sourceLine) == [1, 3])
        #expect(spool.failedFiles.isEmpty)
    }

    @Test func oneObjectOverSeveralLinesIsOneRecord() throws {
        let scratch = try Scratch()
        let spool = scratch.spool
        let host = try scratch.startWatching(try Self.plugins(scratch))
        try spool.drop("pretty.json", """
            {
              "notification": {
                "title": "Hello",
                "body": "over several lines"
              },
              "data": {"k": "v"}
            }

            """)
        try Self.waitForCur(scratch, ["pretty.json"], host: host)
        Self.stop(host)
        let lines = scratch.probeLines().filter { $0.event == "background" }
        try #require(lines.count == 1, "\(lines)")
        let message = try lines[0].json()
        #expect(message["id"] as? String == "pretty.json")
        #expect(message["source"] as? [String: String] == ["kind": "spool", "file": "pretty.json"])
        #expect((message["notification"] as? [String: Any])?["title"] as? String == "Hello")
        #expect(message["data"] as? [String: String] == ["k": "v"])
        let report = try scratch.reportLines()
        #expect(report.count == 1)
        #expect(report.first?["status"] as? String == "delivered")
        #expect(spool.failedFiles.isEmpty)
    }

    /// Hidden files and files in tmp/ are never read, whether they were there
    /// at start or arrived while running.
    @Test func hiddenFilesAndTmpAreLeftAlone() throws {
        let scratch = try Scratch()
        let spool = scratch.spool
        try spool.create()
        let payload = #"{"data":{"k":"v"}}"#
        try payload.write(toFile: spool.folder("new") + "/.early", atomically: false, encoding: .utf8)
        try payload.write(toFile: spool.folder("tmp") + "/writing", atomically: false, encoding: .utf8)
        try spool.drop("first", payload)
        let host = try scratch.startWatching(try Self.plugins(scratch))
        try Self.waitForCur(scratch, ["first"], host: host)
        try spool.drop(".late", payload)
        try payload.write(toFile: spool.folder("tmp") + "/later", atomically: false, encoding: .utf8)
        // A file renamed in after them: once it is handled, they were seen and passed over.
        try spool.drop("last", payload)
        try Self.waitForCur(scratch, ["first", "last"], host: host)
        Self.stop(host)
        #expect(Self.seen(scratch) == ["first", "last"])
        #expect(spool.names("new") == [".early", ".late"])
        #expect(spool.names("tmp") == ["later", "writing"])
        #expect(spool.names("cur") == ["first", "last"])
        #expect(spool.names("failed").isEmpty)
        #expect(try scratch.reportLines().map { $0["id"] as? String } == ["first", "last"])
    }
}
