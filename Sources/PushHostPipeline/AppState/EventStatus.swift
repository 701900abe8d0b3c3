import PushHostRecords

/// What a host event did, as the report says it.
enum EventStatus {
    /// A foreground or background event changed the visible screens.
    case applied
    /// A new token was stored and the token plugins were told.
    case stored
    /// The token is the one stored already: nobody was called.
    case unchanged
    /// A null token removed the stored one (no token plugin is called: the
    /// ABI has no call for a token that is gone).
    case removed
    /// The token could not be stored: why.
    case failed(String)

    /// What the record's source learns.
    var result: RecordResult {
        if case .failed = self { .retry } else { .done }
    }

    var word: String {
        switch self {
        case .applied: "applied"
        case .stored: "stored"
        case .unchanged: "unchanged"
        case .removed: "removed"
        case .failed: "failed"
        }
    }
}
