import CPushHost
import PushHostPort

/// What a worker answers in its ring, read and checked. The worker runs
/// the plugin, which can write anything anywhere in it (its socket, its
/// ring, its memory), so each byte is taken as hostile: every length is
/// checked against the bytes that are there, every field against what a
/// worker sends, and the text must be UTF-8. What does not pass is a
/// ``MalformedAnswer``, which ends that worker as a crash would.
///
///     [u32 16][u8 returned][u8 0][u16 0][u64 call][i32 verdict]               no problem
///     [u32 20+n][u8 returned][u8 0][u16 0][u64 call][i32 verdict][u32 n][n]   a problem of n bytes
///     [u32 16][u8 completed][u8 0][u16 0][u64 call][i32 verdict]
///     [u32 16][u8 recycling][u8 0][u16 0][u64 0][i32 MiB]
///     [u32 20+...][u8 intercepted][u8 0][u16 0][u64 call][i32 ending][reason][path][json]...
///
/// An intercepted frame's fields are length-prefixed (``WorkerFrame/appendField(_:to:)``):
/// the reason (or none), then each `set` that took, in order, as its path and its JSON (none: removed).
enum WorkerAnswer: Equatable, Sendable {
    /// A call returned: its verdict (a data call's; the others give
    /// `PH_CONTINUE`, or `PH_FAILED` when they could not be made), and the
    /// problem its plugin noted, if any.
    case returned(call: UInt64, verdict: ph_verdict, problem: String?)
    /// A verdict the plugin had left pending came through `complete`.
    case completed(call: UInt64, verdict: ph_verdict)
    /// Over `--worker-memory` (this many MiB) after the calls it answered: it ends.
    case recycling(mebibytes: Int32)
    /// The interceptor's turn that the call `call` began ended, with the edits it made.
    case intercepted(call: UInt64, ending: InterceptedEnding, reason: String?, edits: [ChainEdit])

    /// Hands `body` the answers in `batch` (one take from the ring, which
    /// holds whole frames only) in order, until one is malformed or `body`
    /// returns false; what was wrong with the malformed one.
    static func read(_ batch: UnsafeRawBufferPointer, _ body: (WorkerAnswer) -> Bool) -> MalformedAnswer? {
        var offset = 0
        while offset < batch.count {
            switch WorkerFrame.read(UnsafeRawBufferPointer(rebasing: batch[offset...])) {
            case .frame(let frame, let size):
                do throws(MalformedAnswer) {
                    guard body(try WorkerAnswer(frame)) else { return nil }
                } catch {
                    return error
                }
                offset += size
            case .partial(let needs):
                return MalformedAnswer("a frame cut short: \(batch.count - offset) bytes where it says \(needs)")
            case .malformed(let reason):
                return MalformedAnswer(reason)
            }
        }
        return nil
    }

    /// The answer `frame` carries, checked.
    init(_ frame: WorkerFrame.Frame) throws(MalformedAnswer) {
        guard frame.handler == 0 else { throw MalformedAnswer("a \(frame.kind) frame for the handler \(frame.handler), where answers name none") }
        let verdict = ph_verdict(rawValue: UInt32(bitPattern: frame.number))
        switch frame.kind {
        case .returned:
            self = .returned(call: frame.call, verdict: verdict, problem: try Self.problem(in: frame.payload))
        case .completed:
            try Self.expectEmpty(frame)
            self = .completed(call: frame.call, verdict: verdict)
        case .recycling:
            try Self.expectEmpty(frame)
            guard frame.call == 0, frame.number > 0 else {
                throw MalformedAnswer("a recycling frame for call \(frame.call) at \(frame.number) MiB, where it names no call and a size over 0")
            }
            self = .recycling(mebibytes: frame.number)
        case .intercepted:
            guard let ending = InterceptedEnding(rawValue: frame.number) else {
                throw MalformedAnswer("an intercepted frame that ended as \(frame.number), which is no ending")
            }
            let (reason, edits) = try Self.interception(in: frame.payload)
            self = .intercepted(call: frame.call, ending: ending, reason: reason, edits: edits)
        case .call, .token, .destroy, .ready, .record, .submitted, .recordDone, .withdraw, .metric, .metricValues:
            throw MalformedAnswer("a \(frame.kind) frame, which is no answer")
        }
    }

