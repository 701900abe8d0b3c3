import ArgumentParser
import Logging
import PushHostCore
import PushHostSystem
import PushHostPlugins

/// The log flags every command takes.
struct LogOptions: ParsableArguments {
    @Option(help: ArgumentHelp(
        "Log this level and above (default: $PUSHHOST_LOG_LEVEL, else info).",
        valueName: Logger.Level.allCases.map(\.rawValue).joined(separator: "|")))
    var logLevel: Logger.Level?

    @Option(help: ArgumentHelp(
        "Write log lines as text (with a timestamp, or a <N> priority when standard error is the journal) or one JSON object each (default: $PUSHHOST_LOG_FORMAT, else text).",
        valueName: "text|json"))
    var logFormat: LogFormat?

    /// `settings`, with what these flags say over it.
    func applied(to settings: LogSettings) -> LogSettings {
        var settings = settings
        if let logLevel { settings.level = logLevel }
        if let logFormat { settings.format = logFormat }
        return settings
    }
}

extension LogOptions {
    /// The flags that make a worker log as this command does (these flags over the environment's).
    func workerArguments() throws(UsageError) -> [String] {
        var logging = LogSettings()
        try LogSettings.fromEnvironment(fallback: &logging)
        logging = applied(to: logging)
        return ["--log-level", logging.level.rawValue, "--log-format", logging.format.rawValue]
    }
}

/// A command that takes the log flags.
protocol LoggingCommand {
    var log: LogOptions { get }
}

extension Logger.Level: @retroactive ExpressibleByArgument {}
extension LogFormat: ExpressibleByArgument {}
extension SandboxMode: ExpressibleByArgument {}
