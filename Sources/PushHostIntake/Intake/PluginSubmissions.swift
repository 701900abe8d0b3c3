#if canImport(Glibc)
import Glibc
#endif
import CPushHost
import DequeModule
import PushHostRecords
import PushHostSystem

/// Records that plugins submit through `ph.intake/1`, from any thread,
/// waiting for the dispatch thread to hand them to the intake.
///
/// The host takes no more than it can start: `submit` waits (or, for a
/// record submitted with `PH_RECORD_NO_WAIT`, answers 1) while the records
/// the host holds (`held`, which the dispatch thread keeps up to date) and
/// those queued here reach `--max-pending`, so a source leaves what the host
/// cannot start with its transport, where another host can take it. A
/// submitted record wakes the dispatch thread through a pipe it polls.
///
/// Once the host stops (`close`), `submit` returns -1 at once, waiting
/// callers included, and `giveBack` hands every record still queued back to
/// its source without starting it: `PH_RETRY` and no report line, or, for a
/// record whose source cannot take it back (no `done`), a failed line.
package final class PluginSubmissions: Awaited, RecordSubmitter, @unchecked Sendable {
    /// A plugin's `done` callback.
    package typealias Done = ph_record_done

    /// What `submit` answers.
    package enum Answer: Int32 {
        case taken = 0
        case full = 1
        case stopping = -1
    }

    private struct Submission {
        /// The record's copy; nil for one longer than `--max-bytes`, which
        /// is rejected as the readers reject such a line, and never copied.
        let bytes: [UInt8]?
        let source: RecordSource
        let trust: RecordTrust
        /// When it was submitted (Unix milliseconds), from which a message's time to live counts.
        let arrival: Int64
        let done: Done?
        let context: UnsafeMutableRawPointer?
    }

    /// Readable when something was submitted.
    var fd: Int32 { wakePipe.readEnd }

    /// The wake-up of a submission, which ends the turn's wait: the run
    /// loop delivers what was submitted at the start of the next.
    package func addWaits(to waits: inout PollSet) {
        waits.watch(fd) {}
    }
    private let wakePipe = WakePipe()
    private let limit: Int
    private let maxBytes: Int
    private let lock = UnsafeMutablePointer<pthread_mutex_t>.allocate(capacity: 1)
    private let roomMade = UnsafeMutablePointer<pthread_cond_t>.allocate(capacity: 1)
    // Under `lock`:
    private var queue = Deque<Submission>()
    /// Records the host holds (under way in the pipeline), as last noted.
    private var held = 0
    private var closed = false
    /// The source plugins whose source a reload stopped: refused as after `close`.
    private var stopped: Set<String> = []
    private var counts: [String: Int] = [:]
    private var dispatchThread: pthread_t?

    /// Submissions that wait while the host holds `limit` records
    /// (`--max-pending`); a record longer than `maxBytes` (`--max-bytes`) is
    /// taken, and rejected.
    package init(limit: Int, maxBytes: Int) {
        self.limit = limit
        self.maxBytes = maxBytes
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

    /// Notes the calling thread as the dispatch thread, which never waits
    /// in `submit` (it is the one that makes room).
    package func openOnThisThread() {
        locked { dispatchThread = pthread_self() }
    }

    /// [any thread] Takes a copy of `bytes` from `plugin`, with the flags
    /// of `submit_record`, which reached its transport at `arrival` (Unix
    /// milliseconds; 0, or a time still to come: now); `done` is called
    /// only for a record taken.
    package func submit(
        _ bytes: UnsafeRawBufferPointer, from plugin: String, flags: UInt32, arrival: Int64, done: Done?,
        context: UnsafeMutableRawPointer?
    ) -> Answer {
        submit(bytes, from: plugin, flags: flags, arrival: arrival, done: done, context: context, mayWait: true)
    }

    /// `submit`; one that may not wait (`mayWait` false: a handler's, in a
    /// worker, whose host may be waiting for that handler) never does, as
    /// one from the dispatch thread never does.
    package func submit(
        _ bytes: UnsafeRawBufferPointer, from plugin: String, flags: UInt32, arrival: Int64, done: Done?,
        context: UnsafeMutableRawPointer?, mayWait: Bool
    ) -> Answer {
        let now = wallClockMilliseconds()
        let arrival = arrival == 0 || arrival > now ? now : arrival
        let copy = bytes.count > maxBytes ? nil : [UInt8](bytes)
        let trust: RecordTrust = flags & PH_RECORD_HOST_EVENT != 0
            ? .hostEvent
            : .messageOnly(.unmarked(plugin: plugin))
        pthread_mutex_lock(lock)
        defer { pthread_mutex_unlock(lock) }
        let waits = mayWait && !(dispatchThread.map { pthread_equal($0, pthread_self()) != 0 } ?? true)
        while !closed && !stopped.contains(plugin) && waits && isFull {
            if flags & PH_RECORD_NO_WAIT != 0 { return .full }
            pthread_cond_wait(roomMade, lock)
        }
        guard !closed && !stopped.contains(plugin) else { return .stopping }
        let number = (counts[plugin] ?? 0) + 1
        counts[plugin] = number
        queue.append(Submission(
            bytes: copy, source: .plugin(name: plugin, record: number), trust: trust, arrival: arrival, done: done,
            context: context))
        if queue.count == 1 { wakePipe.wake() }
        return .taken
    }

    /// [dispatch thread] Notes how many records the host holds now; a
    /// waiting `submit` goes on when that makes room.
    package func note(held count: Int) {
        locked {
            guard count != held else { return }
            let hadRoom = !isFull
            held = count
            if !hadRoom && !isFull { pthread_cond_broadcast(roomMade) }
        }
    }

    /// [dispatch thread] Hands the submitted records to `intake`, in
    /// submission order, while it has room.
    package func deliver(to intake: some Intake) {
        wakePipe.drain()
        while intake.hasRoom, let submission = next() { hand(submission, to: intake) }
    }

    /// Hands one submitted record to `intake`.
    private func hand(_ submission: Submission, to intake: some Intake) {
        guard let copy = submission.bytes else {
            return intake.take(Record(
                .tooLong, source: submission.source, trust: submission.trust, arrival: submission.arrival,
                completion: Self.completion(of: submission)))
        }
        copy.withUnsafeBytes { bytes in
            intake.take(Record(
                .text(bytes), source: submission.source, trust: submission.trust, arrival: submission.arrival,
                completion: Self.completion(of: submission)))
        }
    }

    /// [dispatch thread] Refuses every later `submit`, and wakes the waiting ones.
    package func close() {
        locked {
            closed = true
            pthread_cond_broadcast(roomMade)
        }
    }

    /// [dispatch thread, once closed] Hands back every record still queued,
    /// none started: its `done` learns `PH_RETRY` with no report line. A
    /// record without `done` cannot go back (its source answered for it
    /// when it was taken): it goes to `intake` now, to be handled within
    /// the stop's deadline.
    package func giveBack(to intake: some Intake) {
        wakePipe.drain()
        while let submission = next() {
            guard submission.done != nil else {
                hand(submission, to: intake)
                continue
            }
            Self.completion(of: submission)?(RecordOutcome(result: .stopped, problem: nil, line: []))
        }
    }

    /// Refuses what the source plugin `plugin` submits from now on, as
    /// ``close()`` refuses every plugin's (a reload stopped its source),
    /// unblocking a submit of its that waits; until ``reopen(plugin:)``.
    package func close(plugin: String) {
        locked {
            stopped.insert(plugin)
            pthread_cond_broadcast(roomMade)
        }
    }

    /// Takes what the source plugin `plugin` submits again (its new instance starts).
    package func reopen(plugin: String) {
        locked { _ = stopped.remove(plugin) }
    }

    /// [dispatch thread] Hands back, as ``giveBack(to:)`` does, what the
    /// source plugin `plugin` submitted and the host did not take yet: its
    /// source stopped (a reload drops or changes the plugin), the others go on.
    package func giveBack(from plugin: String, to intake: some Intake) {
        let taken: [Submission] = locked {
            let isMine = { (submission: Submission) in
                if case .plugin(plugin, _) = submission.source { true } else { false }
            }
            let mine = Array(queue.filter(isMine))
            queue.removeAll(where: isMine)
            return mine
        }
        for submission in taken {
            guard submission.done != nil else {
                hand(submission, to: intake)
                continue
            }
            Self.completion(of: submission)?(RecordOutcome(result: .stopped, problem: nil, line: []))
        }
    }

    /// Whether no accepted record waits.
    package var isEmpty: Bool {
        locked { queue.isEmpty }
    }

    /// How many accepted records wait to be taken.
    package var queuedCount: Int {
        locked { queue.count }
    }

    /// [under `lock`] Whether the host holds `limit` records with those queued here.
    private var isFull: Bool { held + queue.count >= limit }

    /// The call of a submission's `done` with a record's outcome, or nil without one.
    private static func completion(of submission: Submission) -> RecordCompletion? {
        guard let done = submission.done else { return nil }
        let context = submission.context
        return { outcome in
            var line = outcome.line
            line.append(0)
            line.withUnsafeBufferPointer { text in
                text.withMemoryRebound(to: CChar.self) { done(context, outcome.result.abiValue, $0.baseAddress!) }
            }
        }
    }

    /// The next queued submission; it counts as held from now on, until
    /// the dispatch thread notes the host's count again.
    private func next() -> Submission? {
        locked {
            guard let submission = queue.popFirst() else { return nil }
            held += 1
            return submission
        }
    }

    private func locked<R>(_ body: () -> R) -> R {
        pthread_mutex_lock(lock)
        defer { pthread_mutex_unlock(lock) }
        return body()
    }
}
