/// What became of one input record, as the report says it.
enum Status: String {
    /// The UI stage called at least one handler.
    case delivered
    /// A data plugin answered suppress: no UI stage.
    case suppressed
    /// A data plugin answered failed (or never answered): no UI stage.
    case failed
    /// No plugin was there to call in the UI stage.
    case undelivered
    /// The record was not a valid message or host event.
    case rejected
}

/// The one path a message took in the UI stage.
enum Route: String {
    case background
    case target
    case mismatch
    case none
}

/// A data plugin's answer, as the report spells it.
enum VerdictWord: String {
    case `continue`
    case suppress
    case failed
}
