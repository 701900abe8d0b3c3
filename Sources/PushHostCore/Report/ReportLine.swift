/// One line of the report: what became of one record, as JSON.
protocol ReportLine {
    /// Why, when the record was rejected or failed.
    var problem: String? { get }
    /// Writes the line's members.
    func write(into line: inout JSONLine)
}

/// A push message's line:
/// `{"id","target","status","route","data":[{"plugin","verdict"}],"ui":[...],"by","reason","error","source"}`,
/// `by` (and, for a suppressed message, `reason`) when an interceptor stopped it.
struct MessageLine: ReportLine {
    let flight: InFlight
    let status: Status
    let route: Route
    /// The data plugins' names, in load order.
    let dataPlugins: [String]
    /// The plugins the UI stage called.
    let ui: [String]
    let problem: String?

    func write(into line: inout JSONLine) {
        let message = flight.message
        line.key("id")
        message.appendIDJSON(to: &line.bytes)
        line.key("target")
        message.appendTargetJSON(to: &line.bytes)
        line.string("status", status.rawValue)
        line.string("route", route.word)
        line.key("data")
        line.bytes.append(UInt8(ascii: "["))
        for index in 0..<flight.next {
            if index > 0 { line.bytes.append(UInt8(ascii: ",")) }
            line.object { item in
                item.string("plugin", dataPlugins[index])
                item.string("verdict", flight.verdicts[index].rawValue)
            }
        }
        line.bytes.append(UInt8(ascii: "]"))
        line.strings("ui", ui)
        if let stop = flight.interception.stop {
            line.string("by", stop.by)
            if stop.effect == .suppressed, let reason = stop.reason { line.string("reason", reason) }
        }
        line.string("error", problem)
        line.key("source")
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

    func write(into line: inout JSONLine) {
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

    func write(into line: inout JSONLine) {
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
