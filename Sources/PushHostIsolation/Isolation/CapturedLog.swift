import Logging
import PushHostSystem
import Synchronization

/// The log lines one plugin wrote while a dry run created and destroyed it
/// (``DryRun``), each as `LEVEL SOURCE: MESSAGE`, escaped as a text log
/// line is (`error broken: no database here`), for the listing. Each line
/// goes to the log as well, as it comes.
package final class CapturedLog: Sendable {
    private let lines = Mutex<[String]>([])
    /// The most lines kept: the last ones (nil: all).
    private let limit: Int?

    package init() {
        limit = nil
    }

    /// Keeps only the last `limit` lines (a program's last words, for the reason it was refused).
    init(keepingLast limit: Int) {
        self.limit = limit
    }

    /// The lines so far, first first.
    package var all: [String] { lines.withLock { $0 } }

    /// Keeps the line of a log record.
    func keep(_ level: Logger.Level, source: String, _ message: String) {
        keep(line: "\(level.rawValue) \(source): \(message)")
    }

    /// Keeps a line as it was written (a worker's line that is no log record).
    func keep(line: String) {
        let escaped = LogEscape.escaped(line)
        lines.withLock { lines in
            lines.append(escaped)
            if let limit, lines.count > limit { lines.removeFirst(lines.count - limit) }
        }
    }

    /// A logger labelled `label` that logs as `Logger(label:)` does, and keeps here what it logs.
    package func logger(label: String) -> Logger {
        let handler = Logger(label: label).handler
        return Logger(label: label) { _ in Keeping(handler: handler, source: label, log: self) }
    }

    /// Keeps each record it passes on: only those the log level lets through reach it.
    private struct Keeping: LogHandler {
        var handler: any LogHandler
        let source: String
        let log: CapturedLog

        var metadata: Logger.Metadata {
            get { handler.metadata }
            set { handler.metadata = newValue }
        }

        var logLevel: Logger.Level {
            get { handler.logLevel }
            set { handler.logLevel = newValue }
        }

        subscript(metadataKey key: String) -> Logger.Metadata.Value? {
            get { handler[metadataKey: key] }
            set { handler[metadataKey: key] = newValue }
        }

        func log(event: LogEvent) {
            log.keep(event.level, source: source, "\(event.message)")
            handler.log(event: event)
        }
    }
}
