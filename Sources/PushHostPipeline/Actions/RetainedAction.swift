import PushHostJSON
import PushHostRecords

/// An action waiting for its screen.
struct RetainedAction {
    let event: ActionEvent
    let target: String
    /// When it was taken in, in Unix seconds.
    let retainedAt: Double
    /// Where its action event came from.
    let source: RecordSource
    let message: StoredMessage
}

extension RetainedAction {
    init?(json root: JSONValue) {
        guard root.kind == .object,
            let event = try? ActionEvent(record: root),
            let target = root.member(named: "target"), target.kind == .string,
            let since = root.member(named: "retained_at"), since.kind == .number, let retainedAt = Double(since.text),
            let source = root.member(named: "source").flatMap(RecordSource.init(json:)),
            let message = root.member(named: "message"), message.kind == .object,
            let stored = StoredMessage(line: Array(message.rawBytes))
        else { return nil }
        self.init(event: event, target: target.text, retainedAt: retainedAt, source: source, message: stored)
    }

    func append(to bytes: inout [UInt8]) {
        var line = JSONLine(appendingTo: &bytes)
        line.string("id", event.id)
        line.string("action", event.action)
        line.string("input", event.input)
        line.string("target", target)
        line.key("retained_at")
        line.bytes.append(contentsOf: String(retainedAt).utf8)
        line.key("source")
        source.appendJSON(to: &line.bytes)
        line.key("message")
        line.bytes.append(contentsOf: message.line)
        bytes = line.finished()
    }
}
