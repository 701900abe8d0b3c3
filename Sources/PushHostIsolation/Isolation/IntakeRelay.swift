#if canImport(Glibc)
import Glibc
#endif
import CPushHost
import PushHostIntake
import PushHostSystem
import Synchronization
import PushHostPlugins

/// The host's end of an isolated plugin's `ph.intake/1` (its worker's fd 5,
/// ``WorkerIntake`` at the other end). A thread of its own takes each
/// record the plugin submits, hands it to the host's queue as a plugin in
/// the host would (waiting while the host is full), and answers; the
/// record's `done` goes to ``RecordResults``, which the worker's ``Worker``
/// sends over the calls' socket, in order with its calls. A thread of its
/// own, so that a full host never holds up the answers of the worker's
/// calls, whose return makes room.
///
/// Every byte on the socket comes from the worker, so each frame is
/// checked: its kind, its flags, its size (``recordLimit``). A worker that
/// sends anything else, or leaves a megabyte of answers unread, is ended
/// (`reject`).
final class IntakeRelay: @unchecked Sendable {
    /// The most bytes a record frame may carry; a larger record is no
    /// record a host takes (`--max-bytes` is far below).
    static let recordLimit = 64 << 20

    private let socket: Int32
    private let plugin: String
    private let submissions: PluginSubmissions
    private let results: RecordResults
    private let reject: @Sendable (MalformedAnswer) -> Void
    /// What the worker says of its plugin's metrics (this thread only).
    private let metrics: MetricsReceiver
    /// Held while a frame is written, from this thread or the dispatch thread.
    private let writing = Mutex(())

    /// Relays what arrives on `socket` (the host's end; closed when the
    /// relay goes) from plugin `plugin` into `submissions`; the records'
    /// results go to `results`.
    init(
        socket: Int32, plugin: String, submissions: PluginSubmissions, results: RecordResults, metrics: PluginMetrics,
        reject: @escaping @Sendable (MalformedAnswer) -> Void
    ) {
        self.metrics = MetricsReceiver(plugin: plugin, metrics: metrics)
        self.socket = socket
        self.plugin = plugin
        self.submissions = submissions
        self.results = results
        self.reject = reject
        DetachedThread.startOrFail { [self] in run() }
    }

    deinit {
        close(socket)
    }

    /// Takes records until the worker is gone or sends something malformed.
    private func run() {
        defer { metrics.workerEnded() }
        var reader = FrameReader(limit: WorkerFrame.headerSize + Self.recordLimit)
        var problem: String?
        while problem == nil {
            switch reader.read(from: socket, { frame in if problem == nil { problem = take(frame) } }) {
            case .read: continue
            case .ended: return
            case .malformed(let reason): problem = reason
            }
        }
        reject(MalformedAnswer("on its intake channel, \(problem!)"))
    }

    /// Submits the record `frame` carries and answers; what was wrong with it, if anything.
    private func take(_ frame: WorkerFrame.Frame) -> String? {
        let known = PH_RECORD_HOST_EVENT | PH_RECORD_NO_WAIT | WorkerFrame.fromHandlerThread | WorkerFrame.withArrival
        if frame.kind == .metric || frame.kind == .metricValues { return metrics.take(frame) }
        let flags = UInt32(bitPattern: frame.number)
        guard frame.kind == .record else { return "a \(frame.kind) frame, where only records and metrics go" }
        guard frame.handler <= 1, flags & ~known == 0 else { return "a record with the flags \(flags) and \(frame.handler) for done" }
        var record = frame.payload
        var arrival: Int64 = 0
        if flags & WorkerFrame.withArrival != 0 {
            guard record.count >= 8 else { return "a record with an arrival time but fewer than 8 bytes" }
            arrival = Int64(littleEndian: record.loadUnaligned(as: Int64.self))
            record = UnsafeRawBufferPointer(rebasing: record.dropFirst(8))
        }
        let relayed = frame.handler == 1 ? Unmanaged.passRetained(Relayed(relay: self, record: frame.call)) : nil
        let answer = submissions.submit(
            record, from: plugin, flags: flags & (PH_RECORD_HOST_EVENT | PH_RECORD_NO_WAIT), arrival: arrival,
            done: relayed.map { _ in Self.done }, context: relayed?.toOpaque(), mayWait: flags & WorkerFrame.fromHandlerThread == 0)
        if answer != .taken { relayed?.release() }
        send(.submitted, record: frame.call, number: answer.rawValue)
        return nil
    }

    /// One relayed record's `done`: where its result goes.
    private final class Relayed {
        let relay: IntakeRelay
        let record: UInt64

        init(relay: IntakeRelay, record: UInt64) {
            self.relay = relay
            self.record = record
        }
    }

    /// The `done` of every relayed record (on the dispatch thread): hands its result on.
    private static let done: ph_record_done = { context, result, line in
        let relayed = Unmanaged<Relayed>.fromOpaque(context!).takeRetainedValue()
        let bytes = UnsafeRawBufferPointer(start: line, count: strlen(line))
        relayed.relay.results.deliver?(relayed.record, Int32(bitPattern: result.rawValue), bytes)
    }

    /// Writes a frame without waiting: a worker that leaves its socket full
    /// (a megabyte of answers unread) is ended. Nothing happens once it is gone.
    private func send(_ kind: WorkerFrame.FrameKind, record: UInt64, number: Int32) {
        var frame = ByteBuffer(capacity: WorkerFrame.headerSize)
        WorkerFrame.append(kind, call: record, number: number, to: &frame)
        let bytes = frame.bytes
        let full = writing.withLock { _ in
            var offset = 0
            while offset < bytes.count {
                let count = Glibc.send(socket, bytes.baseAddress! + offset, bytes.count - offset, Int32(MSG_NOSIGNAL | MSG_DONTWAIT))
                if count < 0 && errno == EINTR { continue }
                guard count > 0 else { return errno == EAGAIN || errno == EWOULDBLOCK }
                offset += count
            }
            return false
        }
        if full { reject(MalformedAnswer("its intake channel is full: it does not read what the host answers")) }
    }
}

/// Where the results of the records a worker's plugin submitted go: its
/// ``Worker`` sets `deliver` once the worker is ready, and sends each to
/// the worker in order with its calls (dispatch thread).
final class RecordResults: @unchecked Sendable {
    /// The record's number in the worker, its `ph_result`, its report line.
    var deliver: ((_ record: UInt64, _ result: Int32, _ line: UnsafeRawBufferPointer) -> Void)?
}
