#if canImport(Glibc)
import Glibc
#endif
import Logging

/// One run of `pushhost run`: the created plugins, the stages, and the loop
/// that feeds the intake from every source (standard input, the spool,
/// plugins) until the input ends or SIGINT or SIGTERM asks it to stop.
package final class Host {
    private let plugins: PluginSet
    private let submissions: PluginSubmissions
    private let pipeline: Pipeline
    private let options: RunOptions
    private let spool: Spool?
    private let journal: CrashJournal
    private let logger: Logger
    /// The source plugins whose `start` returned 0 and whose `stop` is still to call.
    private var started: [SourcePlugin] = []

    /// Loads and creates the plugins and builds the stages; any refusal is
    /// a `SetupError` unless `skipBadPlugins` is set. With a spool, the
    /// crash journal beside its folders tells first how the last run ended.
    package init(
        catalog: PluginCatalog,
        spool: Spool?,
        overrides: [SettingOverride],
        skipBadPlugins: Bool,
        tokens: TokenStore,
        options: RunOptions,
        logger: Logger
    ) throws(SetupError) {
        ServiceNotifier.fromEnvironment(logger: logger)
        self.options = options
        self.spool = spool
        self.logger = logger
        journal = try CrashJournal(path: spool.map { $0.directory + "/journal" })
        if let crash = journal.recover() {
            logger.error("the last run ended on \(crash.place): \(crash.summary)\(Self.verdict(on: crash, limit: options.crashLimit))")
        }
        CrashSignals.install(journal)
        let report = try Report(destination: options.report)
        submissions = PluginSubmissions(limit: options.maxPending)
        ChainAPI.offer()
        plugins = try PluginSet(
            catalog: catalog, overrides: overrides, skipBad: skipBadPlugins, tokens: tokens, submissions: submissions,
            isolation: Self.isolation(options), logger: logger)
        journal.name(plugins: plugins.instances.map(\.name))
        if plugins.instances.isEmpty {
            logger.warning("no plugin loaded: every message is reported undelivered (give --plugins DIR, --plugin FILE or --ffi FILE)")
        }
        do {
            let interceptors = try Interceptors(plugins: plugins, timeout: options.dataTimeout, journal: journal, logger: logger)
            let app = try AppState(plugins: plugins, tokens: tokens, foreground: options.foreground, journal: journal, logger: logger)
            let actions = try Actions(
                plugins: plugins, directory: tokens.directory, storeLimit: options.storeLimit, retainFor: options.retainFor,
                platform: options.platform, targetKey: options.targetKey, journal: journal, logger: logger)
            pipeline = Pipeline(
                interceptors: interceptors, dataStage: DataStage(plugins: plugins, timeout: options.dataTimeout, journal: journal, logger: logger),
                workers: plugins.workers, route: UIRoute(plugins: plugins, journal: journal), app: app, actions: actions, report: report, options: options,
                logger: logger)
        } catch {
            plugins.destroyAll()
            throw error
        }
    }

    /// The isolation options, with the timeouts the workers are held to.
    private static func isolation(_ options: RunOptions) -> IsolationOptions {
        var isolation = options.isolation
        isolation.handlerTimeout = options.handlerTimeout
        isolation.stopTimeout = options.stopTimeout
        isolation.platform = options.platform
        isolation.targetKey = options.targetKey
        return isolation
    }

    /// What becomes of the spool file of `crash`: tried again, or given up.
    private static func verdict(on crash: CrashJournal.Crash, limit: Int) -> String {
        guard !crash.file.isEmpty else { return "" }
        return crash.count >= limit
            ? " (crash \(crash.count) of --crash-limit \(limit): the file goes to failed/)"
            : " (crash \(crash.count) of --crash-limit \(limit): the file is tried again)"
    }

    /// Where records go, for a caller that feeds them itself (a benchmark).
    package var intake: any Intake { pipeline }

    /// How many records were rejected, and how many failed, so far.
    package var rejectedCount: Int { pipeline.report.rejectedCount }
    package var failedCount: Int { pipeline.report.failedCount }

    /// Dispatches every record of standard input until it ends, and of the
    /// spool and the source plugins (when there are any) until SIGINT or
    /// SIGTERM; then finishes what is under way (pending data verdicts
    /// included, within their deadline). SIGINT or SIGTERM stop standard
    /// input too.
    ///
    /// Under a service manager (`NOTIFY_SOCKET`) it says `READY=1` once the
    /// plugins, the sources and the intake are up, before any record is
    /// dispatched; `STATUS=` when the counts change (once a second at most);
    /// `WATCHDOG=1` from the dispatch thread when the manager's watchdog
    /// wants it (so a handler that hangs stops the pings); `STOPPING=1` when
    /// a stop begins; and `STATUS=failed: ...` when the run ends in an error.
    package func run() throws(SetupError) {
        let notifier = ServiceNotifier.fromEnvironment(logger: logger)
        do throws(SetupError) {
            try dispatch(notifying: notifier)
        } catch {
            notifier.failed("\(error)")
            throw error
        }
    }

    /// `run`, telling `notifier` how it stands.
    private func dispatch(notifying notifier: ServiceNotifier) throws(SetupError) {
        let shutdown = ShutdownSignal.install()
        let report = pipeline.report
        _ = Watchdog(journal: journal, timeout: options.handlerTimeout, stopTimeout: options.stopTimeout, logger: logger) { [pipeline] in pipeline.flushAll() }
        let input = StdinReader(fd: 0, maxBytes: options.maxBytes)
        let spool = try spool.map { spool throws(SetupError) in
            try SpoolSource(
                spool: spool, maxBytes: options.maxBytes, events: options.spoolEvents, journal: journal, crashLimit: options.crashLimit, logger: logger,
                durable: { report.sync() })
        }
        submissions.openOnThisThread()
        try startSources()
        notifier.ready(status: readyStatus(), progress: Self.progress(of: report))
        pipeline.begin()
        /// Whether the manager's watchdog wants `WATCHDOG=1`: then a burst of
        /// records in one turn feeds it between records (one clock read each).
        let pings = notifier.pings
        let pinging = pings ? PingingIntake(pipeline, notifier: notifier) : nil
        /// Runs until a signal, not until standard input ends.
        let untilStopped = spool != nil || !plugins.sources.isEmpty
        var reading = true
        var stopping = false
        /// When a stop stops waiting for pending data verdicts (monotonic ns).
        var stopDeadline: UInt64 = 0
        while true {
            if !stopping {
                while reading, pipeline.hasRoom, let record = input.next() {
                    pipeline.take(record)
                    pipeline.takeCompletionsIfAny()
                    if pings { notifier.pingIfDue() }
                }
                if let pinging { spool?.deliver(to: pinging) } else { spool?.deliver(to: pipeline) }
            }
            if !stopping, let failure = report.failure {
                // Nothing taken now could be reported: stop taking, loudly.
                logger.error("stopping: \(failure); taking nothing new, and no spool file moves")
                stopping = true
                stopDeadline = MonotonicClock.now()
                notifier.stopping(status: "stopping: \(failure)")
                stopSources()
            }
            if !stopping {
                if let pinging { submissions.deliver(to: pinging) } else { submissions.deliver(to: pipeline) }
            }
            spool?.moveFinished()
            reading = reading && !stopping && !input.finished
            if !reading && (!untilStopped || stopping) && pipeline.isIdle && (spool?.nothingUnderWay ?? true) && submissions.isEmpty {
                // Unless a stop began already, standard input ended.
                notifier.stopping(status: "stopping: standard input ended; \(Self.handled(Self.progress(of: report)))")
                break
            }
            if stopping && MonotonicClock.now() >= stopDeadline && !pipeline.isIdle {
                journal.beginDrain()
                pipeline.stop()
                continue
            }
            pipeline.flush()
            submissions.note(held: pipeline.heldCount)
            let hasRoom = pipeline.hasRoom
            var watched = [
                pollfd(fd: pipeline.dataStage.inbox.fd, events: Int16(POLLIN), revents: 0),
                pollfd(fd: pipeline.interceptors.inbox.fd, events: Int16(POLLIN), revents: 0),
                pollfd(fd: pipeline.workers.inbox.fd, events: Int16(POLLIN), revents: 0),
            ]
            if reading && hasRoom { watched.append(pollfd(fd: input.fd, events: Int16(POLLIN), revents: 0)) }
            if let spool, hasRoom && !stopping { watched.append(pollfd(fd: spool.fd, events: Int16(POLLIN), revents: 0)) }
            if hasRoom { watched.append(pollfd(fd: submissions.fd, events: Int16(POLLIN), revents: 0)) }
            if !stopping { watched.append(pollfd(fd: shutdown, events: Int16(POLLIN), revents: 0)) }
            var wait = PollWait.sooner(pipeline.millisecondsToNextDeadline(), pipeline.actions.millisecondsToNextExpiry())
            wait = PollWait.sooner(wait, pipeline.actions.store.millisecondsToWrite())
            wait = PollWait.sooner(wait, pipeline.workers.millisecondsToNextRestart())
            if stopping {
                let left = Int32(min((stopDeadline &- min(stopDeadline, MonotonicClock.now())) / 1_000_000 + 1, 60_000))
                wait = PollWait.sooner(wait, left)
            }
            if notifier.isActive {
                wait = PollWait.sooner(wait, notifier.turn(progress: Self.progress(of: report)) { progress in
                    "dispatching: \(pluginCount); \(Self.handled(progress))"
                })
            }
            _ = poll(&watched, nfds_t(watched.count), wait)
            for ready in watched where ready.revents != 0 {
                switch ready.fd {
                case pipeline.dataStage.inbox.fd:
                    pipeline.takeCompletions()
                case pipeline.interceptors.inbox.fd:
                    pipeline.takeEndings()
                case pipeline.workers.inbox.fd:
                    pipeline.takeWorkerEvents()
                    pipeline.takeCompletionsIfAny()
                case input.fd:
                    do {
                        try input.fill()
                    } catch where untilStopped {
                        logger.warning("\(error); going on without standard input")
                        reading = false
                    }
                case shutdown:
                    logger.info("stopping: taking nothing new; records under way get --stop-timeout \(options.stopTimeout)s")
                    stopping = true
                    // Counted from the signal, as the watchdog counts it.
                    let signalled = ShutdownSignal.firstAt.load(ordering: .relaxed)
                    stopDeadline = (signalled == 0 ? MonotonicClock.now() : signalled) &+ UInt64(options.stopTimeout * 1e9)
                    notifier.stopping(status: "stopping: SIGINT or SIGTERM; records under way get --stop-timeout \(options.stopTimeout)s")
                    stopSources()
                case spool?.fd:
                    spool?.takeArrivals()
                default:
                    break  // Submissions: delivered at the top of the loop.
                }
            }
            pipeline.takeWorkerEvents()
            pipeline.expireDeadlines()
            pipeline.expireRetained()
        }
        pipeline.flushAll()
        if let failure = report.failure {
            throw SetupError("the run stopped early: \(failure)")
        }
    }

    // MARK: What the service manager is told

    /// `3 plugins`.
    private var pluginCount: String {
        plugins.instances.count == 1 ? "1 plugin" : "\(plugins.instances.count) plugins"
    }

    /// The status of a host that is ready: `dispatching: 3 plugins; reading
    /// standard input and the spool /var/lib/pushhost/spool`.
    private func readyStatus() -> String {
        var sources = ["standard input"]
        if let spool { sources.append("the spool \(spool.directory)") }
        let names = plugins.sources.map(\.name)
        if !names.isEmpty {
            sources.append((names.count == 1 ? "the source plugin " : "the source plugins ") + names.joined(separator: ", "))
        }
        let list = sources.count == 1 ? sources[0] : sources.dropLast().joined(separator: ", ") + " and " + sources.last!
        return "dispatching: \(pluginCount); reading \(list)"
    }

    /// Where the report's counts stand.
    private static func progress(of report: Report) -> ServiceNotifier.Counts {
        ServiceNotifier.Counts(done: report.doneCount, failed: report.failedCount, rejected: report.rejectedCount)
    }

    /// `12 records handled (1 failed, 2 rejected)`.
    private static func handled(_ progress: ServiceNotifier.Counts) -> String {
        let total = progress.done + progress.failed + progress.rejected
        return "\(total) record\(total == 1 ? "" : "s") handled (\(progress.failed) failed, \(progress.rejected) rejected)"
    }

    /// Calls every source plugin's `start`, in load order.
    ///
    /// - Throws: when one returns -1, after stopping the ones started.
    private func startSources() throws(SetupError) {
        for source in plugins.sources {
            guard source.start() else {
                stopSources()
                throw SetupError("plugin \(source.name): its source did not start (start returned -1)")
            }
            started.append(source)
        }
    }

    /// Refuses later submissions (unblocking any waiting one), calls `stop`
    /// of every started source plugin, in reverse load order, then hands
    /// back the submitted records not started: none begins after a stop.
    private func stopSources() {
        submissions.close()
        started.reversed().forEach { $0.stop() }
        started.removeAll()
        submissions.giveBack(to: pipeline)
    }

    /// Stops the source plugins still producing, then calls every plugin's `destroy`.
    package func shutdown() {
        stopSources()
        plugins.destroyAll()
    }
}

/// An intake that feeds the manager's watchdog between the records a
/// source hands over in one go (a burst of spool files, of plugin records),
/// for a host whose manager wants `WATCHDOG=1`.
private final class PingingIntake<Inner: Intake>: Intake {
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
