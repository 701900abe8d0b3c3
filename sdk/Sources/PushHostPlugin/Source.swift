#if canImport(Glibc)
import Glibc
#endif
import CPushHost
import Synchronization

/// The source role: a plugin that produces records from a transport of its
/// own (a socket, a bus, a stream), which the host takes as it takes lines
/// of standard input.
///
/// ```swift
/// func run(_ intake: Intake) async throws {
///     for try await line in stream.lines {
///         switch await intake.submit(line) {
///         case .done, .rejected: acknowledge(line)
///         case .retry: redeliver(line)
///         case .stopped: return
///         }
///     }
/// }
/// ```
///
/// `run` starts in a task of its own once every plugin was created, and
/// that task is cancelled when the host stops: from then on `submit`
/// returns `.stopped`, and `run` should return soon, since the plugin's
/// `shutdown` waits for it (a `run` that ignores its cancellation is given
/// up when `--stop-timeout` runs out: the host exits without it). A host with a source runs until SIGINT or
/// SIGTERM. An error `run` throws is logged, and the plugin produces
/// nothing more.
public protocol SourcePlugin: Plugin {
    /// Produces records until the transport ends or the host stops, handing
    /// each to the host with `intake.submit(_:isHostEvent:)`. Runs in a
    /// task of its own, started once every plugin was created and cancelled
    /// when the host stops; returning ends the plugin's records, and a
    /// thrown error (other than one from that cancellation) is logged.
    ///
    /// - Parameter intake: Where the plugin hands the host its records.
    func run(_ intake: Intake) async throws
}

/// How a source hands the host its records.
public struct Intake: Sendable {
    private let host: HostTable
    private let table: IntakeTable
    private let caller = SubmitThread()

    init(host: UnsafePointer<ph_host>, table: UnsafePointer<ph_intake>) {
        self.host = HostTable(raw: host)
        self.table = IntakeTable(raw: table)
    }

    /// Hands the host one record, a JSON object (copied), and returns its
    /// result once its report line is written. Suspends while the host is
    /// full (it holds `--max-pending` records), so that what it cannot
    /// start stays with the transport. Returns `.stopped`, and the host
    /// has not taken the record, when the task was already cancelled as
    /// `submit` began, or when the host is stopping (a `submit` waiting for
    /// room ends then too). A record the host took always gets its result:
    /// one the host gave back at its stop is `.retry` with an empty report
    /// line.
    ///
    /// `isHostEvent` marks a host event the plugin made itself (a tap it
    /// saw, an endpoint its distributor gave it); never set it for bytes
    /// received from outside: a record that holds a host event without the
    /// mark is rejected, and so is one with it that holds none.
    public func submit(_ record: String, isHostEvent: Bool = false) async -> Submission {
        await submit(Record.text(record), isHostEvent: isHostEvent)
    }

    /// `submit(_:isHostEvent:)` for bytes as the transport gave them,
    /// unchanged: bytes that are not UTF-8 (or not JSON) get the host's
    /// `.rejected` with its report line, rather than being dropped or
    /// repaired by the source.
    public func submit(_ record: [UInt8], isHostEvent: Bool = false) async -> Submission {
        await submit(Record.bytes(record), isHostEvent: isHostEvent)
    }

    private func submit(_ record: Record, isHostEvent: Bool) async -> Submission {
        guard !Task.isCancelled else { return .stopped }
        let result = SubmissionResult()
        let context = Unmanaged.passRetained(result).toOpaque()
        // The host's own wait while it is full, on the source's thread: no task's thread waits.
        let answer = await caller.submit(record, flags: isHostEvent ? PH_RECORD_HOST_EVENT : 0, host: host, table: table, context: context)
        guard answer == 0 else {
            // Not taken: `done` will not come.
            Unmanaged<SubmissionResult>.fromOpaque(context).release()
            return .stopped
        }
        return await result.value()
    }

    /// The host's table of this plugin; the host's functions may be called from any thread.
    fileprivate struct HostTable: @unchecked Sendable {
        let raw: UnsafePointer<ph_host>
    }

    fileprivate struct IntakeTable: @unchecked Sendable {
        let raw: UnsafePointer<ph_intake>
    }

    /// A record as the plugin gave it.
    fileprivate enum Record: Sendable {
        case text(String)
        case bytes([UInt8])

        /// Calls `body` with the record's bytes (never a nil base address).
        func withBytes<T>(_ body: (UnsafePointer<CChar>, Int) -> T) -> T {
            switch self {
            case .text(var text):
                return text.withUTF8 { bytes in
                    bytes.withMemoryRebound(to: CChar.self) { Self.call(body, $0) }
                }
            case .bytes(let bytes):
                return bytes.withUnsafeBufferPointer { bytes in
                    bytes.withMemoryRebound(to: CChar.self) { Self.call(body, $0) }
                }
            }
        }

        /// `body` with `bytes`, an empty record pointing at a byte of its own.
        private static func call<T>(_ body: (UnsafePointer<CChar>, Int) -> T, _ bytes: UnsafeBufferPointer<CChar>) -> T {
            if let start = bytes.baseAddress { return body(start, bytes.count) }
            var none: CChar = 0
            return withUnsafePointer(to: &none) { body($0, 0) }
        }
    }
}

