#if canImport(Glibc)
import Glibc
#endif
import Logging

/// The host of one run: the created plugins, and the loop that feeds them
/// every record from standard input and the spool.
public final class PluginHost {
    let plugins: PluginSet
    let dispatcher: Dispatcher
    let logger: Logger

    /// Loads and creates the plugins; any refusal is a `SetupError` unless
    /// `skipBadPlugins` is set.
    public init(
        catalog: PluginCatalog,
        overrides: [SettingOverride],
        skipBadPlugins: Bool,
        tokens: TokenStore,
        report: String?,
        options: DispatchOptions,
        logger: Logger
    ) throws(SetupError) {
        self.logger = logger
        let writer: ReportWriter? = switch report {
        case nil: nil
        case "-": ReportWriter(standardOutput: ())
        case let path?: try ReportWriter(path: path)
        }
        plugins = try PluginSet(catalog: catalog, overrides: overrides, skipBad: skipBadPlugins, tokens: tokens, logger: logger)
        do {
            dispatcher = try Dispatcher(plugins: plugins, tokens: tokens, report: writer, options: options, logger: logger)
        } catch {
            plugins.destroyAll()
            throw error
        }
    }

    /// How many records were rejected, and how many messages failed, so far.
    public var rejectedCount: Int { dispatcher.rejectedCount }
    public var failedCount: Int { dispatcher.failedCount }

    /// Dispatches every record of standard input until it ends, and of the
    /// spool (when given) until SIGINT or SIGTERM; then finishes what is
    /// under way (pending data verdicts included, within their deadline).
    public func run(spool: Spool? = nil) throws(SetupError) {
        let input = StdinReader(fd: 0, maxBytes: dispatcher.options.maxBytes)
        let shutdown = spool == nil ? nil : ShutdownSignal.install()
        let intake = try spool.map { spool throws(SetupError) in try SpoolIntake(spool: spool, dispatcher: dispatcher, logger: logger) }
        dispatcher.recordFinished = intake.map { intake in { intake.recordFinished($0, status: $1, problem: $2) } }
        var reading = true
        var stopping = false
        while true {
            if !stopping {
                while reading, dispatcher.mayRead, let line = input.next() {
                    submit(line)
                    dispatcher.takeCompletionsIfAny()
                }
                intake?.handleWaiting { dispatcher.mayRead }
            }
            reading = reading && !stopping && !input.finished
            if !reading && (intake == nil || stopping) && dispatcher.isIdle && (intake?.nothingUnderWay ?? true) { break }
            dispatcher.report?.flush()
            if reading && intake == nil && dispatcher.isIdle {
                try input.fill()  // Only standard input and nothing pending: block on it.
                continue
            }
            var watched = [pollfd(fd: dispatcher.inbox.fd, events: Int16(POLLIN), revents: 0)]
            let canRead = !stopping && dispatcher.mayRead
            if reading && canRead { watched.append(pollfd(fd: input.fd, events: Int16(POLLIN), revents: 0)) }
            if let intake, canRead { watched.append(pollfd(fd: intake.fd, events: Int16(POLLIN), revents: 0)) }
            if let shutdown, !stopping { watched.append(pollfd(fd: shutdown, events: Int16(POLLIN), revents: 0)) }
            _ = poll(&watched, nfds_t(watched.count), dispatcher.millisecondsToNextDeadline())
            for ready in watched where ready.revents != 0 {
                switch ready.fd {
                case dispatcher.inbox.fd:
                    dispatcher.takeCompletions()
                case input.fd:
                    do {
                        try input.fill()
                    } catch where intake != nil {
                        logger.warning("\(error); going on with the spool only")
                        reading = false
                    }
                case shutdown:
                    logger.info("stopping: finishing what is under way, taking nothing new")
                    stopping = true
                default:
                    intake?.takeArrivals()
                }
            }
            dispatcher.expireDeadlines()
        }
        dispatcher.report?.flush()
    }

    private func submit(_ record: ParsedBatch.Record) {
        switch record {
        case .parsed(let document, let line): dispatcher.submit(document, source: .stdin(line: line))
        case .invalid(let error, let line): dispatcher.submitInvalid(error, source: .stdin(line: line))
        case .tooLong(let line): dispatcher.submitTooLong(source: .stdin(line: line))
        }
    }

    /// Calls every plugin's `destroy`.
    public func shutdown() {
        plugins.destroyAll()
    }
}
