import PushHostSystem
import PushHostJSON
import PushHostRecords
import PushHostMessage

/// The line of an ntfy stream's own event (see ``NtfyEvent``), which is not
/// a message: `{"event":"ntfy","status":"skipped","ntfy_event","source"}`.
///
/// ```
/// {"event":"ntfy","status":"skipped","ntfy_event":"keepalive","source":{"kind":"stdin","line":2}}
/// ```
struct SkippedLine: ReportLine {
    let event: NtfyEvent
    let source: RecordSource

    var problem: String? { nil }

    func write(into line: inout JSONLine<ByteBuffer>) {
        line.string("event", MessageFormat.ntfy.rawValue)
        line.string("status", Status.skipped.rawValue)
        line.string("ntfy_event", event.rawValue)
        line.key("source")
        source.appendJSON(to: &line.bytes)
    }
}
