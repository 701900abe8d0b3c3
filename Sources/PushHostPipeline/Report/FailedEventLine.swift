import PushHostSystem
import PushHostJSON
import PushHostRecords

/// The line of a host event whose handler the host gave up on (the watchdog
/// ended the run in its `on_token` or `on_action`), from what the crash
/// journal knows of it: shaped as a failed event's line,
/// `{"event","status":"failed","error","source"}`.
struct FailedEventLine: ReportLine {
    let kind: HostEvent.Kind
    let reason: String
    let source: RecordSource

    var problem: String? { reason }

    func write(into line: inout JSONLine<ByteBuffer>) {
        line.string("event", kind.rawValue)
        line.string("status", Status.failed.rawValue)
        line.string("error", reason)
        line.key("source")
        source.appendJSON(to: &line.bytes)
    }
}
