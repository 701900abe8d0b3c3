#if canImport(Glibc)
import Glibc
#endif
import CPushHost

/// Records that plugins submit through `ph.intake/1`, from any thread,
/// waiting for the dispatch thread to hand them to the intake.
///
/// `submit` copies the record into a bounded queue and wakes the dispatch
/// thread through a pipe it polls; while the queue is full (the host holds
/// back because messages wait for their data stage), `submit` blocks. Once
/// the host stops (`close`), `submit` returns -1 at once, blocked callers
/// included, and the records already accepted are still dispatched: every
/// accepted record gets its `done`.
final class PluginSubmissions: @unchecked Sendable {
    /// A plugin's `done` callback.
    typealias Done = @convention(c) (UnsafeMutableRawPointer?, ph_result, UnsafePointer<CChar>) -> Void

    private struct Submission {
        let bytes: [UInt8]
        let source: RecordSource
        let done: Done?
        let context: UnsafeMutableRawPointer?
    }

    /// Readable when something was submitted.
    var fd: Int32 { wakePipe.readEnd }
    private let wakePipe = WakePipe()
    private let capacity: Int
    private let lock = UnsafeMutablePointer<pthread_mutex_t>.allocate(capacity: 1)
    private let roomMade = UnsafeMutablePointer<pthread_cond_t>.allocate(capacity: 1)
    // Under `lock`:
    private var queue: [Submission] = []
    private var head = 0
    private var closed = false
    private var counts: [String: Int] = [:]
    private var dispatchThread: pthread_t?

    /// A queue that holds up to `capacity` records before `submit` blocks.
    init(capacity: Int) {
        self.capacity = capacity
        pthread_mutex_init(lock, nil)
        pthread_cond_init(roomMade, nil)
    }

    deinit {
        pthread_mutex_destroy(lock)
        pthread_cond_destroy(roomMade)
        lock.deallocate()
        roomMade.deallocate()
        wakePipe.close()
    }

    /// Notes the calling thread as the dispatch thread, which never blocks
    /// in `submit` (it is the one that makes room).
    func openOnThisThread() {
        locked { dispatchThread = pthread_self() }
    }

    /// [any thread] Takes a copy of `bytes` from `plugin`: 0, or -1 when
    /// the host is stopping (`done` is then never called).
    func submit(_ bytes: UnsafeRawBufferPointer, from plugin: String, done: Done?, context: UnsafeMutableRawPointer?) -> Int32 {
        let copy = [UInt8](bytes)
        pthread_mutex_lock(lock)
        defer { pthread_mutex_unlock(lock) }
        let onDispatchThread = dispatchThread.map { pthread_equal($0, pthread_self()) != 0 } ?? true
        while !closed && !onDispatchThread && queue.count - head >= capacity {
            pthread_cond_wait(roomMade, lock)
        }
        guard !closed else { return -1 }
        let number = (counts[plugin] ?? 0) + 1
        counts[plugin] = number
        queue.append(Submission(bytes: copy, source: .plugin(name: plugin, record: number), done: done, context: context))
        if queue.count - head == 1 { wakePipe.wake() }
        return 0
    }

    /// [dispatch thread] Hands the submitted records to `intake`, in
    /// submission order, while it has room.
    func deliver(to intake: some Intake) {
        wakePipe.drain()
        while intake.hasRoom, let submission = next() {
            let completion: RecordCompletion? = submission.done.map { done in
                let context = submission.context
                return { outcome in
                    var line = outcome.line
                    line.append(0)
                    line.withUnsafeBufferPointer { text in
                        text.withMemoryRebound(to: CChar.self) { done(context, outcome.result.abiValue, $0.baseAddress!) }
                    }
                }
            }
            submission.bytes.withUnsafeBytes { bytes in
                intake.take(Record(.text(bytes), source: submission.source, completion: completion))
            }
        }
    }

    /// Whether no accepted record waits.
    var isEmpty: Bool {
        locked { head == queue.count }
    }

    /// [dispatch thread] Refuses every later `submit`, and wakes the blocked ones.
    func close() {
        locked {
            closed = true
            pthread_cond_broadcast(roomMade)
        }
    }

    private func next() -> Submission? {
        locked {
            guard head < queue.count else { return nil }
            let submission = queue[head]
            head += 1
            if head == queue.count {
                queue.removeAll(keepingCapacity: true)
                head = 0
            } else if head >= 1024 && head * 2 >= queue.count {
                queue.removeFirst(head)  // A queue that never empties: drop what was taken.
                head = 0
            }
            pthread_cond_signal(roomMade)
            return submission
        }
    }

    private func locked<R>(_ body: () -> R) -> R {
        pthread_mutex_lock(lock)
        defer { pthread_mutex_unlock(lock) }
        return body()
    }
}
