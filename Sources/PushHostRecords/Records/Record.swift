import CPushHost
import PushHostJSON

/// One record as a source hands it to the intake: one JSON object (a push
/// message or a host event), where it came from, and who wants to learn its
/// result.
///
/// Its bytes are borrowed: they need stay valid only until `Intake.take`
/// returns (a record that must wait copies what it keeps).
@usableFromInline package struct Record {
    /// The record's bytes, or what reading them already found.
    @usableFromInline package enum Content {
        /// JSON text, not parsed yet.
        case text(UnsafeRawBufferPointer)
        /// JSON text parsed already (standard input parses on its own
        /// thread), valid until standard input's next batch is asked for.
        case parsed(JSONDocument)
        /// Text that is not valid JSON.
        case invalid(JSONError)
        /// A record longer than `--max-bytes`, not kept.
        case tooLong
        /// A record the host gives up on without dispatching it, and why
        /// (its plugins crashed on it `--crash-limit` times).
        case failed(String)
        /// Something its source refused to read (a spool entry that is not
        /// a regular file, an empty file): why.
        case refused(String)
    }

    @usableFromInline package let content: Content
    @usableFromInline package let source: RecordSource
    /// What the record may be: its source decides.
    @usableFromInline package let trust: RecordTrust
    /// Called once, on the dispatch thread, after the record's report line
    /// is written; nil when the source does not ask.
    @usableFromInline package let completion: RecordCompletion?
    /// When the record reached the host (Unix milliseconds), from which a
    /// message's time to live counts; 0: when the pipeline takes it.
    @usableFromInline package let arrival: Int64

    @usableFromInline package init(
        _ content: Content, source: RecordSource, trust: RecordTrust, arrival: Int64 = 0, completion: RecordCompletion? = nil
    ) {
        self.content = content
        self.source = source
        self.trust = trust
        self.arrival = arrival
        self.completion = completion
    }
}

/// What a record may be, as its source decides: a host event (`token`,
/// `foreground`, `background`, `action`) changes what every plugin sees, so
/// only the operator's own sources and a plugin's own events may carry one.
@usableFromInline package enum RecordTrust: Sendable {
    /// The operator's own (standard input, the spool): a message or a host event.
    case operatorOwn
    /// Bytes from outside (a push, a broker record, a stream): a message only.
    /// A record that holds a host event is rejected, saying `why` not here.
    case messageOnly(MessageOnly)
    /// A host event a plugin made itself (`PH_RECORD_HOST_EVENT`): a
    /// record that holds none is rejected.
    case hostEvent

    /// Why a source's records may not be host events; put in words only
    /// for a record that is rejected, not for every record.
    @usableFromInline package enum MessageOnly: Sendable {
        /// A plugin's submission without `PH_RECORD_HOST_EVENT`.
        case unmarked(plugin: String)
        /// A spool file, under `--spool-events off`.
        case spoolEventsOff
        /// A spool file another user owns.
        case spoolFileOf(user: UInt32)

        package var reason: String {
            switch self {
            case .unmarked(let plugin): "plugin \(plugin) did not submit it as a host event of its own (PH_RECORD_HOST_EVENT)"
            case .spoolEventsOff: "the host takes no host events from the spool (--spool-events off)"
            case .spoolFileOf(let user):
                "the spool file belongs to user \(user), and host events come only from the host's own user's files"
            }
        }
    }
}

/// What a source learns of its record once the report line is written.
@usableFromInline package typealias RecordCompletion = (RecordOutcome) -> Void

/// A record's result and report line, as its completion learns them.
@usableFromInline package struct RecordOutcome {
    @usableFromInline package let result: RecordResult
    /// Why, when the result is not `done`.
    @usableFromInline package let problem: String?
    /// The report line, without its newline.
    @usableFromInline package let line: [UInt8]

    @usableFromInline package init(result: RecordResult, problem: String?, line: [UInt8]) {
        self.result = result
        self.problem = problem
        self.line = line
    }
}

/// What became of a record, as far as its source must know (`ph_result`).
@usableFromInline package enum RecordResult: Sendable {
    /// Handled, whatever its status (delivered, suppressed, undelivered, an event applied).
    case done
    /// A plugin failed or timed out (or the token could not be stored): a later try may succeed.
    case retry
    /// The record is bad (not JSON, too big, unknown event ...): no try will succeed.
    case rejected
    /// The host stopped before the record's data stage ended: it has no
    /// report line, and its source keeps it for the next run (a spool file
    /// stays in `new/`).
    case stopped

    /// The ABI's value.
    package var abiValue: ph_result {
        switch self {
        case .done: PH_DONE
        case .retry, .stopped: PH_RETRY
        case .rejected: PH_REJECTED
        }
    }
}

/// Where every source hands its records: standard input, the spool, and
/// plugins (through `ph.intake/1`). Called on the dispatch thread only.
package protocol Intake: AnyObject {
    /// Whether the intake takes more now: false while `--max-pending`
    /// messages wait for their data stage, so a source holds back.
    var hasRoom: Bool { get }

    /// Takes one record, in arrival order.
    func take(_ record: borrowing Record)
}
