#if canImport(Glibc)
import Glibc
#endif
import Logging
import PushHostIntake
import PushHostRecords
import PushHostSystem
import PushHostPipeline

/// The dispatch thread's loop. Each turn hands the pipeline what the sources
/// offer while it has room (standard input, the spool, plugin submissions),
/// polls what every part of the host waits on (`Awaited`), and applies what
/// came. It ends once standard input ended and nothing is under way, or,
/// with a spool or a source plugin, after a stop: SIGINT or SIGTERM, or a
/// report that cannot be written. A stop takes nothing new and gives the
/// records under way `--stop-timeout`. SIGHUP reloads the plugins
/// (``Reloader``): the loop takes nothing new while the records under way
/// end, then the plugins are switched, between two turns.
final class RunLoop {
    /// What the loop feeds, and from where.
    struct Sources {
        let input: StdinReader
        let spool: SpoolSource?
        let submissions: PluginSubmissions
        /// Refuses submissions, stops the source plugins, and hands back what they submitted.
        let stop: () -> Void
        /// Whether the loop runs until a stop, not until standard input ends.
        var untilStopped: Bool
    }

    private let pipeline: Pipeline
    private let sources: Sources
    private let notifier: ServiceNotifier
    private let journal: CrashJournal
    private let logger: Logger
    private let stopTimeout: Double
    /// The `STATUS=` text for the counts so far.
    private let status: (ServiceNotifier.Counts) -> String
    /// The pipeline, feeding the manager's watchdog between records, when it wants `WATCHDOG=1`.
    private let pinging: PingingIntake<Pipeline>?
    private let shutdown: Int32
    private let reloader: Reloader
    private let reloadSignal: Int32
    /// A SIGHUP came, not taken yet; and a reload waits for the records under way.
    private var reloadAsked = false
    private var reloading = false

    private var reading = true
    /// When a stop stops waiting for the records under way (monotonic ns), once one began.
    private var stopDeadline: UInt64?
    /// Why standard input could not be read, for a run that ends with it.
    private var inputFailure: SetupError?

    init(
        pipeline: Pipeline, sources: Sources, notifier: ServiceNotifier, reloader: Reloader, journal: CrashJournal, stopTimeout: Double,
        logger: Logger, status: @escaping (ServiceNotifier.Counts) -> String
    ) {
        self.pipeline = pipeline
        self.reloader = reloader
        reloadSignal = ReloadSignal.install()
        self.sources = sources
        self.notifier = notifier
        self.journal = journal
        self.stopTimeout = stopTimeout
        self.logger = logger
        self.status = status
        pinging = notifier.pings ? PingingIntake(pipeline, notifier: notifier) : nil
        shutdown = ShutdownSignal.install()
    }

    /// Turns until the run is over, then writes out what is buffered.
    ///
    /// - Throws: when standard input, the only source, cannot be read.
    func run() throws(SetupError) {
        while true {
            if stopDeadline == nil { stepReload() }
            if stopDeadline == nil { take() }
            if stopDeadline == nil, let failure = pipeline.report.failure {
                // Nothing taken now could be reported: stop taking, loudly.
                logger.error("stopping: \(failure); taking nothing new, and no spool file moves")
                beginStop(at: MonotonicClock.now(), status: "stopping: \(failure)")
            }
            sources.spool?.moveFinished()
            reading = reading && stopDeadline == nil && !sources.input.finished
            if isOver {
                // Unless a stop began already, standard input ended.
                notifier.stopping(status: "stopping: standard input ended; \(Self.handled(progress))")
                break
            }
            if let deadline = stopDeadline, MonotonicClock.now() >= deadline, !pipeline.isIdle {
                journal.beginDrain()
                pipeline.stop()
                continue
            }
            pipeline.flush()
            sources.submissions.note(held: pipeline.heldCount)
            if let metrics = pipeline.metrics { publishLevels(to: metrics) }
            var waits = waitsOfThisTurn()
            waits.poll()
            if let inputFailure { throw inputFailure }
            pipeline.endTurn()
        }
        pipeline.flushAll()
    }

    /// Where the records under way stand, for `--metrics`.
    private func publishLevels(to metrics: HostMetrics) {
        metrics.publish(.inFlight, pipeline.heldCount)
        metrics.publish(.held, pipeline.interceptors.heldCount)
        metrics.publish(.pendingVerdicts, pipeline.dataStage.waiting)
        metrics.publish(.intakeQueue, sources.submissions.queuedCount)
        metrics.publish(.retainedActions, pipeline.actions.retainedCount)
        metrics.publish(.spoolNew, sources.spool?.filesInNew ?? 0)
    }

