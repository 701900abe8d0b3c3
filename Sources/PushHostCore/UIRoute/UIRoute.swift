import CPushHost
import PushHostMessage
import PushHostRecords

/// The UI stage: exactly one route for a message whose data stage let it
/// through (docs/running.md, dispatch), chosen by the visible screens and the
/// message's target.
///
/// ```
/// no screen visible            -> background (every background plugin)
/// a visible screen claims it   -> target     (the first, top first)
/// otherwise                    -> mismatch   (the top screen)
/// that route has no handler    -> none       (undelivered)
/// ```
final class UIRoute {
    /// The background plugins' names, in load order, as the report's JSON array.
    private let backgroundNames: [UInt8]
    /// Each screen's name as the report's JSON array, made the first time it is called.
    @exclusivity(unchecked) private var screenNames: [String: [UInt8]] = [:]
    private let background: UnsafeMutableBufferPointer<Handler>
    /// The background plugins' numbers, for the order of calls across processes.
    private let backgroundPlugins: [Int32]
    private let journal: CrashJournal
    /// The order of UI calls across processes, when plugins run in workers
    /// (`isOrdered`: a plain flag, checked on every message, is cheaper than
    /// the optional existential).
    private let order: (any CallOrder)?
    private let isOrdered: Bool

    init(plugins: PluginSet, order: (any CallOrder)?, journal: CrashJournal) {
        self.journal = journal
        self.order = order
        isOrdered = order != nil
        backgroundNames = ReportNames.array(plugins.background.map(\.name))
        background = Handler.table(plugins.background)
        backgroundPlugins = plugins.background.map(\.index)
    }

    deinit {
        background.deallocate()
    }

    /// The route for a message with `target` (UTF-8, or nil for none), given
    /// the visible `screens` and whether any background plugin is loaded.
    static func choose(target: UnsafeRawBufferPointer?, screens: VisibleScreens, hasBackground: Bool) -> Route {
        guard !screens.isEmpty else { return hasBackground ? .background : .none }
        if let position = target.flatMap({ screens.claiming($0) }) {
            return screens.screens[position].handler.raw.on_target == nil ? .none : .target(screen: position)
        }
        return screens.screens[0].handler.raw.on_mismatch == nil ? .none : .mismatch
    }

    /// The route for `message`, given the visible `screens`.
    func plan(_ message: Message, screens: VisibleScreens) -> Route {
        message.withTarget { Self.choose(target: $0, screens: screens, hasBackground: !background.isEmpty) }
    }

    /// The plugins (by number) whose handlers `route` calls.
    func plugins(of route: Route, screens: VisibleScreens) -> [Int32] {
        switch route {
        case .background: backgroundPlugins
        case .target(let position): [screens.screens[position].handler.plugin]
        case .mismatch: [screens.screens[0].handler.plugin]
        case .none: []
        }
    }

    /// Calls the handlers of `route`, as `plan` chose it, on `message`.
    func deliver(_ route: Route, _ message: Message, screens: VisibleScreens) -> Route {
        if isOrdered, let order, order.hasUIUnderWay { order.beforeRoute(calling: plugins(of: route, screens: screens)) }
        switch route {
        case .background:
            for handler in background {
                guard let onBackground = handler.raw.on_background else { continue }
                // In load order: a plugin in the host waits for the one before it in a worker.
                if isOrdered { order?.beforeCall(ofPlugin: handler.plugin) }
                journal.enter(.onBackground, plugin: handler.plugin, source: message.source)
                onBackground(handler.state, message.opaque)
                journal.leave()
            }
        case .target(let position):
            let screen = screens.screens[position].handler
            journal.enter(.onTarget, plugin: screen.plugin, source: message.source)
            screen.raw.on_target!(screen.state, message.opaque)
            journal.leave()
        case .mismatch:
            let top = screens.screens[0].handler
            journal.enter(.onMismatch, plugin: top.plugin, source: message.source)
            top.raw.on_mismatch!(top.state, message.opaque)
            journal.leave()
        case .none:
            break
        }
        return route
    }

    /// The plugins `route` called, as the report's JSON array, given the
    /// names of the visible screens, top first.
    func called(on route: Route, screens: [String]) -> [UInt8] {
        switch route {
        case .background: backgroundNames
        case .target(let position): screenNames(screens[position])
        case .mismatch: screenNames(screens[0])
        case .none: ReportNames.none
        }
    }

    private func screenNames(_ screen: String) -> [UInt8] {
        if let names = screenNames[screen] { return names }
        let names = ReportNames.array([screen])
        screenNames[screen] = names
        return names
    }
}
