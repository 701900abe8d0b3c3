#if canImport(Glibc)
import Glibc
#endif
import CPushHost
import DequeModule
import Logging
import PushHostMessage
import PushHostRecords
import PushHostSystem
import PushHostPlugins
import PushHostPort

/// The interceptor stage, between the intake and the data stage
/// (docs/plugins.md, interceptors): the plugins that offer `ph.interceptor/1`, in load order,
/// each of which proceeds or stops every push message, now or later.
///
/// A message goes from one interceptor to the next while each proceeds it
/// during its `intercept` call. One that returns without proceeding or
/// stopping holds the message: the stage keeps it, and the host goes on
/// with the messages behind it. The turn's ending comes later, from any
/// thread, through `inbox`; the message then goes on from where it stood
/// (`takeEndings`). A turn that does not end within `--data-timeout` fails
/// its message (`expireDeadlines`).
package final class Interceptors {
    /// Turns that ended on plugins' threads, for the dispatch thread.
    let inbox = Inbox<ChainLink.Posted>()
    /// The interceptors, in load order (a reload changes them while none holds a message).
    private var plugins: [InterceptorPlugin]
    private let journal: CrashJournal
    private let logger: Logger
    private let timeout: Double
    private let timeoutNanoseconds: UInt64
    /// The held turns, and when each must end (monotonic ns).
    @exclusivity(unchecked) private var held: [ObjectIdentifier: (link: ChainLink, deadline: UInt64)] = [:]
    /// The held turns in the order they were held, which is that of their
    /// deadlines; an entry whose turn ended is dropped when it comes first.
    @exclusivity(unchecked) private var deadlines = Deque<(link: ChainLink, deadline: UInt64)>()
    /// Whether any interceptor has `on_outcome`.
    private(set) var wantsOutcomes: Bool
    /// The link of the last turn that ended during its call, for the next turn.
    @exclusivity(unchecked) private var spare: ChainLink?

    /// The stage for the interceptors among `plugins`; a turn fails its
    /// message after `timeout` seconds.
    ///
    /// - Throws: when a plugin offers a table without `intercept`.
    init(plugins: PluginSet, timeout: Double, journal: CrashJournal, logger: Logger) throws(SetupError) {
        self.plugins = []
        wantsOutcomes = false
        self.journal = journal
        self.logger = logger
        self.timeout = timeout
        timeoutNanoseconds = UInt64(max(0, timeout) * 1e9)
        use(try interceptors(of: plugins))
    }

    /// The interceptors among `plugins`, in load order, their turns ending in this stage.
    ///
    /// - Throws: when a plugin offers a table without `intercept`.
    func interceptors(of plugins: PluginSet) throws(SetupError) -> [InterceptorPlugin] {
        var interceptors: [InterceptorPlugin] = []
        for plugin in plugins.instances {
            if let interceptor = try InterceptorPlugin(plugin, inbox: inbox) { interceptors.append(interceptor) }
        }
        return interceptors
    }

    /// Calls `interceptors` from now on; none may hold a message.
    func use(_ interceptors: [InterceptorPlugin]) {
        precondition(held.isEmpty, "Interceptors: a reload while a message is held")
        plugins = interceptors
        wantsOutcomes = interceptors.contains { $0.hasOnOutcome }
    }

    deinit {
        if let spare { ChainLink.recycle(spare) }
    }

    /// The interceptors' names, in load order.
    var names: [String] { plugins.map(\.name) }

    var isEmpty: Bool { plugins.isEmpty }

    /// How many messages interceptors hold.
    package var heldCount: Int { held.count }

    /// Where a message stands once the stage is done with it for now.
    enum Passage {
        /// Every interceptor proceeded it: on to the data stage.
        case passed
        /// One holds it: it comes back through `takeEndings`.
        case held
        /// One stopped it (see its ``Interception/stop``).
        case stopped
    }

    /// Calls the interceptors in load order from where `item` stands, until
    /// one holds it or stops it, or all proceeded it.
    func run(_ item: InFlight) -> Passage {
        while item.interception.passed < plugins.count {
            let plugin = plugins[item.interception.passed]
            let link = ChainLink.open(carrying: item, by: plugin, spare: spare)
            spare = nil
            journal.enter(.intercept, plugin: plugin.index, source: item.message.source)
            plugin.call(link.opaque)
            journal.leave()
            guard let ending = link.returned() else {
                let deadline = MonotonicClock.now() &+ timeoutNanoseconds
                held[ObjectIdentifier(link)] = (link, deadline)
                deadlines.append((link, deadline))
                return .held
            }
            spare = link
            guard apply(ending, to: item) else { return .stopped }
        }
        return .passed
    }

    /// Notes how the turn of the interceptor `item` stands at ended; false
    /// when it stopped the message.
    private func apply(_ ending: ChainLink.Ending, to item: InFlight) -> Bool {
        let name = plugins[item.interception.passed].name
        switch ending {
        case .proceeded:
            item.interception.passed += 1
            return true
        case .stopped(let effect, let reason):
            item.interception.stop = InterceptorStop(effect: effect, by: name, reason: reason)
        case .broken(let problem):
            item.interception.stop = InterceptorStop(effect: .failed, by: name, reason: "\(name) \(problem)")
        }
        return false
    }

    /// Takes the turns that ended on plugins' threads: each message goes on
    /// from there, and `body` gets those that passed every interceptor or
    /// were stopped, in the order their turns ended.
    func takeEndings(_ body: (InFlight) -> Void) {
        for posted in inbox.take() {
            held[ObjectIdentifier(posted.link)] = nil
            guard let (ending, item) = ChainLink.take(posted) else { continue }
            if apply(ending, to: item), run(item) == .held { continue }
            body(item)
        }
    }

    /// Fails every held message whose turn outlived `--data-timeout`, and
    /// hands it to `body`; a late `proceed` or `stop` is ignored.
    func expireDeadlines(_ body: (InFlight) -> Void) {
        guard let first = soonest else { return }
        let now = MonotonicClock.now()
        guard first.deadline <= now else { return }
        while let turn = soonest, turn.deadline <= now {
            deadlines.removeFirst()
            held[ObjectIdentifier(turn.link)] = nil
            let chain = turn.link.opaque
            guard let item = turn.link.abandon(.timedOut) else { continue }
            let plugin = plugins[item.interception.passed]
            plugin.withdraw(chain)
            plugin.logger.warning("no proceed or stop for message \(item.message.idString) within \(timeout)s; it fails")
            item.interception.stop = InterceptorStop(
                effect: .failed, by: plugin.name, reason: "\(plugin.name) did not proceed or stop within --data-timeout \(timeout)s")
            body(item)
        }
    }

    /// The held turn whose deadline is soonest, dropping the entries before
    /// it whose turn ended meanwhile.
    private var soonest: (link: ChainLink, deadline: UInt64)? {
        while let first = deadlines.first {
            if held[ObjectIdentifier(first.link)]?.deadline == first.deadline { return first }
            deadlines.removeFirst()
        }
        return nil
    }

    /// Milliseconds until the nearest deadline of a held message, or -1.
    func millisecondsToNextDeadline() -> Int32 {
        soonest.map { MonotonicClock.milliseconds(until: $0.deadline) } ?? -1
    }

    /// The host stops: every held message, with the interceptor that holds
    /// it; their later `proceed` or `stop` is ignored.
    func abandonAll() -> [(item: InFlight, by: String)] {
        defer {
            held.removeAll()
            deadlines.removeAll()
        }
        return held.values.sorted { $0.deadline < $1.deadline }.compactMap { turn in
            turn.link.abandon(.hostStopped).map { ($0, plugins[$0.interception.passed].name) }
        }
    }

    /// Calls `on_outcome` of every interceptor that proceeded `item`, the
    /// last one first, with its report line.
    func tellOutcome(of item: InFlight, line: UnsafePointer<CChar>) {
        let message = item.message.opaque
        for plugin in plugins[..<item.interception.passed].reversed() where plugin.hasOnOutcome {
            journal.enter(.onOutcome, plugin: plugin.index, source: item.message.source)
            plugin.tell(message, line: line)
            journal.leave()
        }
    }
}
