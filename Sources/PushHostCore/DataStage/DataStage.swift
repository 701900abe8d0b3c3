#if canImport(Glibc)
import Glibc
#endif
import CPushHost
import Logging

/// The data stage: every data plugin, in load order, gives its verdict on a
/// message before any UI handler sees it (docs/running.md, dispatch).
///
/// A plugin may give `PH_PENDING` and its verdict later through `complete`,
/// from any thread: the call is posted to an inbox that the dispatch thread
/// drains (`takeCompletions`), and a verdict that does not come within
/// `--data-timeout` counts as failed (`expireDeadlines`). Everything else
/// runs on the dispatch thread.
///
/// A `complete` is matched by its handle against the pending messages only.
/// The handle of a message that went pending is not used again before the
/// handles wrap (see ``Handles``), so a second call, a late one or a
/// stray pointer finds nothing and is ignored with a warning, without being
/// dereferenced. Nothing is kept for such calls: a message whose deadline
/// passes loses its handle at once and is let go with its report line.
final class DataStage: VerdictSink, @unchecked Sendable {
    /// The data plugins' names, in load order.
    let names: [String]
    let inbox = Inbox<Completion>()
    private let handlers: UnsafeMutableBufferPointer<Handler>
    private let journal: CrashJournal
    private let logger: Logger
    private let timeout: Double
    private let timeoutNanoseconds: UInt64
    /// One `complete` call, as posted from the plugin's thread.
    struct Completion: Sendable {
        /// The `ph_message` pointer as the plugin gave it; never dereferenced
        /// before it is found among the pending messages.
        let address: UInt
        let verdict: ph_verdict
        let plugin: String
        let reason: String?
    }

    /// Messages waiting for `complete`, by their handle's address.
    @exclusivity(unchecked) private(set) var pending: [UInt: InFlight] = [:]

    /// The stage for the data plugins of `plugins`, whose `complete` calls
    /// it takes from now on; a pending verdict counts as failed after
    /// `timeout` seconds.
    init(plugins: PluginSet, timeout: Double, journal: CrashJournal, logger: Logger) {
        self.journal = journal
        names = plugins.data.map(\.name)
        handlers = Handler.table(plugins.data)
        self.timeout = timeout
        timeoutNanoseconds = UInt64(max(0, timeout) * 1e9)
        self.logger = logger
        for plugin in plugins.instances { plugin.context.verdicts = self }
        plugins.workers.applyVerdict = { [unowned(unsafe) self] address, verdict, plugin, reason in
            apply(Completion(address: address, verdict: verdict, plugin: plugin, reason: reason))
        }
    }

    deinit {
        handlers.deallocate()
    }

    var count: Int { handlers.count }

    /// Whether the message's data stage has ended.
    func isDone(_ flight: InFlight) -> Bool {
        flight.isDone(dataPlugins: handlers.count)
    }

    /// Calls the data plugins in load order from where the message stands,
    /// until one gives `PH_PENDING` or all have given their verdict.
    func run(_ flight: InFlight) {
        let message = flight.message.opaque
        while flight.next < handlers.count {
            let handler = handlers[flight.next]
            journal.enter(.onData, plugin: handler.plugin, source: flight.message.source)
            let verdict = handler.raw.on_data!(handler.state, message)
            journal.leave()
            if verdict == PH_PENDING {
                flight.isWaiting = true
                flight.deadline = MonotonicClock.now() &+ timeoutNanoseconds
                pending[flight.message.handleAddress] = flight
                return
            }
            record(verdict, for: flight)
        }
    }

    /// Notes the verdict of the data plugin the message stands at, and moves
    /// the message past it; a failure is explained by `reason`, or else as
    /// the plugin's own verdict.
    private func record(_ verdict: ph_verdict, for flight: InFlight, because reason: String? = nil) {
        let name = names[flight.next]
        switch Verdict(verdict) {
        case .failed?:
            flight.errors.append(reason ?? flight.message.takeProblem() ?? "\(name) gave the verdict failed")
            flight.record(.failed)
        case let verdict?:
            flight.record(verdict)
        case nil:
            flight.errors.append("\(name) gave \(verdict.rawValue), which is not a final verdict (continue, suppress, failed)")
            flight.record(.failed)
        }
    }

    // MARK: Completions and deadlines

    /// `VerdictSink`: called by `complete` on any thread.
    func complete(_ message: OpaquePointer, verdict: ph_verdict, from plugin: String, reason: String?) {
        inbox.post(.init(address: UInt(bitPattern: UnsafeRawPointer(message)), verdict: verdict, plugin: plugin, reason: reason))
    }

    /// Applies every `complete` posted so far, going on with each message's data stage.
    func takeCompletions() {
        for completion in inbox.take() { apply(completion) }
    }

    /// Applies one verdict (a `complete`, or an isolated plugin's answer),
    /// on the dispatch thread, going on with the message's data stage.
    private func apply(_ completion: Completion) {
        guard let flight = pending[completion.address], names[flight.next] == completion.plugin else {
            if Handles.messages.takeExpired(completion.address) {
                logger.warning("\(completion.plugin): complete arrived after the --data-timeout deadline; ignored")
            } else {
                logger.warning("\(completion.plugin): complete for a message that is not waiting for it (a second call, or an unknown message); ignored")
            }
            return
        }
        pending[completion.address] = nil
        flight.isWaiting = false
        record(completion.verdict, for: flight, because: completion.reason)
        run(flight)
    }

    /// Counts every pending verdict past its deadline as failed. The
    /// message's handle is retired, so that the plugin's late `complete`
    /// finds nothing, and the message goes on under a new one.
    func expireDeadlines() {
        let now = MonotonicClock.now()
        let expired = pending.filter { $0.value.deadline <= now }
        guard !expired.isEmpty else { return }
        for (address, flight) in expired.sorted(by: { $0.value.deadline < $1.value.deadline }) {
            let name = names[flight.next]
            pending[address] = nil
            flight.message.retireHandle(expired: true)
            flight.message.claimHandle()
            flight.isWaiting = false
            logger.warning("\(name): no complete for message \(flight.message.idString) within \(timeout)s; counted as failed")
            record(PH_FAILED, for: flight, because: "\(name) did not complete within --data-timeout \(timeout)s")
            run(flight)
        }
    }

    /// Stops waiting for every pending verdict (the host is stopping): a
    /// later `complete` for one of them is ignored.
    func forgetPending() {
        pending.removeAll()
    }

    /// Milliseconds until the nearest deadline, or -1 when nothing is pending.
    func millisecondsToNextDeadline() -> Int32 {
        pending.values.lazy.map(\.deadline).min().map(MonotonicClock.milliseconds(until:)) ?? -1
    }
}
