#if canImport(Glibc)
import Glibc
#endif
import Synchronization

/// SIGINT and SIGTERM, turned into a readable pipe the run loop polls: the
/// handler only writes a byte, and the loop then stops taking new work,
/// finishes what is under way and returns.
package enum ShutdownSignal {
    /// The pipe the handler writes to; set once, before the handlers go in.
    nonisolated(unsafe) private static var pipe: WakePipe?
    /// How many signals came, for a thread that cannot poll the pipe.
    package static let received = Atomic<Int>(0)
    /// When the first signal came (`MonotonicClock`, ns; 0 before): the
    /// run loop and the watchdog count `--stop-timeout` from the same instant.
    package static let firstAt = Atomic<UInt64>(0)
    /// The first signal's number (0 before).
    static let first = Atomic<Int32>(0)

    /// Installs the handlers and returns the end to poll.
    package static func install() -> Int32 {
        let wake = pipe ?? WakePipe()
        pipe = wake
        installHandler({ number in
            // clock_gettime is async-signal-safe.
            _ = ShutdownSignal.firstAt.compareExchange(expected: 0, desired: MonotonicClock.now(), ordering: .relaxed)
            _ = ShutdownSignal.first.compareExchange(expected: 0, desired: number, ordering: .relaxed)
            ShutdownSignal.received.add(1, ordering: .releasing)
            ShutdownSignal.pipe?.wake()
        }, for: [SIGINT, SIGTERM])
        return wake.readEnd
    }
}
