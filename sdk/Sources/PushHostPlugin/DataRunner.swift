#if canImport(Glibc)
import Glibc
#endif
import Dispatch
import Synchronization

/// One long-lived task that runs a data plugin's handlers, so that a
/// handler that returns without suspending costs no task of its own.
///
/// The task waits between calls on a continuation. `run(_:)`, on the
/// host's thread, resumes it; the task prefers this executor, whose
/// `enqueue` runs that one resumption right there on the host's thread.
/// So the handler runs at once, on the host's thread, until it returns or
/// first suspends, and then `run(_:)` returns. Every other job of the task
/// (the rest of a handler that suspended, its child tasks) runs on
/// Dispatch's global queue. While a handler is suspended the runner is
/// busy, and `run(_:)` says so: the caller starts a task for that call.
final class DataRunner: TaskExecutor, @unchecked Sendable {
    /// `phase`: waiting for a call, the continuation stored.
    private static let idle: UInt8 = 0
    /// `phase`: `run(_:)` resumes the task on the thread in `handingThread`.
    private static let handing: UInt8 = 1
    /// `phase`: a call runs, or the task is on its way back to waiting.
    private static let busy: UInt8 = 2
    /// `phase`: `close()` came while busy; the task ends when the call does.
    private static let closing: UInt8 = 3
    /// `phase`: the task ended, or is ending.
    private static let closed: UInt8 = 4

    private let phase = Atomic<UInt8>(busy)
    /// The thread whose resumption runs at once (`pthread_self()`).
    private let handingThread = Atomic<UInt>(0)
    /// Written by the task before it becomes `idle`, taken by whoever moves
    /// it out of `idle`; `phase` orders the two.
    private var waiting: UnsafeContinuation<DataCall?, Never>?
    /// The task, set once by `init`.
    private var task: Task<Void, Never>?

    /// Starts the task; it runs on the calling thread until it waits for
    /// its first call.
    init() {
        hand {
            task = Task(executorPreference: self) { [self] in
                // The wait is written out here rather than in a method:
                // returning from one would cost the task a hop check each
                // call (an executor preference makes those take a lock).
                while true {
                    let call: DataCall? = await withUnsafeContinuation { continuation in
                        waiting = continuation
                        let (exchanged, now) = phase.compareExchange(
                            expected: Self.busy, desired: Self.idle, ordering: .acquiringAndReleasing)
                        if !exchanged, now == Self.closing {
                            phase.store(Self.closed, ordering: .releasing)
                            takeWaiting().resume(returning: nil)
                        }
                    }
                    guard let call else { return }
                    await call.run()
                }
            }
        }
    }

    /// Runs `call` on the task, at once, on this thread; false (and nothing
    /// run) when the task is busy with an earlier call that suspended.
    func run(_ call: DataCall) -> Bool {
        guard phase.compareExchange(expected: Self.idle, desired: Self.handing, ordering: .acquiringAndReleasing).exchanged
        else { return false }
        let continuation = takeWaiting()
        hand { continuation.resume(returning: call) }
        return true
    }

    /// Ends the task, cancelling the call under way, and waits until it has ended.
    func end() {
        guard let task else { return }
        close()
        task.cancel()
        task.waitForEnd()
    }

    /// Ends the task: at once when it waits, else once its call is over.
    private func close() {
        if phase.compareExchange(expected: Self.idle, desired: Self.handing, ordering: .acquiringAndReleasing).exchanged {
            let continuation = takeWaiting()
            hand { continuation.resume(returning: nil) }
            phase.store(Self.closed, ordering: .releasing)
        } else {
            _ = phase.compareExchange(expected: Self.busy, desired: Self.closing, ordering: .acquiringAndReleasing)
        }
    }

    /// Runs a resumption of the task at once when it is the one `hand`
    /// asked for on this thread; any other job goes to Dispatch's global
    /// queue, and runs there on this executor.
    func enqueue(_ job: consuming ExecutorJob) {
        if handingThread.load(ordering: .acquiring) == UInt(pthread_self()),
            phase.compareExchange(expected: Self.handing, desired: Self.busy, ordering: .acquiringAndReleasing).exchanged
        {
            job.runSynchronously(on: asUnownedTaskExecutor())
            return
        }
        let job = UnownedJob(job)
        let executor = asUnownedTaskExecutor()
        DispatchQueue.global().async { job.runSynchronously(on: executor) }
    }

    /// Does `resume`, whose job `enqueue` runs at once on this thread. Had
    /// it gone elsewhere, the task is still busy, not waiting.
    private func hand(_ resume: () -> Void) {
        handingThread.store(UInt(pthread_self()), ordering: .releasing)
        phase.store(Self.handing, ordering: .releasing)
        resume()
        handingThread.store(0, ordering: .releasing)
        _ = phase.compareExchange(expected: Self.handing, desired: Self.busy, ordering: .acquiringAndReleasing)
    }

    /// The continuation the task left when it became idle.
    private func takeWaiting() -> UnsafeContinuation<DataCall?, Never> {
        let continuation = waiting!
        waiting = nil
        return continuation
    }
}
