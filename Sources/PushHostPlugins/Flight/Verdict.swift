import CPushHost

/// A data plugin's final verdict on a message, as the report spells it.
@usableFromInline package enum Verdict: String, Sendable {
    case `continue`
    case suppress
    case failed

    /// The verdict a plugin gave, or nil for `PH_PENDING` and for values
    /// that are no verdict at all.
    @inlinable package init?(_ verdict: ph_verdict) {
        switch verdict {
        case PH_CONTINUE: self = .continue
        case PH_SUPPRESS: self = .suppress
        case PH_FAILED: self = .failed
        default: return nil
        }
    }

    /// The verdict as a JSON string, quotes included, for the report.
    package var quoted: StaticString {
        switch self {
        case .continue: #""continue""#
        case .suppress: #""suppress""#
        case .failed: #""failed""#
        }
    }
}
