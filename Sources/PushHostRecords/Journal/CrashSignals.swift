#if canImport(Glibc)
import Glibc
#endif

/// The signals a crash raises (SIGSEGV, SIGBUS, SIGILL, SIGFPE, SIGABRT,
/// SIGTRAP, SIGSYS), noted in the crash journal on the way down: the
/// handler stores the signal's number, puts back the action that was there
/// before (the default, or the Swift runtime's backtracer) and raises the
/// signal again, so the process ends exactly as it would have.
package enum CrashSignals {
    static let numbers = [SIGSEGV, SIGBUS, SIGILL, SIGFPE, SIGABRT, SIGTRAP, SIGSYS]

    /// Where the handler writes the signal's number in the journal; set
    /// once, before the handlers go in.
    nonisolated(unsafe) private static var cause: UnsafeMutablePointer<Int32>?
    /// The actions that were there before, by signal number.
    nonisolated(unsafe) private static var previous = UnsafeMutablePointer<sigaction>.allocate(capacity: 65)

    /// Installs the handlers, which note their signal in `journal`.
    package static func install(_ journal: CrashJournal) {
        cause = journal.causeSlot
        var action = sigaction()
        action.__sigaction_handler.sa_handler = { number in
            CrashSignals.cause?.pointee = number
            sigaction(number, CrashSignals.previous + Int(number), nil)
            raise(number)
        }
        sigemptyset(&action.sa_mask)
        action.sa_flags = SA_ONSTACK
        for number in numbers {
            sigaction(number, &action, previous + Int(number))
        }
    }
}
