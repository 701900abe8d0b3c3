import PushHostMessage

import PushHostSystem
import PushHostJSON
import PushHostRecords
import PushHostPlugins

/// One line of the report: what became of one record, as JSON.
protocol ReportLine {
    /// Why, when the record was rejected or failed.
    var problem: String? { get }
    /// Writes the line's members.
    func write(into line: inout JSONLine<ByteBuffer>)
}

/// A push message's line:
/// `{"id","target","status","route","data":[{"plugin","verdict"}],"ui":[...],"by","reason","error","source"}`,
/// `by` (and, for a suppressed message, `reason`) when an interceptor stopped
/// it; `reason` for an expired message.
struct MessageLine: ReportLine {
    let flight: InFlight
    let status: Status
    let route: Route
    /// The data plugins' names, in load order.
    let names: ReportNames
    /// The plugins the UI stage called, as a JSON array (``ReportNames/array(_:)``).
    let ui: [UInt8]
    let problem: String?

    func write(into line: inout JSONLine<ByteBuffer>) {
        let message = flight.message
        // The members every line has are written with their punctuation, one run each.
        line.key("id")
        message.appendIDJSON(to: &line.bytes)
        line.bytes.append(ascii: #","target":"#)
        message.appendTargetJSON(to: &line.bytes)
        line.bytes.append(ascii: #","status":"#)
        line.bytes.append(ascii: status.quoted)
        line.bytes.append(ascii: #","route":"#)
        line.bytes.append(ascii: route.quoted)
        line.bytes.append(ascii: #","data":["#)
        for index in 0..<flight.next {
            if index > 0 { line.bytes.append(UInt8(ascii: ",")) }
            names.dataItems[index].withUnsafeBytes { line.bytes.append(bytes: $0) }
            line.bytes.append(ascii: flight.verdicts[index].quoted)
            line.bytes.append(UInt8(ascii: "}"))
        }
        line.bytes.append(ascii: #"],"ui":"#)
        ui.withUnsafeBytes { line.bytes.append(bytes: $0) }
        if let stop = flight.interception.stop {
            line.string("by", stop.by)
            if stop.effect == .suppressed, let reason = stop.reason { line.string("reason", reason) }
        } else if status == .expired {
            line.string("reason", message.lifetime.reason)
        }
        if let problem { line.string("error", problem) } else { line.bytes.append(ascii: #","error":null"#) }
        line.bytes.append(ascii: #","source":"#)
        message.source.appendJSON(to: &line.bytes)
    }
}

/// A host event's line: `{"event","status",["screens"],["error"],"source"}`.
struct EventLine: ReportLine {
    let event: HostEvent
    let status: EventStatus
    let source: RecordSource

    var problem: String? {
        if case .failed(let reason) = status { reason } else { nil }
    }

    func write(into line: inout JSONLine<ByteBuffer>) {
        line.string("event", event.kind.rawValue)
        line.string("status", status.word)
        if case .foreground(let screens) = event { line.strings("screens", screens) }
        if let problem { line.string("error", problem) }
        line.key("source")
        source.appendJSON(to: &line.bytes)
    }
}

/// A rejected record's line: shaped as a message's line, or as an event's
/// when the record meant a host event.
struct RejectedLine: ReportLine {
    let error: RecordError
    let source: RecordSource

    var problem: String? { error.text }

    func write(into line: inout JSONLine<ByteBuffer>) {
        if let event = error.event {
            line.string("event", event.rawValue)
        } else {
            line.string("id", nil)
            line.string("target", nil)
        }
        line.string("status", Status.rejected.rawValue)
        if error.event == nil {
            line.string("route", Route.none.word)
            line.strings("data", [])
            line.strings("ui", [])
        }
        line.string("error", error.text)
        line.key("source")
        source.appendJSON(to: &line.bytes)
    }
}
