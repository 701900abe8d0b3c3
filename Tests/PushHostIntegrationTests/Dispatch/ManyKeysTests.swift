import Foundation
import Testing

/// A message of a million keys (with `--max-bytes` raised) goes through the
/// data stage in bounded time: every step from the record to `message_json`
/// and `message_get(m, "data")` is linear in its size. These are hang
/// detectors, not timings: a quadratic step takes hours at this size.
@Suite struct ManyKeysTests {
    static let keyCount = 1_000_000
    /// Far beyond the time any linear pass over 15 MB takes, even unoptimized.
    static let patience = Duration.seconds(120)

    /// The data members `k0` ... `k(count-1)`, then `k0` again: the merged
    /// object keeps `k0` first, with its last value.
    static func data(_ count: Int) -> (record: String, merged: String) {
        var members = (0..<count).map { #""k\#($0)":"v\#($0)""# }
        members.append(#""k0":"last""#)
        let record = "{" + members.joined(separator: ",") + "}"
        members.removeLast()
        members[0] = #""k0":"last""#
        return (record, "{" + members.joined(separator: ",") + "}")
    }

    /// Runs `pushhost` on `input` (written from another thread) and waits at
    /// most `patience` for it to end.
    static func run(_ scratch: Scratch, _ arguments: [String], input: String) throws -> HostProcess.Exit? {
        signal(SIGPIPE, SIG_IGN)
        let feed = Pipe()
        let host = try HostProcess(
            ["run", "--state", scratch.file("state"), "--report", scratch.file("report.ndjson")] + arguments,
            errorPath: scratch.file("stderr.log"), input: feed)
        let writer = feed.fileHandleForWriting
        DispatchQueue.global().async {
            try? writer.write(contentsOf: Data(input.utf8))
            try? writer.close()
        }
        return host.waitForExit(timeout: patience)
    }

    /// `counter` (Tests/Fixtures/plugins/counter.c) writes, per message, the
    /// lengths of `message_json` and of `data`, the count of its keys, and
    /// `data.k1`.
    @Test func aMillionKeysThroughACPlugin() throws {
        let scratch = try Scratch()
        let plugin = try scratch.plugin("counter.so", PluginSource.fixture("counter"))
        let (data, merged) = Self.data(Self.keyCount)
        let input = ndjson(#"{"message_id":"big","data":\#(data)}"#, #"{"message_id":"small","data":{"k1":"one"}}"#)
        let exit = try Self.run(scratch, ["--plugin", plugin, "--set", "counter.log=\(scratch.file("counter.log"))",
                                          "--max-bytes", "100000000"], input: input)
        #expect(exit == .status(0), "still running after \(Self.patience), or failed: \(scratch.read("stderr.log"))")
        func length(_ id: String, _ data: String, line: Int) -> Int {
            let json = #"{"id":"\#(id)","target":null,"format":"gcm","priority":"normal","content_available":false,"notification":null,"data":"#
                + data + #","topic":null,"collapse_key":null,"source":{"kind":"stdin","line":\#(line)}}"#
            return json.utf8.count
        }
        let big = length("big", merged, line: 1), small = length("small", #"{"k1":"one"}"#, line: 2)
        #expect(scratch.read("counter.log").split(separator: "\n") == [
            #"big json=\#(big)/\#(big) data=\#(merged.utf8.count) keys=\#(Self.keyCount) k1=v1 first={"k0":"last""#,
            #"small json=\#(small)/\#(small) data=12 keys=1 k1=one first={"k1":"one"}"#,
        ])
        let report = try scratch.reportLines()
        #expect(report.map { $0["status"] as? String } == ["undelivered", "undelivered"])
    }

    /// The Swift SDK reads the whole message too (`message_json`, `data`,
    /// `notification`): inbox finds `silent` after a million other keys.
    @Test func aMillionKeysThroughASwiftPlugin() throws {
        let scratch = try Scratch()
        var members = (0..<Self.keyCount).map { #""k\#($0)":"v\#($0)""# }
        members.append(#""silent":"true""#)
        let input = ndjson(#"{"message_id":"big","data":{\#(members.joined(separator: ","))}}"#)
        let exit = try Self.run(scratch, loading(Paths.sample("inbox"), as: "inbox", ["path": scratch.file("inbox.txt"), "delay_ms": "0"])
                                    + ["--max-bytes", "100000000"], input: input)
        #expect(exit == .status(0), "still running after \(Self.patience), or failed: \(scratch.read("stderr.log"))")
        let report = try scratch.reportLines()
        #expect(report.map { $0["status"] as? String } == ["suppressed"])
        #expect(scratch.read("inbox.txt") == "big\t-\t-\n")
    }

    /// SIGTERM while a many-key message is under way: the host finishes it
    /// and stops promptly, without reading the rest.
    @Test func sigtermDuringManyKeyWorkStopsPromptly() throws {
        let scratch = try Scratch()
        let plugin = try scratch.plugin("counter.so", PluginSource.fixture("counter"))
        signal(SIGPIPE, SIG_IGN)  // The host stops reading: writes then fail with EPIPE.
        let feed = Pipe()
        let host = try HostProcess(
            ["run", "--state", scratch.file("state"), "--report", scratch.file("report.ndjson"), "--plugin", plugin,
             "--set", "counter.log=\(scratch.file("counter.log"))", "--max-bytes", "100000000"],
            errorPath: scratch.file("stderr.log"), input: feed)
        let record = #"{"message_id":"big","data":\#(Self.data(Self.keyCount).record)}"# + "\n"
        let writer = feed.fileHandleForWriting
        DispatchQueue.global().async {
            // Records keep coming until the host stops reading.
            for _ in 0..<20 { guard (try? writer.write(contentsOf: Data(record.utf8))) != nil else { break } }
            try? writer.close()
        }
        let started = eventually(timeout: Self.patience) { scratch.read("counter.log").contains("big json=") }
        #expect(started, "no message reached the plugin: \(host.stderr)")
        #expect(host.stop(timeout: Self.patience) == .status(0), "\(host.stderr)")
        #expect(try scratch.reportLines().count < 20)
    }
}
