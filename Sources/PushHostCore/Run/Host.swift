#if canImport(Glibc)
import Glibc
#endif
import Logging
import PushHostIntake
import PushHostRecords
import PushHostSystem
import PushHostIsolation
import PushHostPipeline
import PushHostPlugins
import PushHostPort

/// One run of `pushhost run`: the created plugins, the stages, and the loop
/// that feeds the intake from every source (standard input, the spool,
/// plugins) until the input ends or SIGINT or SIGTERM asks it to stop.
package final class Host {
    /// The plugins, changed by a reload (``Host/beginReload()``).
    var plugins: PluginSet
    let submissions: PluginSubmissions
    let pipeline: Pipeline
    let options: RunOptions
    private let spool: Spool?
    let journal: CrashJournal
    let logger: Logger
    /// The source plugins whose `start` returned 0 and whose `stop` is still to call.
    var started: [SourcePlugin] = []
    /// Reads the plugin files, folders and settings files again, for a reload.
    let rescan: () throws(SetupError) -> PluginCatalog
    /// The next set a reload made, waiting for the records under way to end.
    var reload: Reload?
    /// What the service manager is told, once the run began.
    var notifier: ServiceNotifier?

    /// Loads and creates the plugins and builds the stages; any refusal is
    /// a `SetupError` unless `skipBadPlugins` is set. With a spool, the
    /// crash journal beside its folders tells first how the last run ended.
    package init(
        catalog: PluginCatalog,
        rescan: @escaping () throws(SetupError) -> PluginCatalog,
        spool: Spool?,
        overrides: [SettingOverride],
        skipBadPlugins: Bool,
        tokens: TokenStore,
        options: RunOptions,
        logger: Logger
    ) throws(SetupError) {
        ServiceNotifier.fromEnvironment(logger: logger).health = options.metrics?.health
        // From now on SIGHUP reloads (once the run began) rather than ending the process.
        _ = ReloadSignal.install()
        self.rescan = rescan
        self.options = options
        self.spool = spool
        self.logger = logger
        journal = try CrashJournal(path: spool.map { $0.directory + "/journal" })
        if let crash = journal.recover() {
            logger.error("the last run ended on \(crash.place): \(crash.summary)\(Self.verdict(on: crash, limit: options.crashLimit))")
        }
        CrashSignals.install(journal)
        let metrics = options.metrics
        let report = try Report(destination: options.report, counted: metrics?.reportCounted)
        submissions = PluginSubmissions(limit: options.maxPending, maxBytes: options.maxBytes)
        let isolation = Self.isolation(options)
        let pluginMetrics = metrics?.plugins ?? PluginMetrics()
        let launcher = WorkerLauncher(
            isolation: isolation, stateDirectory: tokens.directory, submissions: submissions, metrics: metrics?.workers, pluginMetrics: pluginMetrics,
            logger: logger)
        plugins = try PluginSet(
            catalog: catalog, overrides: overrides, skipBad: skipBadPlugins, tokens: tokens, submissions: submissions, isolation: isolation,
            launcher: launcher, pluginMetrics: pluginMetrics, chain: ChainAPI.table, logger: logger)
        journal.name(plugins: plugins.instances.map(\.name))
        if let metrics {
            journal.durations = metrics.handlerDurations(for: plugins.instances).observer
            metrics.watchToken(tokens.file)
            metrics.plugins(plugins.instances.map { ($0.name, $0.generation) })
        }
        if plugins.instances.isEmpty {
            logger.warning("no plugin loaded: every message is reported undelivered (give --plugins DIR, --plugin FILE or --ffi FILE)")
        }
        do {
            pipeline = try Pipeline.make(plugins: plugins, tokens: tokens, report: report, options: options, journal: journal, logger: logger)
        } catch {
            plugins.destroyAll()
            throw error
        }
    }

    /// Reads what a service manager put in the environment (`NOTIFY_SOCKET`,
    /// ...) and takes it out; before anything starts a thread (the metrics
    /// server does), as the environment is not thread-safe.
    package static func takeServiceEnvironment(logger: Logger) {
        ServiceNotifier.fromEnvironment(logger: logger)
    }

    /// The isolation options, with the timeouts the workers are held to.
    private static func isolation(_ options: RunOptions) -> IsolationOptions {
        var isolation = options.isolation
        isolation.handlerTimeout = options.handlerTimeout
        isolation.stopTimeout = options.stopTimeout
        isolation.maxBytes = options.maxBytes
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
        let report = pipeline.report
        _ = Watchdog(journal: journal, timeout: options.handlerTimeout, stopTimeout: options.stopTimeout, logger: logger) { [pipeline, ephemeral = options.ephemeral] call in
            pipeline.giveUp(call)
            ephemeral?.remove()
        }
        let spool = try spool.map { spool throws(SetupError) in
            try SpoolSource(
                spool: spool, maxBytes: options.maxBytes, events: options.spoolEvents, journal: journal, crashLimit: options.crashLimit, logger: logger,
                durable: { report.sync() })
        }
        let sources = RunLoop.Sources(
            input: StdinReader(fd: 0, maxBytes: options.maxBytes), spool: spool, submissions: submissions,
            stop: { [unowned self] in stopSources() }, untilStopped: spool != nil || !plugins.sources.isEmpty)
        self.notifier = notifier
        let loop = RunLoop(
            pipeline: pipeline, sources: sources, notifier: notifier, reloader: self, journal: journal, stopTimeout: options.stopTimeout,
            logger: logger
        ) { [unowned self] progress in "dispatching: \(pluginCount); \(RunLoop.handled(progress))" }
        submissions.openOnThisThread()
        try startSources()
        notifier.ready(status: readyStatus(), progress: Self.progress(of: report))
        pipeline.begin()
        try loop.run()
        if let failure = report.failure {
            throw SetupError("the run stopped early: \(failure)")
        }
    }

    // MARK: What the service manager is told

    /// `3 plugins`.
    var pluginCount: String {
        plugins.instances.count == 1 ? "1 plugin" : "\(plugins.instances.count) plugins"
    }

    /// The status of a host that is ready: `dispatching: 3 plugins; reading
    /// standard input and the spool /var/lib/pushhost/spool`.
    func readyStatus() -> String {
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
    static func progress(of report: Report) -> ServiceNotifier.Counts {
        ServiceNotifier.Counts(done: report.doneCount, failed: report.failedCount, rejected: report.rejectedCount)
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
        started.reversed().forEach { $0.stop(journal: journal) }
        started.removeAll()
        submissions.giveBack(to: pipeline)
    }

    /// Stops the source plugins still producing, then calls every plugin's
    /// `destroy`: after SIGINT or SIGTERM, a worker still running at the
    /// stop's deadline (`--stop-timeout` from the signal; a quarter of a
    /// second at least, for its destroy) is killed, and a plugin in the host
    /// still in `stop` or `destroy` then is left: the watchdog ends the host.
    package func shutdown() {
        abandonReload()
        stopSources()
        let signalled = ShutdownSignal.firstAt.load(ordering: .relaxed)
        let deadline = signalled == 0 ? nil : max(signalled &+ UInt64(options.stopTimeout * 1e9), MonotonicClock.now() &+ 250_000_000)
        let killed = plugins.destroyAll(by: deadline, journal: journal)
        if killed || pipeline.gaveUpAtStop {
            gaveUpAtStop = true
            logger.error("stopping: a plugin's handler was given up at the stop's deadline (--stop-timeout \(options.stopTimeout)s); the host exits with status \(Watchdog.exitStatus)")
        }
    }

    /// Whether the stop gave up a handler still in its call (elsewhere: its
    /// worker killed): the run then ends with status 4, as when a handler in
    /// the host is given up.
    package private(set) var gaveUpAtStop = false
    /// The exit status of a run that gave up a handler.
    package static let gaveUpStatus = Watchdog.exitStatus
}
