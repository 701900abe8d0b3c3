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

    package init(cleanup: @escaping @Sendable () -> Void) {
        let signals = ShutdownSignal.install()
        DetachedThread.startOrFail { [self] in
            var wait = pollfd(fd: signals, events: Int16(POLLIN), revents: 0)
            while true {
                // Polled, never read: a signal after the hand-over stays for the run loop.
                let ready = poll(&wait, 1, 100) > 0
                let now = self.phase.withLock { phase in
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
        phase.withLock { phase in
            if phase == .setup { phase = .handedOver }
        }
    }
}
