import PushHostSystem
import PushHostJSON
import PushHostRecords

/// The line of a record the host gave up on before dispatching it (a spool
/// file whose plugins crashed on it `--crash-limit` times): shaped as a
/// message's line, with status `failed` and no route.
struct FailedLine: ReportLine {
    let reason: String
    let source: RecordSource

    var problem: String? { reason }

    func write(into line: inout JSONLine<ByteBuffer>) {
        line.string("id", source.defaultID)
        line.string("target", nil)
        line.string("status", Status.failed.rawValue)
        line.string("route", Route.none.word)
        line.strings("data", [])
        line.strings("ui", [])
        line.string("error", reason)
        line.key("source")
        source.appendJSON(to: &line.bytes)
    }
}
