import Foundation
import Testing

/// Issue 52: a stage calls a plugin's handlers through one port, whichever
/// way the plugin runs (in the host, or in a worker). The same plugins fed
/// the same records therefore give the same report, line for line, and
/// their UI handlers are called in the same order, wherever each runs:
/// every plugin in the host, every one in a worker, and a mix of both.
@Suite struct PortContractTests {
    /// Where the plugins run.
    enum Placement: String, CaseIterable, CustomTestStringConvertible {
        case host
        case workers
        /// The data plugin and one background plugin in the host; the other
        /// background plugin, the screen and the token plugin in workers.
        case mixed

        var flags: [String] {
            switch self {
            case .host: []
            case .workers: ["--isolate", "all"]
            case .mixed: ["--isolate", "bg2", "--isolate", "screen", "--isolate", "tok"]
            }
        }

        var testDescription: String { rawValue }
    }

    /// Verdicts now and later, every route, host events between messages,
    /// a verdict that is none, and one that never comes.
    static let input = ndjson(
        #"{"message_id":"m1","data":{}}"#,
        #"{"message_id":"m2","data":{"verdict":"suppress"}}"#,
        #"{"message_id":"m3","data":{"verdict":"failed"}}"#,
        #"{"message_id":"m4","data":{"verdict":"pending","then":"continue","delay_ms":"50"}}"#,
        #"{"message_id":"m5","data":{"verdict":"pending","then":"suppress","delay_ms":"20"}}"#,
        #"{"pushhost":"foreground","screens":["screen"]}"#,
        #"{"message_id":"m6","data":{"rx_gcm_key_target":"a"}}"#,
        #"{"message_id":"m7","data":{"rx_gcm_key_target":"elsewhere"}}"#,
        #"{"pushhost":"token","token":"T1"}"#,
        #"{"message_id":"m8","data":{"verdict":"bogus"}}"#,
        #"{"pushhost":"background"}"#,
        #"{"message_id":"m9","data":{"verdict":"pending-never"}}"#,
        #"{"message_id":"m10","data":{}}"#,
        #"{"pushhost":"token","token":"T2"}"#,
        #"{"message_id":"m11","data":{"rx_gcm_key_target":"a"}}"#)

    /// The report lines and the UI calls of one run, each plugin where `placement` puts it.
    static func run(_ placement: Placement) throws -> (report: [String], ui: [String], tokens: [String], exit: Int32) {
        let scratch = try Scratch()
        let plugins = try scratch.probe("d", [.data]) + scratch.probe("bg1", [.background]) + scratch.probe("bg2", [.background])
            + scratch.probe("screen", [.foreground], targets: ["a"]) + scratch.probe("tok", [.token])
        let result = try scratch.run(plugins + placement.flags + ["--data-timeout", "1"], stdin: input)
        let report = result.stdout.split(separator: "\n").map(String.init)
        let calls = scratch.probeLines()
        let ui = calls.filter { ["background", "target", "mismatch"].contains($0.event) }.map { "\($0.name) \($0.event) \($0.id)" }
        let tokens = calls.filter { $0.event == "token" }.map(\.text)
        return (report, ui, tokens, result.status)
    }

    @Test(arguments: Placement.allCases)
    func theSameRecordsGiveTheSameReportWhereverThePluginsRun(_ placement: Placement) throws {
        let expected = try Self.run(.host)
        let run = placement == .host ? expected : try Self.run(placement)
        #expect(run.exit == 0)
        #expect(run.report == expected.report)
        #expect(run.ui == expected.ui)
        #expect(run.tokens == expected.tokens)
        // What the host's report says, so that equal reports cannot both be wrong.
        let statuses = expected.report.compactMap { line -> String? in
            guard let object = try? JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any] else { return nil }
            return "\(object["id"] ?? object["event"] ?? "?") \(object["status"] ?? "?")"
        }
        #expect(statuses == [
            "m1 delivered", "m2 suppressed", "m3 failed", "m4 delivered", "m5 suppressed", "foreground applied", "m6 delivered",
            "m7 delivered", "token stored", "m8 failed", "background applied", "m9 failed", "m10 delivered", "token stored", "m11 delivered",
        ])
        #expect(expected.ui == [
            "bg1 background m1", "bg2 background m1", "bg1 background m4", "bg2 background m4", "screen target m6", "screen mismatch m7",
            "bg1 background m10", "bg2 background m10", "bg1 background m11", "bg2 background m11",
        ])
    }
}
