#if canImport(Glibc)
import Glibc
#endif

extension CrashJournal {
    /// What ended a run during a handler call.
    package enum Cause: Equatable, Sendable, CustomStringConvertible {
        /// A signal the host caught on its way down (SIGSEGV, SIGABRT, ...).
        case signal(Int32)
        /// The handler did not return within `--handler-timeout`.
        case timeout
        /// No cause was noted: SIGKILL, or the machine went down.
        case unknown

        init(code: Int32) {
            self = code > 0 ? .signal(code) : code == Self.timeoutCode ? .timeout : .unknown
        }

        package static let timeoutCode: Int32 = -1

        package var description: String {
            switch self {
            case .signal(let number): Self.signalName(number)
            case .timeout: "no return within --handler-timeout"
            case .unknown: "killed (SIGKILL or a power loss: no signal was noted)"
            }
        }

        /// `SIGSEGV`, or `signal 42` for one without a common name.
        package static func signalName(_ number: Int32) -> String {
            let names: [Int32: String] = [
                SIGSEGV: "SIGSEGV", SIGBUS: "SIGBUS", SIGILL: "SIGILL", SIGFPE: "SIGFPE",
                SIGABRT: "SIGABRT", SIGTRAP: "SIGTRAP", SIGSYS: "SIGSYS", SIGKILL: "SIGKILL", SIGXCPU: "SIGXCPU",
            ]
            return names[number] ?? "signal \(number)"
        }
    }

    /// A crash of a run during a call on a spool file's record, and how many
    /// such crashes the file has caused.
    package struct Crash: Equatable, Sendable {
        /// The spool file whose record was under way; empty for another source.
        package let file: String
        /// Where the record came from, in words (`spool file x.json`, `line 7`).
        package let place: String
        package let plugin: String
        package let handler: String
        package let cause: Cause
        package var count: Int

        /// `plugin cache crashed in on_data: SIGSEGV`.
        package var summary: String {
            switch cause {
            case .signal: "plugin \(plugin) crashed in \(handler): \(cause)"
            case .timeout: "plugin \(plugin) did not return from \(handler) within --handler-timeout"
            case .unknown: "the host was killed while plugin \(plugin) was in \(handler)"
            }
        }
    }
}
