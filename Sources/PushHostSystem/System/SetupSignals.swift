#if canImport(Glibc)
import Glibc
#endif
import Synchronization

/// SIGINT and SIGTERM while the host sets up (loads and creates its
/// plugins, which may take long), before a run loop takes them as a stop:
/// the process still ends by the signal, as without pushhost's handlers,
/// but `cleanup` runs first, so that an `--ephemeral` run's folder is not
/// left behind. A thread of its own waits on the signal's pipe; from
/// ``handOver()`` on, a signal is the run loop's.
package final class SetupSignals: Sendable {
    private enum SignalTaker { case setup, ending, handedOver }
    private let phase = Mutex(SignalTaker.setup)
    /// Wakes the thread at the hand-over, so that it sleeps until one or the
    /// other. Never closed: `handOver` may write to it after the thread ended.
    private let handedOver = WakePipe()

    package init(cleanup: @escaping @Sendable () -> Void) {
        let signals = ShutdownSignal.install()
        DetachedThread.startOrFail { [self] in
            // The signal pipe is polled, never read: a signal after the
            // hand-over stays for the run loop.
            var waits = [pollfd(fd: signals, events: Int16(POLLIN), revents: 0),
                         pollfd(fd: handedOver.readEnd, events: Int16(POLLIN), revents: 0)]
            while true {
                let ready = poll(&waits, 2, -1) > 0 && waits[0].revents != 0
                let now = phase.withLock { phase in
                    if phase == .setup && ready { phase = .ending }
                    return phase
                }
                if now == .handedOver { return }
                if now == .ending { break }
            }
            cleanup()
            let number = ShutdownSignal.first.load(ordering: .relaxed)
            signal(number, SIG_DFL)
            kill(getpid(), number)
            _exit(128 + number)
        }
    }

    /// From now on a signal is a stop, which the run loop takes; one that
    /// came before is already being handled (the process is ending).
    package func handOver() {
        let handed = phase.withLock { phase in
            if phase == .setup { phase = .handedOver }
            return phase == .handedOver
        }
        if handed { handedOver.wake() }
    }
}
