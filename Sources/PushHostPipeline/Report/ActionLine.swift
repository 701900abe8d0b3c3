import PushHostSystem
import PushHostJSON
import PushHostRecords

/// What became of an action event, as the report says it.
enum ActionStatus: String {
    /// A screen got `on_action` (at once, or later when it became visible).
    case delivered
    /// No screen of the message's target is visible: the plugins that are
    /// not screens got `on_action` now, and the action waits for the screen.
    case retained
    /// Nobody could take it: no screen of the target has `on_action`, and
    /// no other plugin does either.
    case undelivered
    /// Retained longer than `--retain-for`: dropped.
    case expired
    /// The message is unknown, was not delivered, or does not offer the action.
    case rejected
    /// A handler could not take it (its worker crashed): the error says why.
    case failed

    var result: RecordResult {
        switch self {
        case .rejected: .rejected
        case .failed: .retry
        default: .done
        }
    }
}

/// An action's line:
/// `{"event":"action","id","action","target","status","ui":[...],["retained_at"],["error"],"source"}`.
///
/// An action is reported when it is taken in (`delivered`, `retained`,
/// `undelivered`, `rejected`), and a retained one again when it is
/// delivered or expires, with the time it was taken in (`retained_at`,
/// Unix seconds) and the source of its event.
struct ActionLine: ReportLine {
    let event: ActionEvent
    let target: String?
    let status: ActionStatus
    /// The plugins that got `on_action`.
    let ui: [String]
    /// When a retained action was taken in.
    let retainedAt: Double?
    let problem: String?
    let source: RecordSource

    init(
        _ event: ActionEvent, target: String?, status: ActionStatus, ui: [String] = [], retainedAt: Double? = nil,
        problem: String? = nil, source: RecordSource
    ) {
        self.event = event
        self.target = target
        self.status = status
        self.ui = ui
        self.retainedAt = retainedAt
        self.problem = problem
        self.source = source
    }

    func write(into line: inout JSONLine<ByteBuffer>) {
        line.string("event", HostEvent.Kind.action.rawValue)
        line.string("id", event.id)
        line.string("action", event.action)
        line.string("target", target)
        line.string("status", status.rawValue)
        line.strings("ui", ui)
        if let retainedAt {
            line.key("retained_at")
            line.bytes.append(utf8: String(retainedAt))
        }
        if let problem { line.string("error", problem) }
        line.key("source")
        source.appendJSON(to: &line.bytes)
    }
}
