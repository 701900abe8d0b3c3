#if canImport(Glibc)
import Glibc
#endif
import Logging
import PushHostRecords
import PushHostSystem
import Synchronization

/// A thread that watches the handler call under way on the dispatch thread
/// (through the crash journal) and ends the host when one does not return:
/// after `--handler-timeout`, or once a stop (SIGINT, SIGTERM) has waited
/// `--stop-timeout` for it. It learns of the stop from the signal itself,
/// since the dispatch thread, blocked in the call, cannot tell it, and
/// counts from the same instant as the run loop (`ShutdownSignal.firstAt`).
/// A call of the stop's own drain (the UI stage of a record whose data
/// stage ended, made once the deadline passed) is held to
/// `--handler-timeout` only. A source's `stop` and a plugin's `destroy` at
/// the end of the run are held to the stop's deadline (a quarter of a
/// second at least), so that no plugin keeps a stopping host alive.
///
/// A thread blocked in a plugin cannot be taken back, so the host exits
/// with status 4 after `beforeExit` wrote out the report, the line of the
/// record under way included (`Pipeline.giveUp`). After a timeout the journal
/// keeps the call, so the next start counts it against the spool file like
/// a crash; after a stop it does not (the file is simply tried again).
/// Should the call return after all, the dispatch thread stops in
/// `CrashJournal.leave` and never touches anything again.
final class Watchdog: @unchecked Sendable {
    /// The exit status of a host that gave up on a handler call.
    static let exitStatus: Int32 = 4

    private let journal: CrashJournal
    private let timeout: UInt64
    private let period: UInt32
    private let logger: Logger
    private let beforeExit: (GivenUpCall) -> Void
    private let stopTimeout: UInt64
    /// `--handler-timeout` and `--stop-timeout` as given, for the report's words.
    private let given: (handlerTimeout: Double, stopTimeout: Double)

    /// Starts watching: a call may take `timeout` seconds (0: forever), and
    /// `stopTimeout` seconds after a stop signal. `beforeExit` runs on the
    /// watchdog's thread just before the host exits, with the call given up.
    init(journal: CrashJournal, timeout: Double, stopTimeout: Double, logger: Logger, beforeExit: @escaping (GivenUpCall) -> Void) {
        self.journal = journal
        self.timeout = timeout > 0 ? UInt64(timeout * 1e9) : .max
        self.stopTimeout = UInt64(stopTimeout * 1e9)
        given = (timeout, stopTimeout)
        period = timeout > 0 ? UInt32(min(100_000, max(1_000, timeout * 250_000))) : 100_000
        self.logger = logger
        self.beforeExit = beforeExit
        DetachedThread.startOrFail { [self] in watch() }
    }

    private func watch() -> Never {
        var observed: UInt64 = 0
        var since: UInt64 = 0
        /// When a call still under way is given up (monotonic ns), once a stop signal came.
        var stop: UInt64 = 0
        while true {
            usleep(period)
            let now = MonotonicClock.now()
            if stop == 0 && ShutdownSignal.received.load(ordering: .acquiring) > 0 {
                stop = ShutdownSignal.firstAt.load(ordering: .relaxed) &+ stopTimeout
            }
            let call = journal.call.load(ordering: .acquiring)
            if call != observed {
                observed = call
                since = now
            }
            guard call & 1 == 1 else { continue }
            if now &- since >= timeout {
                giveUp(call, stopped: false, seconds: Double(now &- since) / 1e9)
            } else if stop != 0 && now >= deadline(of: call, since: since, stop: stop) {
                giveUp(call, stopped: true, seconds: Double(now &- since) / 1e9)
            }
        }
    }

    /// What a source's `stop` or a plugin's `destroy` gets at a stop whose
    /// deadline passed already (ns).
    private static let leastForTheStop: UInt64 = 250_000_000

    /// When a stop gives up on `call`, begun at `since`: at `stop`; a
    /// quarter of a second after it began at least for a source's `stop` or
    /// a `destroy`; never for a call of the drain.
    private func deadline(of call: UInt64, since: UInt64, stop: UInt64) -> UInt64 {
        if journal.isAtTheStop { return max(stop, since &+ Self.leastForTheStop) }
        return isDrain(call) ? .max : stop
    }

    /// Whether `call` is one the dispatch thread made after a stop's deadline passed.
    private func isDrain(_ call: UInt64) -> Bool {
        let from = journal.drainFrom.load(ordering: .acquiring)
        return from != 0 && call >= from
    }

    /// Ends the host on the call `call`, unless it returned meanwhile.
    private func giveUp(_ call: UInt64, stopped: Bool, seconds: Double) {
        let (held, _) = journal.call.compareExchange(expected: call, desired: call | CrashJournal.firedBit, ordering: .acquiringAndReleasing)
        guard held else { return }
        let (plugin, handler, place) = journal.callUnderWay()
        let waited = (seconds * 10).rounded() / 10
        let reason: String
        if stopped && journal.isAtTheStop {
            journal.clearCall()
            logger.error("stopping: plugin \(plugin) is still in \(handler) after \(waited)s; the host exits without it (status \(Self.exitStatus))")
            reason = "plugin \(plugin) was still in \(handler) when --stop-timeout \(given.stopTimeout)s ran out"
        } else if stopped {
            journal.clearCall()
            logger.error("stopping: plugin \(plugin) is still in \(handler) on \(place) after \(waited)s; exiting without it (a spool file stays in new/ for the next start)")
            reason = "plugin \(plugin) was still in \(handler) when --stop-timeout \(given.stopTimeout)s ran out (the host exited with status \(Self.exitStatus))"
        } else {
            journal.noteCause(CrashJournal.Cause.timeoutCode)
            logger.error("plugin \(plugin) did not return from \(handler) on \(place) within --handler-timeout (\(waited)s); the host exits (status \(Self.exitStatus))")
            reason = "plugin \(plugin) did not return from \(handler) within --handler-timeout \(given.handlerTimeout)s (the host exited with status \(Self.exitStatus))"
        }
        beforeExit(GivenUpCall(in: journal, reason: reason))
        _exit(Self.exitStatus)
    }
}
