#if canImport(Glibc)
import Glibc
#endif
import Logging
import PushHostSystem

/// How a log line is written: `text` for a person, `json` for a collector.
package enum LogFormat: String, CaseIterable, Sendable {
    case text
    case json
}

/// What the log keeps and how its lines look, decided once before the
/// first line: `--log-level` and `--log-format` win over
/// `PUSHHOST_LOG_LEVEL` and `PUSHHOST_LOG_FORMAT`, which win over `info`
/// and `text`.
package struct LogSettings: Sendable {
    package var level: Logger.Level = .info
    package var format: LogFormat = .text
    /// Standard error is the systemd journal (`JOURNAL_STREAM` names it):
    /// text lines then start with a `<N>` priority instead of a timestamp,
    /// since the journal stamps each line itself.
    package var journal = false

    package init(level: Logger.Level = .info, format: LogFormat = .text, journal: Bool = false) {
        self.level = level
        self.format = format
        self.journal = journal
    }

    /// The settings the environment gives.
    ///
    /// - Throws: `UsageError` naming the variable when its value is no level
    ///   or format; `fallback` then holds what holds without it.
    package static func fromEnvironment(fallback: inout LogSettings) throws(UsageError) {
        fallback.journal = standardErrorIsJournal()
        if let text = getenv("PUSHHOST_LOG_LEVEL").map({ String(cString: $0) }), !text.isEmpty {
            guard let level = Logger.Level(rawValue: text.lowercased()) else {
                throw UsageError("PUSHHOST_LOG_LEVEL=\(text): not a level (\(levelNames))")
            }
            fallback.level = level
        }
        if let text = getenv("PUSHHOST_LOG_FORMAT").map({ String(cString: $0) }), !text.isEmpty {
            guard let format = LogFormat(rawValue: text.lowercased()) else {
                throw UsageError("PUSHHOST_LOG_FORMAT=\(text): not a format (text, json)")
            }
            fallback.format = format
        }
    }

    /// The level names, least severe first.
    package static let levelNames = Logger.Level.allCases.map(\.rawValue).joined(separator: ", ")

    /// Whether file descriptor 2 is the stream `JOURNAL_STREAM` names
    /// (`DEVICE:INODE`, set by systemd for a service whose standard error
    /// goes to the journal): a redirected standard error is not.
    static func standardErrorIsJournal() -> Bool {
        guard let value = getenv("JOURNAL_STREAM") else { return false }
        let parts = String(cString: value).split(separator: ":")
        var status = stat()
        guard parts.count == 2, let device = UInt64(parts[0]), let inode = UInt64(parts[1]), fstat(2, &status) == 0 else {
            return false
        }
        return UInt64(status.st_dev) == device && UInt64(status.st_ino) == inode
    }
}
