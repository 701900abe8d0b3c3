#if canImport(Glibc)
import Glibc
#endif
import Logging

/// Writes each log record to standard error as one line: level, source, text.
///
/// The source is `pushhost` for the host and the plugin's name for what a
/// plugin logs, so every line says who speaks:
///
/// ```
/// error pushhost: refused plugin ./plugins/bad.so: no ph_plugin_entry symbol
/// info cache: 3 messages cached
/// ```
///
/// One record is always exactly one line: the message, metadata keys and
/// values are escaped by `LogEscape` (a newline in a message id prints as
/// `\n`, an ESC as `\x1b`), so no text a message or a plugin carries can
/// forge a line. Each line goes out in a single `write(2)`, so lines from
/// plugin threads never interleave.
package struct LineLogHandler: LogHandler {
    package var metadata: Logger.Metadata = [:]
    package var logLevel: Logger.Level
    let source: String

    package init(source: String, level: Logger.Level = .info) {
        self.source = source
        self.logLevel = level
    }

    package subscript(metadataKey key: String) -> Logger.Metadata.Value? {
        get { metadata[key] }
        set { metadata[key] = newValue }
    }

    package func log(event: LogEvent) {
        var line = "\(event.level.word) \(source): \(event.message)"
        let extra = metadata.merging(event.metadata ?? [:]) { $1 }
        for (key, value) in extra.sorted(by: { $0.key < $1.key }) {
            line += " \(key)=\(value)"
        }
        FileContents.write(Array((LogEscape.escaped(line) + "\n").utf8), to: 2)
    }
}

extension Logger.Level {
    /// The word a log line starts with.
    var word: String {
        switch self {
        case .trace: "trace"
        case .debug: "debug"
        case .info: "info"
        case .notice: "notice"
        case .warning: "warning"
        case .error: "error"
        case .critical: "critical"
        }
    }
}
