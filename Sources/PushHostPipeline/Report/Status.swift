import PushHostRecords

/// What became of a push message (or a rejected or skipped record), as the report says it.
enum Status: String {
    /// The UI stage called at least one handler.
    case delivered
    /// A data plugin gave the verdict suppress: no UI stage.
    case suppressed
    /// A data plugin gave the verdict failed (or none in time): no UI stage.
    case failed
    /// No plugin was there to call in the UI stage.
    case undelivered
    /// The record was not a valid message or host event.
    case rejected
    /// The message was past its time to live (or its expiry) when its UI
    /// stage would have begun: no UI stage.
    case expired
    /// The record was an ntfy stream's own event (open, keepalive,
    /// poll_request), not a message: nobody was called.
    case skipped

    /// The word as a JSON string, quotes included, for the report.
    var quoted: StaticString {
        switch self {
        case .delivered: #""delivered""#
        case .suppressed: #""suppressed""#
        case .failed: #""failed""#
        case .undelivered: #""undelivered""#
        case .rejected: #""rejected""#
        case .skipped: #""skipped""#
        case .expired: #""expired""#
        }
    }

    /// What the record's source learns.
    var result: RecordResult {
        switch self {
        case .delivered, .suppressed, .undelivered, .skipped, .expired: .done
        case .failed: .retry
        case .rejected: .rejected
        }
    }
}
