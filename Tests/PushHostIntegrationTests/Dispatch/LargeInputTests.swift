import Foundation
import Testing

/// Standard input is read and parsed in blocks of 64 KiB passed around a
/// ring of four, on a thread of its own after the first MiB: these inputs
/// span many blocks, so lines straddle blocks, the ring wraps, reading
/// moves to its thread midway, and messages outlive their block.
@Suite struct LargeInputTests {
    static let targets = ["issues", "supplies", "orders", "alerts", "chat"]

    /// Message `index` (from 1): its target cycles through `targets`, and a
    /// padding of varying length makes lines straddle block boundaries.
    static func message(_ index: Int, verdict: String = "continue") -> String {
        let pad = String(repeating: "x", count: index * 37 % 400)
        let target = targets[index % targets.count]
        return #"{"message_id":"m\#(index)","data":{"rx_gcm_key_target":"\#(target)","verdict":"\#(verdict)","delay_ms":"30","pad":"\#(pad)"}}"#
    }

    /// 12,000 messages (about 3 MB, some fifty blocks); every thousandth one's
    /// data stage is pending for 30 ms, so the messages behind it wait while
    /// their blocks go back to the reader and are filled again.
    @Test func everyMessageKeepsItsPlaceAndItsBytesAcrossBlocks() throws {
        let scratch = try Scratch()
        let plugins = try scratch.probe("d", [.data]) + scratch.probe("bg", [.background])
        let count = 12_000
        let lines = (1...count).map { Self.message($0, verdict: $0 % 1000 == 0 ? "pending" : "continue") }
        let result = try scratch.run(plugins, stdin: lines.joined(separator: "\n") + "\n")
        #expect(result.status == 0, "\(result.stderr)")

        let report = try result.report()
        try #require(report.count == count)
        for (offset, line) in report.enumerated() {
            let index = offset + 1
            let expected: [String?] = ["m\(index)", Self.targets[index % Self.targets.count], "delivered"]
            let found = [line["id"] as? String, line["target"] as? String, line["status"] as? String]
            guard found == expected else {
                Issue.record("report line \(index): \(found), expected \(expected)")
                return
            }
            #expect((line["source"] as? [String: Any])?["line"] as? Int == index)
        }
        let delivered = scratch.probeLines().filter { $0.event == "background" }.map { "\($0.id) \($0.target)" }
        #expect(delivered == (1...count).map { "m\($0) \(Self.targets[$0 % Self.targets.count])" })
    }

    /// Lines over `--max-bytes`, one of them longer than a whole block, are
    /// rejected by their numbers, and the lines around them are delivered.
    @Test func tooLongLinesAcrossBlocksAreRejectedByNumber() throws {
        let scratch = try Scratch()
        let plugins = try scratch.probe("bg", [.background])
        let long = #"{"data":{"pad":""# + String(repeating: "y", count: 300_000) + #""}}"#
        let longer = #"{"data":{"pad":""# + String(repeating: "z", count: 70_000) + #""}}"#
        var lines = (1...2_000).map { Self.message($0) }
        lines[9] = long
        lines[10] = longer
        lines[1_500] = long
        let result = try scratch.run(plugins, stdin: lines.joined(separator: "\r\n"))
        #expect(result.status == 0, "\(result.stderr)")

        let report = try result.report()
        try #require(report.count == lines.count)
        let rejected = report.indices.filter { report[$0]["status"] as? String == "rejected" }.map { $0 + 1 }
        #expect(rejected == [10, 11, 1_501])
        #expect(report[9]["error"] as? String == "byte 65536: longer than --max-bytes 65536")
        #expect(result.errorLines.filter { $0.contains("rejected") } == [10, 11, 1_501].map {
            "error pushhost: rejected line \($0), byte 65536: longer than --max-bytes 65536"
        })
        #expect(report[11]["id"] as? String == "m12")
        #expect(report.last?["id"] as? String == "m2000")
        #expect(scratch.probeCalls().count == lines.count - 3)
    }

    /// A producer that writes a line in two parts, and waits for the report
    /// of the line before: each record is dispatched as soon as its line is
    /// whole, not when a block fills.
    @Test func aSlowProducerIsServedLineByLine() throws {
        let scratch = try Scratch()
        let plugins = try scratch.probe("bg", [.background])
        let report = scratch.file("report.ndjson")
        let script = ShellScript.waitFor + #"""
            {
              printf '%s\n' '{"message_id":"first","data":{"rx_gcm_key_target":"a"}}'
              wait_for '"first"' "$REPORT" "no report line for the first message"
              printf '%s' '{"message_id":"second","data":{"rx_gc'
              sleep 0.2
              printf '%s' 'm_key_target":"b"}}'
            } | "$PUSHHOST" run --state "$STATE" --report "$REPORT" "$@"
            """#
        let result = try Command.run(
            "/bin/sh", ["-c", script, "sh"] + plugins,
            environment: ["PUSHHOST": Paths.pushhost, "STATE": scratch.file("state"), "REPORT": report])
        #expect(result.status == 0, "\(result.stderr)")
        #expect(!result.stderr.contains("no report line"), "\(result.stderr)")
        #expect(scratch.probeCalls() == ["bg background first", "bg background second"])
        let targets = scratch.read("report.ndjson").split(separator: "\n").map { line in
            (try? JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])?["target"] as? String
        }
        #expect(targets == ["a", "b"])
    }
}
