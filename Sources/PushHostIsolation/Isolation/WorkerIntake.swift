#if canImport(Glibc)
import Glibc
#endif
import CPushHost
import PushHostIntake
import PushHostSystem
import Synchronization

/// `ph.intake/1` in a worker: a record its plugin submits crosses to the
/// host over the intake channel (fd 5, ``IntakeRelay`` at the other end),
/// and `submit` waits there for the host's answer as it would in the host
/// (while the host is full, unless `PH_RECORD_NO_WAIT`). A record's `done`
/// comes back later over the calls' socket, in order with the calls (a
/// source's `stop` comes after the results the host gave before it), and
/// the worker's loop calls it on its own thread (``finish(_:)``), as the
/// host calls it on its dispatch thread.
///
/// A record submitted from that thread (from a handler) tells the host not
/// to wait: the host may be waiting for the very handler that submits it.
final class WorkerIntake: RecordSubmitter, @unchecked Sendable {
    static let fd: Int32 = 5

    private let handlerThread = pthread_self()
    /// Held while a record is written to the host.
    private let writing = Mutex(())
    private let lock = UnsafeMutablePointer<pthread_mutex_t>.allocate(capacity: 1)
    private let answered = UnsafeMutablePointer<pthread_cond_t>.allocate(capacity: 1)
    // Under `lock`:
    private var nextRecord: UInt64 = 1
    private var answers: [UInt64: Int32] = [:]
    private var waitingDone: [UInt64: (done: ph_record_done, context: UnsafeMutableRawPointer?)] = [:]
    private var readerStarted = false
    private var hostGone = false

    init() {
        pthread_mutex_init(lock, nil)
        pthread_cond_init(answered, nil)
    }

    /// [any thread] Sends one whole frame to the host (a metric's); false once the host is gone.
    func send(frame: borrowing ByteBuffer) -> Bool {
        writing.withLock { _ in sendAll(Self.fd, frame.bytes) }
    }

    /// [any thread] Sends the record to the host and waits for its answer;
    /// -1 (stopping) when the host is gone.
    func submit(
        _ bytes: UnsafeRawBufferPointer, from plugin: String, flags: UInt32, arrival: Int64, done: ph_record_done?,
        context: UnsafeMutableRawPointer?
    ) -> PluginSubmissions.Answer {
        let onHandlerThread = pthread_equal(handlerThread, pthread_self()) != 0
        pthread_mutex_lock(lock)
        let record = nextRecord
        nextRecord += 1
        if let done { waitingDone[record] = (done, context) }
        if !readerStarted { startReader() }
        pthread_mutex_unlock(lock)

        var frame = ByteBuffer(capacity: WorkerFrame.headerSize + 8 + bytes.count)
        let sentFlags = flags & (PH_RECORD_HOST_EVENT | PH_RECORD_NO_WAIT) | (onHandlerThread ? WorkerFrame.fromHandlerThread : 0)
            | (arrival != 0 ? WorkerFrame.withArrival : 0)
        WorkerFrame.append(.record, handler: done == nil ? 0 : 1, call: record, number: Int32(bitPattern: sentFlags), to: &frame) { buffer in
            if arrival != 0 { withUnsafeBytes(of: arrival.littleEndian) { buffer.write($0) } }
            buffer.write(bytes)
        }
        let sent = writing.withLock { _ in sendAll(Self.fd, frame.bytes) }

        pthread_mutex_lock(lock)
        defer { pthread_mutex_unlock(lock) }
        while sent && answers[record] == nil && !hostGone { pthread_cond_wait(answered, lock) }
        let answer = answers.removeValue(forKey: record).flatMap(PluginSubmissions.Answer.init(rawValue:)) ?? .stopping
        if answer != .taken { waitingDone[record] = nil }
        return answer
    }

    /// [the worker's thread] Calls the `done` of the record whose result
    /// `frame` (a ``WorkerFrame/FrameKind/recordDone``) carries, if it wants one.
    func finish(_ frame: WorkerFrame.Frame) {
        pthread_mutex_lock(lock)
        let waiting = waitingDone.removeValue(forKey: frame.call)
        pthread_mutex_unlock(lock)
        guard let (done, context) = waiting else { return }
        var fields = frame.fields
        let line = (fields.next() ?? nil) ?? UnsafeRawBufferPointer(start: nil, count: 0)
        withCString(line) { done(context, ph_result(rawValue: UInt32(bitPattern: frame.number)), $0!) }
    }

    /// [under `lock`] Starts the thread that reads what the host answers.
    private func startReader() {
        readerStarted = true
        DetachedThread.startOrFail { [self] in readAnswers() }
    }

    /// Reads the host's answers until the host is gone.
    private func readAnswers() {
        var reader = FrameReader(limit: 1 << 30)
        while case .read = reader.read(from: Self.fd, { take($0) }) {}
        pthread_mutex_lock(lock)
        hostGone = true
        pthread_cond_broadcast(answered)
        pthread_mutex_unlock(lock)
    }

    private func take(_ frame: WorkerFrame.Frame) {
        pthread_mutex_lock(lock)
        defer { pthread_mutex_unlock(lock) }
        guard frame.kind == .submitted else { return }
        answers[frame.call] = frame.number
        pthread_cond_broadcast(answered)
    }
}
