#if canImport(Glibc)
import Glibc
#endif

/// Installs `handler` for `signals` (restarting the calls it interrupts)
/// and unblocks them on this thread: a blocked signal mask is inherited
/// (Foundation's Process spawns from threads that block nearly every signal).
func installHandler(_ handler: @convention(c) (Int32) -> Void, for signals: [Int32]) {
    var action = sigaction()
    action.__sigaction_handler.sa_handler = handler
    sigemptyset(&action.sa_mask)
    action.sa_flags = SA_RESTART
    var ours = sigset_t()
    sigemptyset(&ours)
    for signal in signals {
        sigaction(signal, &action, nil)
        sigaddset(&ours, signal)
    }
    pthread_sigmask(SIG_UNBLOCK, &ours, nil)
}
