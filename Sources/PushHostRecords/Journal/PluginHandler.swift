/// A plugin handler the dispatch thread calls, by its name in the C ABI;
/// the crash journal and the watchdog name the one under way.
@usableFromInline package enum PluginHandler: Int32, Sendable {
    case onData = 1
    case onBackground
    case onTarget
    case onMismatch
    case onToken
    case onAction
    case intercept
    case onOutcome
    /// A source's `start` and `stop` (`ph.source/1`).
    case start
    case stop
    /// `destroy`, at the end of a run.
    case destroy

    /// `on_data`, `on_background`, ...
    package var name: String {
        switch self {
        case .onData: "on_data"
        case .onBackground: "on_background"
        case .onTarget: "on_target"
        case .onMismatch: "on_mismatch"
        case .onToken: "on_token"
        case .onAction: "on_action"
        case .intercept: "intercept"
        case .onOutcome: "on_outcome"
        case .start: "start"
        case .stop: "stop"
        case .destroy: "destroy"
        }
    }
}