    /// A returned frame's problem: none, or one field that fills the payload exactly, in UTF-8.
    private static func problem(in payload: UnsafeRawBufferPointer) throws(MalformedAnswer) -> String? {
        guard !payload.isEmpty else { return nil }
        guard payload.count >= 4 else { throw MalformedAnswer("a returned frame with \(payload.count) bytes after its header, too few for a problem's length") }
        let length = UInt32(littleEndian: payload.loadUnaligned(as: UInt32.self))
        guard Int(length) == payload.count - 4 else {
            throw MalformedAnswer("a returned frame whose problem says \(length) bytes, where \(payload.count - 4) follow")
        }
        guard let text = String(validating: UnsafeRawBufferPointer(rebasing: payload[4...]), as: UTF8.self) else {
            throw MalformedAnswer("a returned frame whose problem is not UTF-8")
        }
        return text
    }

    /// An intercepted frame's reason and edits: fields that fill the payload exactly, the text in UTF-8.
    private static func interception(in payload: UnsafeRawBufferPointer) throws(MalformedAnswer) -> (String?, [ChainEdit]) {
        var fields = WorkerFrame.Fields(payload: payload)
        func text(_ field: UnsafeRawBufferPointer, _ what: String) throws(MalformedAnswer) -> String {
            guard let text = String(validating: field, as: UTF8.self) else { throw MalformedAnswer("an intercepted frame whose \(what) is not UTF-8") }
            return text
        }
        guard let first = fields.next() else { throw MalformedAnswer("an intercepted frame without its reason") }
        let reason = try first.map { field throws(MalformedAnswer) in try text(field, "reason") }
        var edits: [ChainEdit] = []
        while fields.offset < payload.count {
            guard let path = fields.next(), let path, let json = fields.next() else {
                throw MalformedAnswer("an intercepted frame whose edit \(edits.count + 1) is cut short, or has no path")
            }
            edits.append(ChainEdit(path: try text(path, "path"), json: try json.map { field throws(MalformedAnswer) in try text(field, "JSON") }))
        }
        return (reason, edits)
    }

    private static func expectEmpty(_ frame: WorkerFrame.Frame) throws(MalformedAnswer) {
        guard frame.payload.isEmpty else { throw MalformedAnswer("a \(frame.kind) frame with \(frame.payload.count) bytes after its header, where it has none") }
    }

    /// The extensions a worker's first frame says its plugin offers
    /// (``WorkerFrame/offersInterceptor``, ``WorkerFrame/offersSource``):
    /// `header` is its first ``WorkerFrame/headerSize`` bytes.
    static func offers(inReady header: UnsafeRawBufferPointer) throws(MalformedAnswer) -> Int32 {
        let known = WorkerFrame.offersInterceptor | WorkerFrame.offersSource | WorkerFrame.offersOutcome
        switch WorkerFrame.read(header) {
        case .frame(let frame, _):
            guard frame.kind == .ready else { throw MalformedAnswer("a \(frame.kind) frame first, where a ready frame goes") }
            guard frame.handler == 0, frame.call == 0, frame.number & ~known == 0 else {
                throw MalformedAnswer("a ready frame for the handler \(frame.handler), call \(frame.call), offering \(frame.number)")
            }
            return frame.number
        case .partial(let needs):
            throw MalformedAnswer("a first frame of \(needs) bytes, where a ready frame has \(WorkerFrame.headerSize)")
        case .malformed(let reason):
            throw MalformedAnswer(reason)
        }
    }
}

/// What was wrong with what a worker sent: it is then ended, as a crash.
struct MalformedAnswer: Error, Equatable, CustomStringConvertible {
    let description: String

    init(_ description: String) {
        self.description = description
    }
}
