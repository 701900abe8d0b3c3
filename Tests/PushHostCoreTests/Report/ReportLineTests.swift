import Foundation
import Testing
@testable import PushHostIsolation
@testable import PushHostPipeline
@testable import PushHostPlugins
@testable import PushHostJSON
@testable import PushHostMessage
@testable import PushHostRecords
@testable import PushHostSystem

/// Each kind of report line, written for given inputs: the exact JSON text,
/// and hostile strings (quotes, backslashes, control characters, line
/// breaks, a spool file's name) escaped so that the line stays one valid
/// JSON object that says what came in.
@Suite("Report lines: exact text and escaping")
struct ReportLineTests {
    /// The line `line` writes, without its newline.
    static func text(_ line: some ReportLine) -> String {
        var buffer = ByteBuffer()
        var json = JSONLine(appendingTo: &buffer)
        line.write(into: &json)
        let closed = json.closed()
        return String(decoding: closed.bytes, as: UTF8.self)
    }

    /// The line parsed back, to check that it is one JSON object.
    static func object(_ text: String) -> [String: Any]? {
        (try? JSONSerialization.jsonObject(with: Data(text.utf8))) as? [String: Any]
    }

    // MARK: Message lines

    struct MessageCase: CustomTestStringConvertible, Sendable {
        let name: String
        let payload: String
        let source: RecordSource
        /// The verdicts of the data plugins `data-a`, `data-b` that ran.
        let verdicts: [Verdict]
        let status: Status
        let route: Route
        let ui: [String]
        let problem: String?
        /// An interceptor's stop: suppressed or not, by, reason.
        let stop: (suppressed: Bool, by: String, reason: String?)?
        let expected: String
        var testDescription: String { name }
    }

