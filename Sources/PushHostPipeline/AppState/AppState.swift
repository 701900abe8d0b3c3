import Logging
import PushHostRecords
import PushHostSystem
import PushHostPort

/// What the app shows and holds, changed by host events: the visible
/// screens (none: the app is in the background) and the current token
/// (docs/running.md, token events).
final class AppState {
    /// The screens the app shows now, top first, and their names.
    private(set) var visible: VisibleScreens
    private(set) var visibleNames: [String] = []
    private var screens: [String: VisibleScreens.Screen]
    private let tokens: TokenStore
    private var tokenPlugins: [Handler]
    /// The order of calls across processes.
    private let scheduler: CallScheduler
    private let journal: CrashJournal
    private let logger: Logger

    /// The state at start: in the foreground with the screens `foreground`
    /// names (top first), else in the background.
    init(
        plugins: PluginSet, scheduler: CallScheduler, tokens: TokenStore, foreground: [String]?, journal: CrashJournal, logger: Logger
    ) throws(SetupError) {
        self.journal = journal
        screens = Self.screens(of: plugins)
        self.tokens = tokens
        tokenPlugins = plugins.token.map(Handler.init)
        self.scheduler = scheduler
        self.logger = logger
        visible = VisibleScreens()
        if let foreground {
            if let unknown = foreground.first(where: { screens[$0] == nil }) {
                throw SetupError("--foreground \(unknown): \(unknownScreen(unknown))")
            }
            makeVisible(foreground)
        }
    }

    deinit {
        visible.deallocate()
    }

    private static func screens(of plugins: PluginSet) -> [String: VisibleScreens.Screen] {
        plugins.screens.mapValues { plugin in
            VisibleScreens.Screen(name: plugin.name, targets: plugin.descriptor.targets, handler: Handler(plugin))
        }
    }

    /// The screens and token plugins of `plugins` from now on (a reload):
    /// the visible screens stay, those of the same names; the names of
    /// screens no longer loaded, if any, which leave the stack.
    func use(_ plugins: PluginSet) -> [String] {
        screens = Self.screens(of: plugins)
        tokenPlugins = plugins.token.map(Handler.init)
        let gone = visibleNames.filter { screens[$0] == nil }
        makeVisible(visibleNames.filter { screens[$0] != nil })
        return gone
    }

    /// Shows the screens `names`, top first (none: the app goes to the
    /// background); a name that is no loaded screen is rejected and changes
    /// nothing.
    func show(_ names: [String]) throws(RecordError) -> EventStatus {
        if let unknown = names.first(where: { screens[$0] == nil }) {
            throw RecordError(event: .foreground, reason: unknownScreen(unknown))
        }
        makeVisible(names)
        return .applied
    }

    private func makeVisible(_ names: [String]) {
        visible.deallocate()
        visible = VisibleScreens(names.map { screens[$0]! })
        visibleNames = names
    }

    /// Stores a token that differs from the stored one (with its keys),
    /// then tells every token plugin; the same token again calls nobody,
    /// and a null token removes the stored one.
    func store(_ event: TokenEvent, source: RecordSource) -> EventStatus {
        guard let token = event.token else { return removeToken(source: source) }
        let change: TokenStore.Change
        do {
            change = try tokens.replace(with: token, keys: event.keys)
        } catch {
            logger.error("\(source.place): the token could not be stored: \(error)")
            return .failed("\(error)")
        }
        switch change {
        case .unchanged: return .unchanged
        case .keys: return .stored
        case .replaced(let previous): return tell(token, previous: previous, source: source)
        }
    }

    /// Gives every token plugin the new token, and waits for each call to end.
    private func tell(_ token: String, previous: String?, source: RecordSource) -> EventStatus {
        scheduler.tokenChanged(to: token)
        for handler in tokenPlugins where handler.has(.onToken) {
            scheduler.beforeCall(handler)
            journal.enter(.onToken, plugin: handler.plugin, source: source)
            let ticket = handler.token(token, previous: previous)
            journal.leave()
            if let ticket { scheduler.await(ticket) }
        }
        // A token plugin's worker crashed in on_token: the token is stored, the event failed.
        if let problem = scheduler.takeProblem() { return .failed(problem) }
        return .stored
    }

    private func removeToken(source: RecordSource) -> EventStatus {
        do {
            guard let previous = try tokens.remove() else { return .unchanged }
            logger.info("\(source.place): the token \(previous) was removed")
            return .removed
        } catch {
            logger.error("\(source.place): the token could not be removed: \(error)")
            return .failed("\(error)")
        }
    }

    private func unknownScreen(_ name: String) -> String {
        let known = screens.keys.sorted()
        return "no screen plugin is named \"\(name)\"" + (known.isEmpty ? " (none is loaded)" : " (screens: \(known.joined(separator: ", ")))")
    }
}
