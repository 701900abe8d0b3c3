#if canImport(Glibc)
import Glibc
#endif
import PushHostSystem
import Synchronization

/// A process the host started for a plugin (a worker, a process plugin's
/// program), as far as its life goes: the calls posted to it and answered,
/// against `--handler-timeout`; why the host killed it; and its end, which
/// its watcher thread learns and the dispatch thread waits for.
package class ChildProcess: @unchecked Sendable {
    /// The process the host waits for and kills (``WorkerSpawn/Started``).
    final let pid: pid_t
    private final let started: WorkerSpawn.Started
    /// Its standard output and error (a program's: its standard error), which the host logs.
    private final let output: WorkerOutput
    /// Calls posted, and calls returned: written by the dispatch thread
    /// alone (a load and a store, no read-modify-write), read by the watcher.
    final let posted = Atomic<UInt64>(0)
    final let returned = Atomic<UInt64>(0)
    /// When the calls last made progress (monotonic ns, the coarse clock:
    /// noted per call, for a timeout in seconds): a call returned, or one
    /// was posted to an idle process.
    final let progress = Atomic<UInt64>(0)
    /// Why the host killed it for a call under way (a ``KillReason``'s raw
    /// value; 0 before): the first reason wins.
    private final let killReason = Atomic<UInt8>(0)
    /// Its wait status, once it ended (-1 before).
    private final let ended = Mutex<Int32>(-1)
    private final let endedPipe = WakePipe()

    /// Why the host kills a process with a call under way.
    enum KillReason: UInt8 {
        /// The call was under way longer than `--handler-timeout` (the watcher).
        case handlerTimeout = 1
        /// A stop's `--stop-timeout` ran out while it was (the dispatch thread).
        case stopTimeout = 2
    }

    init(started: WorkerSpawn.Started, output: WorkerOutput) {
        pid = started.pid
        self.started = started
        self.output = output
        progress.store(MonotonicClock.coarse(), ordering: .relaxed)
    }

    deinit {
        endedPipe.close()
    }

    /// Why it was killed for a call under way, once it was.
    final var killedFor: KillReason? { KillReason(rawValue: killReason.load(ordering: .relaxed)) }

    /// Kills it for `reason`, unless it was killed for one already.
    final func kill(for reason: KillReason) {
        if killReason.compareExchange(expected: 0, desired: reason.rawValue, ordering: .relaxed).exchanged {
            Glibc.kill(pid, SIGKILL)
        }
    }

    /// Notes a posted call; the clock of a process that had nothing to do starts now.
    final func notePosted() {
        let before = posted.load(ordering: .relaxed)
        posted.store(before &+ 1, ordering: .relaxed)
        if before == returned.load(ordering: .relaxed) { progress.store(MonotonicClock.coarse(), ordering: .relaxed) }
    }

    /// Notes that `count` calls returned (dispatch thread, as it takes their answers).
    final func noteReturned(_ count: UInt64) {
        returned.store(returned.load(ordering: .relaxed) &+ count, ordering: .relaxed)
        progress.store(MonotonicClock.coarse(), ordering: .relaxed)
    }

    /// Its wait status once it ended, waiting up to `timeout` seconds; nil while it runs.
    final func waitForEnd(timeout: Double) -> Int32? {
        let deadline = MonotonicClock.now() &+ UInt64(max(0, timeout) * 1e9)
        while true {
            if let status = endStatus { return status }
            let left = MonotonicClock.milliseconds(until: deadline)
            guard left > 0 else { return nil }
            var watched = pollfd(fd: endedPipe.readEnd, events: Int16(POLLIN), revents: 0)
            _ = poll(&watched, 1, left)
        }
    }

    /// Its wait status, or nil while it runs.
    final var endStatus: Int32? {
        let status = ended.withLock { $0 }
        return status < 0 ? nil : status
    }

    /// Waits for it to end until `deadline` (monotonic ns), then kills it
    /// (for `--stop-timeout`) and waits for that: true when it had to.
    final func end(by deadline: UInt64) -> Bool {
        guard waitForEnd(timeout: Double(MonotonicClock.milliseconds(until: deadline)) / 1000) == nil else { return false }
        kill(for: .stopTimeout)
        _ = waitForEnd(timeout: 5)
        return true
    }

    /// Waits up to `timeout` seconds until what it wrote is logged.
    final func finishOutput(timeout: Double) {
        output.finish(timeout: timeout)
    }

    /// Waits up to `timeout` seconds for the report of its end (``WorkerSpawn/Started/awaitReport(timeout:)``).
    final func awaitReport(timeout: Double) {
        started.awaitReport(timeout: timeout)
    }

    /// Its wait status, given what `waitpid` said of ``pid``.
    final func status(waited: Int32) -> Int32 {
        started.status(waited: waited)
    }

    /// [watcher] Kills it (a process that stands in for it first given a
    /// second to report how it ended, when it was `reported` to end on its
    /// own), waits for it, logs its last words, and notes its end: its wait status.
    final func reap(reported: Bool) -> Int32 {
        if reported { awaitReport(timeout: 1) }
        Glibc.kill(pid, SIGKILL)
        var status: Int32 = 0
        while waitpid(pid, &status, 0) < 0 && errno == EINTR {}
        status = self.status(waited: status)
        // Its last words before what the host says of its end (a process it started may hold the pipe: not long).
        finishOutput(timeout: 1)
        ended.withLock { $0 = status }
        endedPipe.wake()
        return status
    }

    /// Starts the thread that watches it: it polls `end` for `events`
    /// (the sign that the process is gone; -1: none, where the kernel has no
    /// pidfd, and its end is looked for every 10 ms), kills it when a call
    /// goes over `timeout` seconds (0: never) unless `hostIsBehind` (answers
    /// the host has not taken: then `waiting` wakes the host for them), and
    /// runs `gone` once it is gone.
    final func watch(
        end: Int32, events: Int16, timeout: Double, hostIsBehind: @escaping @Sendable () -> Bool, waiting: @escaping @Sendable () -> Void,
        gone: @escaping @Sendable () -> Void
    ) {
        let limit = timeout > 0 ? UInt64(timeout * 1e9) : UInt64.max
        DetachedThread.startOrFail { [self] in
            let period: Int32 = limit == .max ? -1 : Int32(max(5, min(100, Double(limit) / 4e6)))
            while true {
                var watched = pollfd(fd: end, events: events, revents: 0)
                let ready = poll(&watched, 1, end < 0 ? (period < 0 ? 10 : min(period, 10)) : period)
                if ready < 0 && errno == EINTR { continue }
                if ready != 0 || (end < 0 && hasEnded) { break }
                checkTimeout(limit, hostIsBehind: hostIsBehind, waiting: waiting)
            }
            gone()
        }
    }

    /// Whether it ended, without reaping it (``reap(reported:)`` does).
    private final var hasEnded: Bool {
        var info = siginfo_t()
        return waitid(P_PID, id_t(pid), &info, WEXITED | WNOHANG | WNOWAIT) == 0 && info._sifields._kill.si_pid != 0
    }

    /// Kills it when a call has been under way longer than `limit` ns.
    private final func checkTimeout(_ limit: UInt64, hostIsBehind: () -> Bool, waiting: () -> Void) {
        guard limit != .max, posted.load(ordering: .relaxed) > returned.load(ordering: .relaxed) else { return }
        // Answers the host has not taken yet: the process is not the one behind.
        // The host is woken for them, in case they came without the wake-up
        // owed: a hang then comes to its deadline.
        if hostIsBehind() {
            progress.store(MonotonicClock.coarse(), ordering: .relaxed)
            return waiting()
        }
        guard MonotonicClock.coarse() &- progress.load(ordering: .relaxed) > limit else { return }
        kill(for: .handlerTimeout)
    }
}
