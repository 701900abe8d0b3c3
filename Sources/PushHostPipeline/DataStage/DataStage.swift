#if canImport(Glibc)
import Glibc
#endif
import CPushHost
import Logging
import Prometheus
import PushHostMessage
import PushHostRecords
import PushHostSystem
import PushHostPlugins
import PushHostPort

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
package final class DataStage: VerdictTaker {
    /// The data plugins' names, in load order (a reload changes them while no verdict is awaited).
    private(set) var names: [String]
    let inbox = Inbox<Completion>()
    private var handlers: UnsafeMutableBufferPointer<Handler>
    private let journal: CrashJournal
    private let logger: Logger
    private let timeout: Double
    private let timeoutNanoseconds: UInt64
    /// With `--metrics`: where each data plugin's verdicts are counted
    /// (continue, suppress, failed: three cells a plugin, from the first),
    /// and how long its pending verdicts took.
    private var verdictCells: (cells: CounterCells.Adder, first: Int)?
    private var pendingDurations: [ValueHistogram]?

    /// Messages waiting for a plugin in the host to `complete`, by their handle's address.
    @exclusivity(unchecked) private var pending: [UInt: InFlight] = [:]
    /// How many messages wait for a verdict: those in `pending`, and those
    /// a plugin elsewhere has (its verdict comes with their record).
    @exclusivity(unchecked) private(set) package var waiting = 0
    /// The same, with the deadline each went pending with, in the order
    /// they did: as every deadline is the same time away, the soonest is
    /// first. Each entry stays at its place from the first one ever
    /// (`deadlinesTaken` and its position), which its record keeps: when a
    /// wait ends, its entry's record is cleared, and cleared entries leave
    /// the front at once. So no entry names a record that no longer waits,
    /// and none takes a count (a waiting record is held by the queue, and
    /// by its call or `pending`).
    @exclusivity(unchecked) private var deadlines = Fifo<(flight: Unmanaged<InFlight>?, deadline: UInt64)>()
    /// How many entries left the front of `deadlines` so far.
    private var deadlinesTaken = 0

    /// The stage for the data plugins of `plugins`, whose `complete` calls
    /// it takes from now on; a pending verdict counts as failed after
    /// `timeout` seconds.
    /// With `--metrics`, `verdictCells` and `pendingDurations` hold each
    /// data plugin's series (by its place in load order).
    init(
        plugins: PluginSet, timeout: Double, verdictCells: (cells: CounterCells.Adder, first: Int)? = nil, pendingDurations: [ValueHistogram]? = nil,
        journal: CrashJournal, logger: Logger
    ) {
        self.journal = journal
        names = []
        handlers = Handler.table([])
        self.timeout = timeout
        timeoutNanoseconds = UInt64(max(0, timeout) * 1e9)
        self.logger = logger
        use(plugins, verdictCells: verdictCells, pendingDurations: pendingDurations)
    }

    /// Calls the data plugins of `plugins` from now on, counting as the
    /// initializer says; no verdict may be awaited.
    func use(_ plugins: PluginSet, verdictCells: (cells: CounterCells.Adder, first: Int)?, pendingDurations: [ValueHistogram]?) {
        precondition(waiting == 0, "DataStage: a reload while a verdict is awaited")
        _ = handlers.deinitialize()
        handlers.deallocate()
        handlers = Handler.table(plugins.data)
        names = plugins.data.map(\.name)
        self.verdictCells = verdictCells
        self.pendingDurations = pendingDurations
        for plugin in plugins.instances { plugin.context.verdicts = inbox }
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
        while flight.next < handlers.count {
            let handler = handlers[flight.next]
            let verdict = handler.data(flight, journal: journal)
            if verdict == PH_PENDING {
                flight.isWaiting = true
                // From the coarse clock: a read of the other one per message
                // costs, and a deadline a tick early at most changes nothing.
                flight.deadline = MonotonicClock.coarse() &+ timeoutNanoseconds
                waiting += 1
                // A verdict from elsewhere comes back with its record: no lookup.
                if handler.remote == nil { pending[flight.message.handleAddress] = flight }
                flight.deadlineEntry = deadlinesTaken &+ deadlines.count
                deadlines.append((.passUnretained(flight), flight.deadline))
                return
            }
            record(verdict, for: flight)
        }
    }

    /// Notes the verdict of the data plugin the message stands at, and moves
    /// the message past it; a failure is explained by `reason`, or else as
    /// the plugin's own verdict.
    private func record(_ verdict: ph_verdict, for flight: InFlight, because reason: String? = nil) {
        if let verdictCells { count(verdict, of: flight.next, in: verdictCells) }
        switch Verdict(verdict) {
        case .failed?:
            flight.errors.append(reason ?? flight.message.takeProblem() ?? "\(names[flight.next]) gave the verdict failed")
            flight.record(.failed)
        case let verdict?:
            flight.record(verdict)
        case nil:
            flight.errors.append("\(names[flight.next]) gave \(verdict.rawValue), which is not a final verdict (continue, suppress, failed)")
            flight.record(.failed)
        }
    }

    /// Counts a data plugin's verdict for `--metrics`.
    @inline(__always)
    private func count(_ verdict: ph_verdict, of plugin: Int, in counted: (cells: CounterCells.Adder, first: Int)) {
        // PH_CONTINUE 0, PH_SUPPRESS 1, PH_FAILED 2; anything else counts as failed, as `record` takes it.
        let index = verdict.rawValue <= 2 ? Int(verdict.rawValue) : 2
        if plugin < CrashJournal.maxPlugins { counted.cells.add(counted.first &+ plugin &* 3 &+ index) }
    }

    /// Notes how long a pending verdict took to come (or to be given up on).
    private func notePending(_ flight: InFlight) {
        guard let pendingDurations else { return }
        let waited = MonotonicClock.now() &- (flight.deadline &- timeoutNanoseconds)
        pendingDurations[flight.next].record(Double(waited) / 1e9)
    }

    // MARK: Completions and deadlines

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
        accept(completion.verdict, for: flight, because: completion.reason)
    }

    /// A verdict from a data plugin elsewhere (``VerdictTaker``), on the
    /// message of `flight` whose handle was at `handle`: taken at once when
    /// that record still waits for this plugin with that handle (the handle
    /// changes when its deadline passes), and otherwise as `apply` takes a
    /// stray `complete`.
    package func take(_ verdict: ph_verdict, for flight: InFlight, handle: UInt, plugin: Int32, reason: String?) {
        guard flight.isWaiting, flight.message.handleAddress == handle, handlers[flight.next].plugin == plugin else {
            return applyStray(handle, verdict, plugin: plugin, reason: reason)
        }
        accept(verdict, for: flight, because: reason)
    }

    /// A verdict from elsewhere for a message that no longer waits for it: as a stray `complete`.
    private func applyStray(_ address: UInt, _ verdict: ph_verdict, plugin: Int32, reason: String?) {
        let name = handlers.firstIndex { $0.plugin == plugin }.map { names[$0] } ?? "plugin \(plugin)"
        apply(Completion(address: address, verdict: verdict, plugin: name, reason: reason))
    }

    /// The pending message `flight` has its verdict: on with its data stage.
    private func accept(_ verdict: ph_verdict, for flight: InFlight, because reason: String?) {
        if handlers[flight.next].remote == nil { pending[flight.message.handleAddress] = nil }
        notePending(flight)
        waiting -= 1
        flight.isWaiting = false
        deadlines[flight.deadlineEntry &- deadlinesTaken].flight = nil
        dropEnded()
        record(verdict, for: flight, because: reason)
        run(flight)
    }

    /// Drops the entries at the front of `deadlines` whose wait ended.
    @inline(__always)
    private func dropEnded() {
        while !deadlines.isEmpty && deadlines[0].flight == nil {
            _ = deadlines.removeFirst()
            deadlinesTaken &+= 1
        }
    }

    /// Counts every pending verdict past its deadline as failed. The
    /// message's handle is retired, so that the plugin's late `complete`
    /// finds nothing, and the message goes on under a new one.
    func expireDeadlines() {
        guard let first = soonest else { return }
        let now = MonotonicClock.now()
        guard first <= now else { return }
        while let deadline = soonest, deadline <= now {
            let flight = deadlines.removeFirst().flight!.takeUnretainedValue()
            deadlinesTaken &+= 1
            dropEnded()
            let name = names[flight.next]
            pending[flight.message.handleAddress] = nil
            notePending(flight)
            waiting -= 1
            flight.message.retireHandle(expired: true)
            flight.message.claimHandle()
            flight.isWaiting = false
            logger.warning("\(name): no complete for message \(flight.message.idString) within \(timeout)s; counted as failed")
            record(PH_FAILED, for: flight, because: "\(name) did not complete within --data-timeout \(timeout)s")
            run(flight)
        }
    }

    /// The soonest deadline of a pending message: the first entry's (whose
    /// wait has not ended), read in place.
    private var soonest: UInt64? {
        deadlines.isEmpty ? nil : deadlines[0].deadline
    }

    /// Stops waiting for every pending verdict (the host is stopping): a
    /// later `complete` for one of them is ignored.
    func forgetPending() {
        // A verdict from elsewhere for one of them finds its record no longer waiting.
        for position in deadlines.indices {
            deadlines[position].flight?._withUnsafeGuaranteedRef { $0.isWaiting = false }
        }
        pending.removeAll()
        deadlines.removeAll()
        deadlinesTaken = 0
        waiting = 0
    }

    /// Milliseconds until the nearest deadline, or -1 when nothing is pending.
    func millisecondsToNextDeadline() -> Int32 {
        soonest.map { MonotonicClock.milliseconds(until: $0) } ?? -1
    }
}
