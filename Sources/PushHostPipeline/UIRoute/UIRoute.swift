import CPushHost
import PushHostMessage
import PushHostRecords
import PushHostPort

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
    /// The background plugins' names, in load order, as the report's JSON
    /// array. These and the other plugins' fields change at a reload
    /// (``use(_:)``); the stage stays, so that the pipeline holds it as a
    /// constant (a variable would count a reference on every call).
    private var backgroundNames: [UInt8] = []
    /// Each screen's name as the report's JSON array, made the first time it is called.
    @exclusivity(unchecked) private var screenNames: [String: [UInt8]] = [:]
    private var background = Handler.table([])
    /// The background plugins' numbers, in load order.
    private(set) var backgroundPlugins: [Int32] = []
    private let journal: CrashJournal
    /// The order of UI calls across processes.
    private let scheduler: CallScheduler

    init(plugins: PluginSet, scheduler: CallScheduler, journal: CrashJournal) {
        self.journal = journal
        self.scheduler = scheduler
        use(plugins)
    }

    deinit {
        _ = background.deinitialize()
        background.deallocate()
    }

    /// Routes to the background plugins of `plugins` from now on; nothing is under way.
    func use(_ plugins: PluginSet) {
        _ = background.deinitialize()
        background.deallocate()
        background = Handler.table(plugins.background)
        backgroundNames = ReportNames.array(plugins.background.map(\.name))
        backgroundPlugins = plugins.background.map(\.index)
    }

    /// The route for a message with `target` (UTF-8, or nil for none), given
    /// the visible `screens` and whether any background plugin is loaded.
    static func choose(target: UnsafeRawBufferPointer?, screens: VisibleScreens, hasBackground: Bool) -> Route {
        guard !screens.isEmpty else { return hasBackground ? .background : .none }
        if let position = target.flatMap({ screens.claiming($0) }) {
            return screens.screens[position].handler.has(.onTarget) ? .target(screen: position) : .none
        }
        return screens.screens[0].handler.has(.onMismatch) ? .mismatch : .none
    }

    /// The route for `message`, given the visible `screens`.
    func plan(_ message: Message, screens: VisibleScreens) -> Route {
        message.withTarget { Self.choose(target: $0, screens: screens, hasBackground: !background.isEmpty) }
    }

    /// Calls the handlers of `route`, as `plan` chose it, on `message`: the
    /// ticket of the last call that ends later (elsewhere), if one does;
    /// the message's report line waits for it.
    func deliver(_ route: Route, _ message: Message, screens: VisibleScreens) -> Ticket? {
        switch route {
        case .background:
            var last: Ticket?
            // In load order, each after the one before it.
            for handler in background where handler.has(.onBackground) {
                last = call(handler, .onBackground, message) ?? last
            }
            return last
        case .target(let position):
            return call(screens.screens[position].handler, .onTarget, message)
        case .mismatch:
            return call(screens.screens[0].handler, .onMismatch, message)
        case .none:
            return nil
        }
    }

    @inline(__always)
    private func call(_ handler: Handler, _ kind: PluginHandler, _ message: Message) -> Ticket? {
        scheduler.beforeCall(handler)
        return handler.deliver(kind, message, journal: journal)
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