/// A thread of the source's own that makes its `submit_record` calls, one
/// after another, in the order of `submit`. A call waits while the host is
/// full, and in a worker for the host's answer, and a task's thread must
/// not block: Dispatch checks on a pool thread that stays busy by reading
/// `/proc/TID/stat`, which a worker's walls do not let it read, and ends
/// the process when it cannot.
private final class SubmitThread: @unchecked Sendable {
    private let lock = UnsafeMutablePointer<pthread_mutex_t>.allocate(capacity: 1)
    private let queued = UnsafeMutablePointer<pthread_cond_t>.allocate(capacity: 1)
    /// Under `lock`: the calls to make, first first; the thread once started.
    private var calls: [() -> Void] = []
    private var started = false

    init() {
        pthread_mutex_init(lock, nil)
        pthread_cond_init(queued, nil)
    }

    /// `submit_record` of `record` with `flags` and `context`, made on the
    /// thread: its answer (0 taken, 1 full, -1 stopping).
    func submit(
        _ record: Intake.Record, flags: UInt32, host: Intake.HostTable, table: Intake.IntakeTable, context: UnsafeMutableRawPointer
    ) async -> Int32 {
        let done = Context(raw: context)
        return await withCheckedContinuation { continuation in
            enqueue {
                let answer = record.withBytes { json, count in
                    table.raw.pointee.submit_record(host.raw, json, count, flags, { context, result, line in
                        Unmanaged<SubmissionResult>.fromOpaque(context!).takeRetainedValue().give(result, line: line)
                    }, done.raw)
                }
                continuation.resume(returning: answer)
            }
        }
    }

    /// The `done` context of one record, handed to the thread.
    private struct Context: @unchecked Sendable {
        let raw: UnsafeMutableRawPointer
    }

    /// Queues `call` for the thread, started on the first; where no thread
    /// can be started, makes the call here.
    private func enqueue(_ call: @escaping () -> Void) {
        pthread_mutex_lock(lock)
        if !started {
            var thread = pthread_t()
            let me = Unmanaged.passRetained(self)
            started = pthread_create(&thread, nil, { me in
                Unmanaged<SubmitThread>.fromOpaque(me!).takeRetainedValue().serve()
            }, me.toOpaque()) == 0
            guard started else {
                me.release()
                pthread_mutex_unlock(lock)
                return call()
            }
            pthread_detach(thread)
        }
        calls.append(call)
        pthread_cond_signal(queued)
        pthread_mutex_unlock(lock)
    }

    /// Makes the calls as they come, for the life of the process.
    private func serve() -> Never {
        while true {
            pthread_mutex_lock(lock)
            while calls.isEmpty { pthread_cond_wait(queued, lock) }
            let call = calls.removeFirst()
            pthread_mutex_unlock(lock)
            call()
        }
    }
}

/// What became of a record a source submitted.
public enum Submission: Sendable, Equatable {
    /// Handled, whatever its status (delivered, suppressed, undelivered, an
    /// event applied): its report line.
    case done(reportLine: String)
    /// A plugin failed, crashed or timed out, or the host stopped before
    /// the record's data stage ended: a later try may succeed. The report
    /// line, or "" when the record has none.
    case retry(reportLine: String)
    /// The record is bad (not JSON, too big, a host event it may not be):
    /// no try will succeed. Its report line.
    case rejected(reportLine: String)
    /// The host is stopping, or the task was cancelled: nothing was taken.
    case stopped
}

/// One submitted record's result, given by the host's `done` on its
/// dispatch thread, maybe before the source awaits it.
private final class SubmissionResult: Sendable {
    private enum State {
        case waiting
        case given(Submission)
        case awaited(CheckedContinuation<Submission, Never>)
    }

    private let state = Mutex(State.waiting)

    /// The result, once `done` gave it.
    func value() async -> Submission {
        await withCheckedContinuation { continuation in
            let given: Submission? = state.withLock { state in
                if case .given(let submission) = state { return submission }
                state = .awaited(continuation)
                return nil
            }
            if let given { continuation.resume(returning: given) }
        }
    }

    /// `done`'s result and report line.
    func give(_ result: ph_result, line: UnsafePointer<CChar>) {
        let text = String(cString: line)
        let submission: Submission = switch result {
        case PH_DONE: .done(reportLine: text)
        case PH_REJECTED: .rejected(reportLine: text)
        default: .retry(reportLine: text)
        }
        let waiting: CheckedContinuation<Submission, Never>? = state.withLock { state in
            if case .awaited(let continuation) = state { return continuation }
            state = .given(submission)
            return nil
        }
        waiting?.resume(returning: submission)
    }
}