    /// Hands the pipeline the records the sources offer, while it has room.
    private func take() {
        // Locals: read once a turn, not once a record (each read of a
        // stored struct of references retains and releases them all).
        let input = sources.input, pipeline = pipeline, pings = pinging != nil
        var taken = 0
        while reading, pipeline.hasRoom, let record = input.next() {
            pipeline.take(record)
            taken &+= 1
            // What came back meanwhile (verdicts, answers from elsewhere) is
            // taken every 16 records: a look costs about what taking a
            // batch of them does. A full pipeline ends the loop, and the
            // turn takes them.
            if taken & 15 == 0 { pipeline.takeCompletionsIfAny() }
            if pings { notifier.pingIfDue() }
        }
        if let pinging {
            sources.spool?.deliver(to: pinging)
            sources.submissions.deliver(to: pinging)
        } else {
            sources.spool?.deliver(to: pipeline)
            sources.submissions.deliver(to: pipeline)
        }
    }

    /// Whether nothing is left to take or to finish.
    private var isOver: Bool {
        !reading && (!sources.untilStopped || stopDeadline != nil) && pipeline.isIdle
            && (sources.spool?.nothingUnderWay ?? true) && sources.submissions.isEmpty
    }

    /// What this turn polls: the pipeline's stages, the sources while the
    /// pipeline has room, and the stop signal; and the soonest deadline.
    private func waitsOfThisTurn() -> PollSet {
        var waits = PollSet()
        pipeline.addWaits(to: &waits)
        if pipeline.hasRoom {
            if reading { waits.watch(sources.input.fd) { [unowned self] in fillInput() } }
            if stopDeadline == nil { sources.spool?.addWaits(to: &waits) }
            sources.submissions.addWaits(to: &waits)
        }
        if let deadline = stopDeadline {
            let left = (deadline &- min(deadline, MonotonicClock.now())) / 1_000_000 + 1
            waits.wake(in: Int32(min(left, 60_000)))
        } else {
            waits.watch(shutdown) { [unowned self] in signalled() }
            if !reloadAsked { waits.watch(reloadSignal) { [unowned self] in reloadAsked = ReloadSignal.take() } }
        }
        if notifier.isActive { waits.wake(in: notifier.turn(progress: progress, status: status)) }
        return waits
    }

    /// Reads the next batch of standard input; a run that has other sources goes on without it.
    private func fillInput() {
        // The batch at hand goes back to be filled again: the messages that still read it copy it first.
        if sources.input.batchTaken { pipeline.releaseInput() }
        do {
            try sources.input.fill()
        } catch {
            guard sources.untilStopped else { return inputFailure = error }
            logger.warning("\(error); going on without standard input")
            reading = false
        }
    }

    /// SIGINT or SIGTERM: a stop, counted from the signal, as the watchdog counts it.
    private func signalled() {
        logger.info("stopping: taking nothing new; records under way get --stop-timeout \(stopTimeout)s")
        let at = ShutdownSignal.firstAt.load(ordering: .relaxed)
        beginStop(
            at: (at == 0 ? MonotonicClock.now() : at) &+ UInt64(stopTimeout * 1e9),
            status: "stopping: SIGINT or SIGTERM; records under way get --stop-timeout \(stopTimeout)s")
    }

    /// Switches the plugins of a reload under way once nothing is under
    /// way; begins the reload asked for, when none is under way (and
    /// switches it at once when nothing is).
    private func stepReload() {
        while true {
            if reloading && pipeline.isIdle {
                reloader.switchReload()
                reloading = false
                pipeline.paused = false
            }
            guard reloadAsked && !reloading else { return }
            reloadAsked = false
            reloading = reloader.beginReload()
            pipeline.paused = reloading
        }
    }

    private func beginStop(at deadline: UInt64, status: String) {
        if reloading {
            reloader.abandonReload()
            reloading = false
            pipeline.paused = false
        }
        stopDeadline = deadline
        notifier.stopping(status: status)
        sources.stop()
    }

    /// Where the report's counts stand.
    private var progress: ServiceNotifier.Counts {
        let report = pipeline.report
        return ServiceNotifier.Counts(done: report.doneCount, failed: report.failedCount, rejected: report.rejectedCount)
    }

    /// `12 records handled (1 failed, 2 rejected)`.
    static func handled(_ progress: ServiceNotifier.Counts) -> String {
        let total = progress.done + progress.failed + progress.rejected
        return "\(total) record\(total == 1 ? "" : "s") handled (\(progress.failed) failed, \(progress.rejected) rejected)"
    }
}

/// What reloads the plugins for the loop (the host).
protocol Reloader: AnyObject {
    /// Makes the next plugin set; true when its switch waits for the records under way to end.
    func beginReload() -> Bool
    /// Nothing is under way: the next set from now on.
    func switchReload()
    /// A stop came first: the next set is dropped.
    func abandonReload()
}

/// An intake that feeds the manager's watchdog between the records a
/// source hands over in one go (a burst of spool files, of plugin records),
/// for a host whose manager wants `WATCHDOG=1`.
final class PingingIntake<Inner: Intake>: Intake {
    private let inner: Inner
    private let notifier: ServiceNotifier

    init(_ inner: Inner, notifier: ServiceNotifier) {
        self.inner = inner
        self.notifier = notifier
    }

    var hasRoom: Bool { inner.hasRoom }

    func take(_ record: borrowing Record) {
        inner.take(record)
        notifier.pingIfDue()
    }
}
