/// The one way a message took in the UI stage.
enum Route: Equatable {
    /// Every background plugin.
    case background
    /// The visible screen at this position (top is 0), whose targets hold the message's target.
    case target(screen: Int)
    /// The top screen, since no visible screen's targets hold the message's target.
    case mismatch
    /// No plugin to call: the message is undelivered.
    case none

    /// The word the report uses.
    var word: String {
        switch self {
        case .background: "background"
        case .target: "target"
        case .mismatch: "mismatch"
        case .none: "none"
        }
    }

    /// The word as a JSON string, quotes included.
    var quoted: StaticString {
        switch self {
        case .background: #""background""#
        case .target: #""target""#
        case .mismatch: #""mismatch""#
        case .none: #""none""#
        }
    }
}
