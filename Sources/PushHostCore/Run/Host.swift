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
    private let logger: Logger
    /// The source plugins whose `start` returned 0 and whose `stop` is still to call.
    private var started: [SourcePlugin] = []

    /// Loads and creates the plugins and builds the stages; any refusal is
    /// a `SetupError` unless `skipBadPlugins` is set.
    package init(
        catalog: PluginCatalog,
        overrides: [SettingOverride],
        skipBadPlugins: Bool,
        tokens: TokenStore,
        options: RunOptions,
        logger: Logger
    ) throws(SetupError) {
        self.options = options
        self.logger = logger
        let report = try Report(destination: options.report)
        submissions = PluginSubmissions(capacity: 256)
        plugins = try PluginSet(
            catalog: catalog, overrides: overrides, skipBad: skipBadPlugins, tokens: tokens, submissions: submissions, logger: logger)
        do {
            _ = Interceptors(plugins: plugins, logger: logger)
            let app = try AppState(plugins: plugins, tokens: tokens, foreground: options.foreground, logger: logger)
            pipeline = Pipeline(
                dataStage: DataStage(plugins: plugins, timeout: options.dataTimeout, logger: logger),
                route: UIRoute(plugins: plugins), app: app, report: report, options: options, logger: logger)
        } catch {
            plugins.destroyAll()
            throw error
        }
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
    package func run(spool: Spool? = nil) throws(SetupError) {
        let shutdown = ShutdownSignal.install()
        let input = StdinReader(fd: 0, maxBytes: options.maxBytes)
        let spool = try spool.map { spool throws(SetupError) in try SpoolSource(spool: spool, maxBytes: options.maxBytes, logger: logger, durable: { true }) }
        submissions.openOnThisThread()
        try startSources()
        /// Runs until a signal, not until standard input ends.
        let untilStopped = spool != nil || !plugins.sources.isEmpty
        var reading = true
        var stopping = false
        while true {
            if !stopping {
                while reading, pipeline.hasRoom, let record = input.next() {
                    pipeline.take(record)
                    pipeline.takeCompletionsIfAny()
                }
                spool?.deliver(to: pipeline)
            }
            // Accepted records are under way, even while stopping.
            submissions.deliver(to: pipeline)
            spool?.moveFinished()
            reading = reading && !stopping && !input.finished
            if !reading && (!untilStopped || stopping) && pipeline.isIdle && (spool?.nothingUnderWay ?? true) && submissions.isEmpty {
                break
            }
            pipeline.report.flush()
            let hasRoom = pipeline.hasRoom
            var watched = [pollfd(fd: pipeline.dataStage.inbox.fd, events: Int16(POLLIN), revents: 0)]
            if reading && hasRoom { watched.append(pollfd(fd: input.fd, events: Int16(POLLIN), revents: 0)) }
            if let spool, hasRoom && !stopping { watched.append(pollfd(fd: spool.fd, events: Int16(POLLIN), revents: 0)) }
            if hasRoom { watched.append(pollfd(fd: submissions.fd, events: Int16(POLLIN), revents: 0)) }
            if !stopping { watched.append(pollfd(fd: shutdown, events: Int16(POLLIN), revents: 0)) }
            _ = poll(&watched, nfds_t(watched.count), pipeline.dataStage.millisecondsToNextDeadline())
            for ready in watched where ready.revents != 0 {
                switch ready.fd {
                case pipeline.dataStage.inbox.fd:
                    pipeline.takeCompletions()
                case input.fd:
                    do {
                        try input.fill()
                    } catch where untilStopped {
                        logger.warning("\(error); going on without standard input")
                        reading = false
                    }
                case shutdown:
                    logger.info("stopping: finishing what is under way, taking nothing new")
                    stopping = true
                    stopSources()
                case spool?.fd:
                    spool?.takeArrivals()
                default:
                    break  // Submissions: delivered at the top of the loop.
                }
            }
            pipeline.expireDeadlines()
        }
        pipeline.report.flush()
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

    /// Refuses later submissions (unblocking any waiting one), then calls
    /// `stop` of every started source plugin, in reverse load order.
    private func stopSources() {
        submissions.close()
        started.reversed().forEach { $0.stop() }
        started.removeAll()
    }

    /// Stops the source plugins still producing, then calls every plugin's `destroy`.
    package func shutdown() {
        stopSources()
        plugins.destroyAll()
    }
}