    static let messageCases: [MessageCase] = [
        MessageCase(
            name: "delivered to a screen, both data verdicts", payload: #"{"message_id":"m-1","data":{"k":"v","rx_gcm_key_target":"issues"}}"#,
            source: .stdin(line: 7), verdicts: [.continue, .continue], status: .delivered, route: .target(screen: 0), ui: ["issues"], problem: nil,
            stop: nil,
            expected: #"{"id":"m-1","target":"issues","status":"delivered","route":"target","data":[{"plugin":"data-a","verdict":"continue"},{"plugin":"data-b","verdict":"continue"}],"ui":["issues"],"error":null,"source":{"kind":"stdin","line":7}}"#),
        MessageCase(
            name: "no id: the source's default id, a spool file with a line", payload: #"{"data":{"k":"v"}}"#,
            source: .spool(file: "batch.ndjson", line: 3), verdicts: [.suppress], status: .suppressed, route: .none, ui: [], problem: nil,
            stop: nil,
            expected: #"{"id":"batch.ndjson#3","target":null,"status":"suppressed","route":"none","data":[{"plugin":"data-a","verdict":"suppress"}],"ui":[],"error":null,"source":{"kind":"spool","file":"batch.ndjson","line":3}}"#),
        MessageCase(
            name: "a failed verdict, its error holding a quote and a line break", payload: #"{"message_id":"m-2","data":{}}"#,
            source: .plugin(name: "fifo-source", record: 2), verdicts: [.failed], status: .failed, route: .none, ui: [],
            problem: "data-a said \"no\"\nfake line", stop: nil,
            expected: #"{"id":"m-2","target":null,"status":"failed","route":"none","data":[{"plugin":"data-a","verdict":"failed"}],"ui":[],"error":"data-a said \"no\"\nfake line","source":{"kind":"plugin","plugin":"fifo-source","record":2}}"#),
        MessageCase(
            name: "hostile id and target keep their escapes", payload: #"{"message_id":"a\"b\\c\n\u0001\u2028","data":{"rx_gcm_key_target":"x\"},\"status\":\"delivered"}}"#,
            source: .stdin(line: 1), verdicts: [], status: .undelivered, route: .none, ui: [], problem: nil, stop: nil,
            expected: #"{"id":"a\"b\\c\n\u0001\u2028","target":"x\"},\"status\":\"delivered","status":"undelivered","route":"none","data":[],"ui":[],"error":null,"source":{"kind":"stdin","line":1}}"#),
        MessageCase(
            name: "a number id is written as a string", payload: #"{"message_id":42,"data":{}}"#,
            source: .stdin(line: 2), verdicts: [], status: .undelivered, route: .none, ui: [], problem: nil, stop: nil,
            expected: #"{"id":"42","target":null,"status":"undelivered","route":"none","data":[],"ui":[],"error":null,"source":{"kind":"stdin","line":2}}"#),
        MessageCase(
            name: "suppressed by an interceptor: by and reason", payload: #"{"message_id":"m-3","data":{}}"#,
            source: .stdin(line: 4), verdicts: [], status: .suppressed, route: .none, ui: [], problem: nil,
            stop: (true, "dedupe", "seen \"m-3\"\tbefore"),
            expected: #"{"id":"m-3","target":null,"status":"suppressed","route":"none","data":[],"ui":[],"by":"dedupe","reason":"seen \"m-3\"\tbefore","error":null,"source":{"kind":"stdin","line":4}}"#),
        MessageCase(
            name: "failed by an interceptor: by, no reason, the error says why", payload: #"{"message_id":"m-4","data":{}}"#,
            source: .stdin(line: 5), verdicts: [], status: .failed, route: .none, ui: [], problem: "dedupe broke \\ the chain",
            stop: (false, "dedupe", "ignored here"),
            expected: #"{"id":"m-4","target":null,"status":"failed","route":"none","data":[],"ui":[],"by":"dedupe","error":"dedupe broke \\ the chain","source":{"kind":"stdin","line":5}}"#),
        MessageCase(
            name: "a hostile spool file name in the default id and the source", payload: #"{"data":{}}"#,
            source: .spool(file: "evil\"\n\u{7F}é.json", line: nil), verdicts: [.continue], status: .delivered, route: .background,
            ui: ["shelf", "log"], problem: nil, stop: nil,
            expected: "{\"id\":\"evil\\\"\\n\u{7F}é.json\",\"target\":null,\"status\":\"delivered\",\"route\":\"background\",\"data\":[{\"plugin\":\"data-a\",\"verdict\":\"continue\"}],\"ui\":[\"shelf\",\"log\"],\"error\":null,\"source\":{\"kind\":\"spool\",\"file\":\"evil\\\"\\n\u{7F}é.json\"}}"),
    ]

    @Test("message lines", arguments: messageCases)
    func messageLine(_ item: MessageCase) throws {
        let input = Array(item.payload.utf8)
        let key = Array(RunOptions().targetKey.utf8)
        let text = try input.withUnsafeBytes { bytes in
            var reader = JSONReader()
            let document = try reader.parse(bytes)
            let flight = InFlight(dataPlugins: 2)
            key.withUnsafeBytes { key in
                flight.message.load(document, members: RootMembers(document.root), source: item.source, platform: nil, targetKey: key)
            }
            defer { flight.message.reset() }
            for verdict in item.verdicts { flight.record(verdict) }
            if let stop = item.stop {
                flight.interception.stop = InterceptorStop(effect: stop.suppressed ? .suppressed : .failed, by: stop.by, reason: stop.reason)
            }
            return Self.text(MessageLine(
                flight: flight, status: item.status, route: item.route, names: ReportNames(data: ["data-a", "data-b"]),
                ui: ReportNames.array(item.ui), problem: item.problem))
        }
        #expect(text == item.expected)
        #expect(Self.object(text) != nil, "not one JSON object: \(text)")
    }

    // MARK: Event lines

    @Test("event lines", arguments: [
        (EventLine(event: .background, status: .applied, source: .stdin(line: 3)),
         #"{"event":"background","status":"applied","source":{"kind":"stdin","line":3}}"#),
        (EventLine(event: .foreground(screens: ["issues", "a\"b\n"]), status: .applied, source: .spool(file: "fg.json", line: nil)),
         #"{"event":"foreground","status":"applied","screens":["issues","a\"b\n"],"source":{"kind":"spool","file":"fg.json"}}"#),
        (EventLine(event: .token(TokenEvent(token: "T")), status: .unchanged, source: .plugin(name: "up", record: 9)),
         #"{"event":"token","status":"unchanged","source":{"kind":"plugin","plugin":"up","record":9}}"#),
        (EventLine(event: .token(TokenEvent(token: "T")), status: .failed("state/token: No space left\non device \"x\""), source: .stdin(line: 1)),
         #"{"event":"token","status":"failed","error":"state/token: No space left\non device \"x\"","source":{"kind":"stdin","line":1}}"#),
    ])
    func eventLine(_ line: EventLine, _ expected: String) {
        #expect(Self.text(line) == expected)
        #expect(Self.object(expected) != nil)
    }

    @Test("only a failed event has a problem")
    func eventProblem() {
        #expect(EventLine(event: .background, status: .applied, source: .stdin(line: 1)).problem == nil)
        #expect(EventLine(event: .background, status: .failed("why"), source: .stdin(line: 1)).problem == "why")
    }

    // MARK: Rejected, failed and skipped lines

    @Test("rejected lines", arguments: [
        (RejectedLine(error: RecordError(offset: 12, reason: "trailing comma"), source: .stdin(line: 2)),
         #"{"id":null,"target":null,"status":"rejected","route":"none","data":[],"ui":[],"error":"byte 12: trailing comma","source":{"kind":"stdin","line":2}}"#),
        (RejectedLine(error: RecordError(event: .foreground, reason: #"no screen plugin is named "x\" (none is loaded)"#), source: .stdin(line: 3)),
         #"{"event":"foreground","status":"rejected","error":"no screen plugin is named \"x\\\" (none is loaded)","source":{"kind":"stdin","line":3}}"#),
        (RejectedLine(error: .tooLong(100), source: .spool(file: "big.json", line: nil)),
         #"{"id":null,"target":null,"status":"rejected","route":"none","data":[],"ui":[],"error":"byte 100: longer than --max-bytes 100","source":{"kind":"spool","file":"big.json"}}"#),
        (RejectedLine(error: RecordError(reason: "not a regular file:\u{1B}[31m red"), source: .spool(file: "fifo\u{0}", line: nil)),
         #"{"id":null,"target":null,"status":"rejected","route":"none","data":[],"ui":[],"error":"not a regular file:\u001b[31m red","source":{"kind":"spool","file":"fifo\u0000"}}"#),
    ])
    func rejectedLine(_ line: RejectedLine, _ expected: String) {
        #expect(Self.text(line) == expected)
        #expect(line.problem == line.error.text)
        #expect(Self.object(expected) != nil)
    }

    @Test("failed lines: the source's default id, status failed, the reason")
    func failedLine() {
        let line = FailedLine(reason: "crashed the host 3 times (--crash-limit 3)\r\n\"x\"", source: .spool(file: "p\\q.json", line: 4))
        let expected = #"{"id":"p\\q.json#4","target":null,"status":"failed","route":"none","data":[],"ui":[],"error":"crashed the host 3 times (--crash-limit 3)\r\n\"x\"","source":{"kind":"spool","file":"p\\q.json","line":4}}"#
        #expect(Self.text(line) == expected)
        #expect(line.problem == line.reason)
        #expect(Self.object(expected) != nil)
    }

    @Test("skipped lines, one per ntfy event", arguments: [
        (NtfyEvent.open, #"{"event":"ntfy","status":"skipped","ntfy_event":"open","source":{"kind":"stdin","line":1}}"#),
        (.keepalive, #"{"event":"ntfy","status":"skipped","ntfy_event":"keepalive","source":{"kind":"stdin","line":1}}"#),
        (.pollRequest, #"{"event":"ntfy","status":"skipped","ntfy_event":"poll_request","source":{"kind":"stdin","line":1}}"#),
    ])
    func skippedLine(_ event: NtfyEvent, _ expected: String) {
        let line = SkippedLine(event: event, source: .stdin(line: 1))
        #expect(Self.text(line) == expected)
        #expect(line.problem == nil)
    }
}
