#if canImport(Glibc)
import Glibc
#endif
import Logging

/// The host of one run: the created plugins, and the dispatch of every
/// record of the input to them.
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

    /// Dispatches every NDJSON record of `fd` until it ends and every
    /// pending data verdict is in (or past its deadline).
    public func run(standardInput fd: Int32 = 0) throws(SetupError) {
        var reader = LineReader(fd: fd, maxBytes: dispatcher.options.maxBytes)
        while !reader.finished {
            while dispatcher.mayRead, let line = reader.next() {
                switch line {
                case .record(let bytes, let number): dispatcher.submit(bytes, source: .stdin(line: number))
                case .tooLong(let number): dispatcher.submitTooLong(source: .stdin(line: number))
                }
                if !dispatcher.pending.isEmpty { dispatcher.takeCompletionsIfAny() }
            }
            if reader.finished { break }
            dispatcher.report?.flush()
            if dispatcher.pending.isEmpty {
                try reader.fill()
                continue
            }
            if wait(input: dispatcher.mayRead ? fd : nil) { try reader.fill() }
        }
        while !dispatcher.pending.isEmpty {
            dispatcher.report?.flush()
            _ = wait(input: nil)
        }
        dispatcher.report?.flush()
    }

    /// Waits for completions, a deadline, or (when given) input; handles the
    /// first two and says whether input is ready.
    private func wait(input: Int32?) -> Bool {
        var fds = [pollfd(fd: dispatcher.inbox.fd, events: Int16(POLLIN), revents: 0)]
        if let input { fds.append(pollfd(fd: input, events: Int16(POLLIN), revents: 0)) }
        let ready = poll(&fds, nfds_t(fds.count), dispatcher.millisecondsToNextDeadline())
        if ready > 0 && fds[0].revents != 0 { dispatcher.takeCompletions() }
        dispatcher.expireDeadlines()
        return fds.count > 1 && fds[1].revents != 0
    }

    /// Calls every plugin's `destroy`.
    public func shutdown() {
        plugins.destroyAll()
    }
}
