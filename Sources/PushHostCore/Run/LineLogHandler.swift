#if canImport(Glibc)
import Glibc
#endif
import Logging
import PushHostJSON
import PushHostSystem

/// Writes each log record to standard error as one line, in the style
/// `LogSettings` chose:
///
/// ```
/// 2026-11-22T19:40:03.127Z error pushhost: refused plugin ./plugins/bad.so: no ph_plugin_entry symbol
/// <6>info cache: 3 messages cached                                  (standard error is the journal)
/// {"time":"2026-11-22T19:40:03.127Z","level":"info","source":"cache","message":"3 messages cached"}
/// ```
///
/// The source is `pushhost` for the host and the plugin's name for what a
/// plugin logs, so every line says who speaks; every error the host
/// reports, usage errors included, is an `error pushhost:` line.
///
/// One record is always exactly one line. In text, the message and the
/// metadata are escaped by `LogEscape` (a newline in a message id prints
/// as `\n`, an ESC as `\x1b`); in JSON they are JSON strings. So no text a
/// message or a plugin carries can forge a line. Each line goes out in a
/// single `write(2)`, so lines from plugin threads never interleave.
package struct LineLogHandler: LogHandler {
    package var metadata: Logger.Metadata = [:]
    package var logLevel: Logger.Level
    let source: String
    let settings: LogSettings

    package init(source: String, settings: LogSettings) {
        self.source = source
        self.settings = settings
        self.logLevel = settings.level
    }

    package subscript(metadataKey key: String) -> Logger.Metadata.Value? {
        get { metadata[key] }
        set { metadata[key] = newValue }
    }

    package func log(event: LogEvent) {
        let extra = metadata.merging(event.metadata ?? [:]) { $1 }.sorted { $0.key < $1.key }
        switch settings.format {
        case .text:
            var line = "\(event.level.rawValue) \(source): \(event.message)"
            for (key, value) in extra {
                line += " \(key)=\(value)"
            }
            let prefix = settings.journal ? "<\(event.level.journalPriority)>" : wallClockText() + " "
            FileContents.write(Array((prefix + LogEscape.escaped(line) + "\n").utf8), to: 2)
        case .json:
            var line = JSONLine()
            line.string("time", wallClockText())
            line.string("level", event.level.rawValue)
            line.string("source", source)
            line.string("message", "\(event.message)")
            if !extra.isEmpty {
                line.key("metadata")
                line.bytes.append(UInt8(ascii: "{"))
                for (index, (key, value)) in extra.enumerated() {
                    if index > 0 { line.bytes.append(UInt8(ascii: ",")) }
                    JSONWriter.appendString(key, to: &line.bytes)
                    line.bytes.append(UInt8(ascii: ":"))
                    JSONWriter.appendString("\(value)", to: &line.bytes)
                }
                line.bytes.append(UInt8(ascii: "}"))
            }
            FileContents.write(line.finished(), to: 2)
        }
    }
}

extension Logger.Level {
    /// The syslog priority the journal reads from a `<N>` line prefix.
    var journalPriority: Int {
        switch self {
        case .trace, .debug: 7
        case .info: 6
        case .notice: 5
        case .warning: 4
        case .error: 3
        case .critical: 2
        }
    }
}
