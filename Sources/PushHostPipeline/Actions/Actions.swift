#if canImport(Glibc)
import Glibc
#endif
import CPushHost
import Logging
import PushHostJSON
import PushHostMessage
import PushHostRecords
import PushHostSystem
import PushHostPlugins
import PushHostPort

/// Where action events go (docs/running.md, actions): the message acted on is found
/// in the delivered store, checked for the action, and the action routed:
///
/// ```
/// a visible screen claims the message's target -> that screen's on_action (the first, top first)
/// otherwise                                     -> on_action of every plugin that is not a screen, now,
///                                                  and retained for the target's screen until a
///                                                  foreground event shows it, for --retain-for
/// ```
///
/// Each action gets a report line when it is taken in, and a retained one
/// another when it is delivered or expires. A plugin without `on_action`
/// (every ABI 1.0 plugin) is never called for one.
package final class Actions {
    let store: DeliveredStore
    private let retained: RetainedActions
    private let retainFor: Double
    /// The plugins that are not screens and have `on_action`, in load order.
    private var others: [Handler] = []
    private var otherNames: [String] = []
    /// The screen plugin that claims each target.
    private var screenOfTarget: [String: PluginInstance] = [:]
    /// The order of calls across processes.
    private let scheduler: CallScheduler
    private let journal: CrashJournal
    private let logger: Logger
    /// What `--metrics` counts here, when it is on.
    private let counted: ActionCounts?
    /// The message a stored one is loaded into for its `on_action` calls.
    private let message = MessagePool.take()

    /// The actions of `plugins`, with the store and the retained actions in
    /// `directory`; `storeLimit` and `storeBytes` bound the store; `retainFor` is `--retain-for`, and the store's records
    /// are read with `platform` and `targetKey`.
    init(
        plugins: PluginSet, directory: String, storeLimit: Int, storeBytes: Int, retainFor: Double, platform: Platform?, targetKey: String,
        counted: ActionCounts? = nil, scheduler: CallScheduler, journal: CrashJournal, logger: Logger
    ) throws(SetupError) {
        self.counted = counted
        self.scheduler = scheduler
        store = try DeliveredStore(
            directory: directory, limit: storeLimit, byteLimit: storeBytes, platform: platform, targetKey: targetKey, counted: counted?.store, logger: logger)
        retained = try RetainedActions(directory: directory, logger: logger)
        self.retainFor = retainFor
        self.journal = journal
        self.logger = logger
        use(plugins)
    }

    /// Routes actions to the plugins of `plugins` from now on (a reload);
    /// the store and the retained actions stay.
    func use(_ plugins: PluginSet) {
        let others = plugins.instances.filter { $0.descriptor.handlers.contains(.onAction) && !$0.roles.contains(.screen) }
        self.others = others.map(Handler.init)
        otherNames = others.map(\.name)
        var screenOfTarget: [String: PluginInstance] = [:]
        for screen in plugins.screens.values {
            for target in screen.descriptor.targets { screenOfTarget[target] = screen }
        }
        self.screenOfTarget = screenOfTarget
    }

    deinit {
        MessagePool.give(message)
    }

    /// What `--metrics` counts of the actions: their report lines by status,
    /// and the delivered store's writes.
    struct ActionCounts {
        let line: (ActionStatus) -> Void
        let store: WriteCounters
    }

    /// How many actions wait for their screen.
    package var retainedCount: Int { retained.entries.count }

    /// Unix time, in seconds.
    static func now() -> Double {
        var time = timespec()
        clock_gettime(CLOCK_REALTIME, &time)
        return Double(time.tv_sec) + Double(time.tv_nsec) / 1e9
    }

    // MARK: Taking an action in

    /// Finds the message of `event`, checks the action and routes it.
    func take(_ event: ActionEvent, source: RecordSource, completion: RecordCompletion?, app: AppState, report: Report) {
        let line: ActionLine
        switch store.find(event.id) {
        case .unknown:
            line = rejected(event, "no delivered message has id \"\(event.id)\" (the store keeps the last \(store.limit) to \(2 * store.limit))", source)
        case .notDelivered(let status):
            line = rejected(event, "message \"\(event.id)\" was \(status), not delivered: there is no notification to act on", source)
        case .delivered(let stored):
            line = stored.withMessage(message) { message in
                route(event, of: message, stored: stored, source: source, app: app)
            } ?? rejected(event, "the store's line for message \"\(event.id)\" no longer reads as a message", source)
        }
        if line.status == .rejected { logger.error("rejected \(source.place): \(line.problem!)") }
        counted?.line(line.status)
        report.write(line.status.result, completion: completion) { line }
    }

    private func rejected(_ event: ActionEvent, _ reason: String, _ source: RecordSource) -> ActionLine {
        ActionLine(event, target: nil, status: .rejected, problem: reason, source: source)
    }

    private func route(_ event: ActionEvent, of message: Message, stored: StoredMessage, source: RecordSource, app: AppState) -> ActionLine {
        let target = message.withTarget { $0.map { String(decoding: $0, as: UTF8.self) } }
        if event.action != ActionEvent.tap {
            let offered = message.offeredActions
            guard offered.contains(event.action) else {
                let listed = offered.isEmpty ? "it offers none: only \"tap\"" : "its actions: " + offered.joined(separator: ", ")
                return ActionLine(event, target: target, status: .rejected, problem: "message \"\(event.id)\" offers no action \"\(event.action)\" (\(listed))", source: source)
            }
        }
        if let screen = claimingScreen(target, app: app) {
            guard let handler = screen.handler else {
                return ActionLine(event, target: target, status: .undelivered, problem: "screen \(screen.name) has no on_action", source: source)
            }
            if let problem = call(handler, event, message, source: source) {
                return ActionLine(event, target: target, status: .failed, ui: [screen.name], problem: problem, source: source)
            }
            return ActionLine(event, target: target, status: .delivered, ui: [screen.name], source: source)
        }
        // A crash of one of them (in its worker) is logged; the action still waits for its screen.
        let problems = others.compactMap { call($0, event, message, source: source) }
        if let target, let screen = screenOfTarget[target], screen.descriptor.handlers.contains(.onAction) {
            retained.append(RetainedAction(event: event, target: target, retainedAt: (Self.now() * 1000).rounded() / 1000, source: source, message: stored))
            return ActionLine(event, target: target, status: .retained, ui: otherNames, source: source)
        }
        guard others.isEmpty else {
            return problems.isEmpty
                ? ActionLine(event, target: target, status: .delivered, ui: otherNames, source: source)
                : ActionLine(event, target: target, status: .failed, ui: otherNames, problem: problems.joined(separator: "; "), source: source)
        }
        let why = target.map { target in
            screenOfTarget[target].map { "screen \($0.name) has no on_action" } ?? "no screen claims target \"\(target)\""
        } ?? "the message has no target"
        return ActionLine(event, target: target, status: .undelivered, problem: "\(why), and no other plugin has on_action", source: source)
    }

    /// The first visible screen whose targets hold `target`: its name, and its handler when it has `on_action`.
    private func claimingScreen(_ target: String?, app: AppState) -> (name: String, handler: Handler?)? {
        guard var target else { return nil }
        let position = target.withUTF8 { app.visible.claiming(UnsafeRawBufferPointer($0)) }
        guard let position else { return nil }
        let handler = app.visible.screens[position].handler
        return (app.visibleNames[position], handler.has(.onAction) ? handler : nil)
    }

    /// Calls `on_action`; why it failed (an isolated plugin's worker crashed), or nil.
    @discardableResult
    private func call(_ handler: Handler, _ event: ActionEvent, _ message: Message, source: RecordSource) -> String? {
        scheduler.beforeCall(handler)
        journal.enter(.onAction, plugin: handler.plugin, source: source)
        let ticket = handler.action(message, action: event.action, input: event.input)
        journal.leave()
        if let ticket { scheduler.await(ticket) }
        return message.takeProblem()
    }

    // MARK: Retained actions

    /// Delivers every retained action whose screen is visible now, in the
    /// order they were taken in; first, expires those retained too long.
    func deliverRetained(app: AppState, report: Report) {
        expire(report: report)
        guard !retained.entries.isEmpty, !app.visible.isEmpty else { return }
        retained.keep { entry in
            guard let screen = claimingScreen(entry.target, app: app) else { return true }
            let line: ActionLine
            if let handler = screen.handler {
                let delivered: Void? = entry.message.withMessage(message) { message in
                    call(handler, entry.event, message, source: entry.source)
                }
                line = delivered == nil
                    ? ActionLine(entry.event, target: entry.target, status: .undelivered, retainedAt: entry.retainedAt,
                                 problem: "the retained message no longer reads", source: entry.source)
                    : ActionLine(entry.event, target: entry.target, status: .delivered, ui: [screen.name], retainedAt: entry.retainedAt, source: entry.source)
            } else {
                line = ActionLine(entry.event, target: entry.target, status: .undelivered, retainedAt: entry.retainedAt,
                                  problem: "screen \(screen.name) has no on_action", source: entry.source)
            }
            counted?.line(line.status)
            report.write(.done, completion: nil) { line }
            return false
        }
    }

    /// Reports and drops every retained action older than `--retain-for`.
    func expire(report: Report) {
        guard let first = retained.entries.first, first.retainedAt + retainFor <= Self.now() else { return }
        let now = Self.now()
        retained.keep { entry in
            guard entry.retainedAt + retainFor <= now else { return true }
            let line = ActionLine(
                entry.event, target: entry.target, status: .expired, retainedAt: entry.retainedAt,
                problem: "no screen for target \"\(entry.target)\" became visible within --retain-for \(durationText(retainFor))", source: entry.source)
            logger.warning("\(entry.source.place): action \"\(entry.event.action)\" on message \"\(entry.event.id)\" expired: \(line.problem!)")
            counted?.line(line.status)
            report.write(.done, completion: nil) { line }
            return false
        }
    }

    /// Milliseconds until the oldest retained action expires, or -1 when none waits.
    func millisecondsToNextExpiry() -> Int32 {
        // Taken in order: the first is the oldest.
        guard let oldest = retained.entries.first else { return -1 }
        let left = (oldest.retainedAt + retainFor - Self.now()) * 1000
        return Int32(max(0, min(left.rounded(.up), 60_000)))
    }
}

extension Message {
    /// The ids of the notification's actions.
    var offeredActions: [String] {
        guard let actions = layout.notification.member("actions", in: root), actions.kind == .array else { return [] }
        return actions.elements.compactMap { element in
            guard let id = element.member(named: "id"), id.kind == .string else { return nil }
            return id.text
        }
    }
}
