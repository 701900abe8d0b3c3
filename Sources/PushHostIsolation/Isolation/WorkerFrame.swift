#if canImport(Glibc)
import Glibc
#endif
import PushHostSystem

/// The frames the host and a worker exchange over their socket pair, many
/// to one `write` (a batch), each `[u32 length][u8 kind][u8 handler][u16 0]
/// [u64 call][i32 number][payload]`, the length counting what follows it.
///
/// Host to worker: ``FrameKind/call`` (a handler call: the message's image
/// as the host read it, with its record's source, and the action and its
/// input, or the token and previous token),
/// ``FrameKind/token`` (the current token changed), ``FrameKind/destroy`` (call
/// `destroy` and exit). Worker to host: ``FrameKind/ready`` (created; the number
/// says which extensions the plugin offers), ``FrameKind/returned`` (a call
/// returned, with its verdict and any problem), ``FrameKind/completed`` (a
/// pending verdict came through `complete`), ``FrameKind/recycling``.
///
/// Host to worker also: ``FrameKind/withdraw`` (an interceptor's turn the
/// host no longer waits for), ``FrameKind/recordDone`` (a record its plugin
/// submitted has its result).
///
/// The intake channel (the worker's fd 5, ``IntakeRelay``) carries
/// ``FrameKind/record`` from the worker (a record its plugin submitted)
/// and ``FrameKind/submitted`` back; and from the worker, its plugin's
/// metrics (``FrameKind/metric``, ``FrameKind/metricValues``).
enum WorkerFrame {
    enum FrameKind: UInt8 {
        case call = 1
        case token
        case destroy
        case ready
        case returned
        case completed
        /// Over `--worker-memory` (the number: its MiB) after the calls it
        /// answered: it calls `destroy` and ends; the calls after go to the next worker.
        case recycling
        /// A record the plugin submitted: the call its number in the worker,
        /// the number its flags, the handler byte 1 when it wants `done`,
        /// the payload its bytes.
        case record
        /// What `submit` answers for the record numbered `call` (0, 1 or -1).
        case submitted
        /// The record numbered `call` ended: the number its `ph_result`, a field its report line.
        case recordDone
        /// An interceptor's turn, begun by the call `call`, ended: the number
        /// how (``InterceptedEnding``), the payload its reason and its edits.
        case intercepted
        /// The host no longer waits for the turn begun by the call `call`
        /// (its deadline passed): the worker drops it.
        case withdraw
        /// A series the plugin declared through `ph.metrics/1`: the call its
        /// number, the number its kind, the handler byte how many label
        /// fields follow its name and help; then its buckets (``MetricFrames``).
        case metric
        /// What the plugin's series reached: a field each (``MetricFrames``).
        case metricValues
    }

    /// Bytes before the payload, the length included.
    static let headerSize = 20

    /// Bits of a ``FrameKind/ready`` frame's number: the extensions that keep a plugin in the host.
    static let offersInterceptor: Int32 = 1
    static let offersSource: Int32 = 2
    /// With ``offersInterceptor``: its table has `on_outcome`.
    static let offersOutcome: Int32 = 4

    /// The flag of a ``FrameKind/record`` frame whose plugin submitted it
    /// from the worker's handler thread: the host takes it without waiting.
    static let fromHandlerThread: UInt32 = 1 << 31
    /// In a record's flags: its payload starts with when it reached its
    /// transport (Unix milliseconds, 8 bytes, little-endian), `submit_record_at`'s.
    static let withArrival: UInt32 = 1 << 30

    /// Appends a frame whose payload `payload` writes. A frame for the call
    /// ring is `padded` with zeros to a multiple of 8 bytes, so that every
    /// frame there begins 8-aligned (a message's image in a call, 4 bytes
    /// into its payload, too); its reader reads its fields and not past them.
    static func append(
        _ kind: FrameKind, handler: UInt8 = 0, call: UInt64 = 0, number: Int32 = 0, to buffer: inout ByteBuffer, padded: Bool = false,
        payload: (inout ByteBuffer) -> Void = { _ in }
    ) {
        let start = buffer.count
        buffer.reserve(headerSize)
        withUnsafeBytes(of: (UInt64(0), UInt64(0), UInt32(0))) { buffer.write($0) }
        payload(&buffer)
        if padded {
            let padding = (8 - (buffer.count - start) % 8) % 8
            buffer.reserve(padding)
            if padding > 0 { withUnsafeBytes(of: UInt64(0)) { buffer.write(UnsafeRawBufferPointer(rebasing: $0[..<padding])) } }
        }
        buffer.store(UInt32(buffer.count - start - 4).littleEndian, at: start)
        buffer.store(kind.rawValue, at: start + 4)
        buffer.store(handler, at: start + 5)
        buffer.store(call.littleEndian, at: start + 8)
        buffer.store(UInt32(bitPattern: number).littleEndian, at: start + 16)
    }

    /// Sets the number of the frame that starts at `start` in `buffer`.
    static func setNumber(_ number: Int32, ofFrameAt start: Int, in buffer: inout ByteBuffer) {
        buffer.store(UInt32(bitPattern: number).littleEndian, at: start + 16)
    }

    /// Appends `bytes` with their length; nil as the length 0xFFFF_FFFF.
    static func appendField(_ bytes: UnsafeRawBufferPointer?, to buffer: inout ByteBuffer) {
        buffer.reserve(4 + (bytes?.count ?? 0))
        guard let bytes else { return withUnsafeBytes(of: UInt32.max.littleEndian) { buffer.write($0) } }
        withUnsafeBytes(of: UInt32(bytes.count).littleEndian) { buffer.write($0) }
        buffer.write(bytes)
    }

    /// A text as a field (nil for none).
    static func appendField(_ text: String?, to buffer: inout ByteBuffer) {
        guard var text else { return appendField(nil as UnsafeRawBufferPointer?, to: &buffer) }
        text.withUTF8 { appendField(UnsafeRawBufferPointer($0), to: &buffer) }
    }

    /// A C string as a field (nil for NULL).
    static func appendField(_ text: UnsafePointer<CChar>?, to buffer: inout ByteBuffer) {
        guard let text else { return appendField(nil as UnsafeRawBufferPointer?, to: &buffer) }
        appendField(UnsafeRawBufferPointer(start: text, count: strlen(text)), to: &buffer)
    }

    /// One frame, read from a batch.
    struct Frame {
        let kind: FrameKind
        let handler: UInt8
        let call: UInt64
        let number: Int32
        let payload: UnsafeRawBufferPointer

        /// The payload's fields in order, without copying them.
        var fields: Fields { Fields(payload: payload) }
    }

    /// Reads a frame's fields one after the other.
    struct Fields {
        let payload: UnsafeRawBufferPointer
        var offset = 0

        /// The next field, `.some(nil)` for NULL; nil when none fits.
        mutating func next() -> UnsafeRawBufferPointer?? {
            guard offset + 4 <= payload.count else { return nil }
            let length = UInt32(littleEndian: payload.loadUnaligned(fromByteOffset: offset, as: UInt32.self))
            offset += 4
            if length == .max { return .some(nil) }
            guard offset + Int(length) <= payload.count else { return nil }
            defer { offset += Int(length) }
            return .some(UnsafeRawBufferPointer(rebasing: payload[offset..<offset + Int(length)]))
        }
    }

    /// What ``read(_:)`` found at the start of some bytes.
    enum FrameScan {
        /// A whole frame, and the bytes it takes.
        case frame(Frame, size: Int)
        /// The start of a frame whose rest has not come yet.
        case partial(needs: Int)
        /// Bytes that are no frame, and why.
        case malformed(String)
    }

    /// The frame at the start of `bytes`, its header checked: a length that
    /// counts at least the rest of the header, a known kind, zero padding.
    /// Whatever the bytes, it reads none outside them.
    static func read(_ bytes: UnsafeRawBufferPointer) -> FrameScan {
        guard bytes.count >= headerSize else { return .partial(needs: headerSize) }
        let length = Int(UInt32(littleEndian: bytes.loadUnaligned(as: UInt32.self)))
        guard length >= headerSize - 4 else {
            return .malformed("a frame whose length \(length) is shorter than its header (\(headerSize - 4) bytes after the length)")
        }
        guard let kind = FrameKind(rawValue: bytes[4]) else { return .malformed("a frame of the unknown kind \(bytes[4])") }
        guard bytes[6] == 0, bytes[7] == 0 else { return .malformed("a \(kind) frame whose padding (bytes 6 and 7) is not zero") }
        guard bytes.count - 4 >= length else { return .partial(needs: 4 + length) }
        let frame = Frame(
            kind: kind, handler: bytes[5],
            call: UInt64(littleEndian: bytes.loadUnaligned(fromByteOffset: 8, as: UInt64.self)),
            number: Int32(bitPattern: UInt32(littleEndian: bytes.loadUnaligned(fromByteOffset: 16, as: UInt32.self))),
            payload: UnsafeRawBufferPointer(rebasing: bytes[headerSize..<4 + length]))
        return .frame(frame, size: 4 + length)
    }

    /// Hands `body` each frame of a part of the call ring the worker took
    /// (``WorkerRing/takeCalls(_:)``), up to its end or a zero length (the
    /// ring's tail the host skipped): the bytes those frames take, or nil at
    /// one that is not whole or not a frame. Whatever the bytes, it reads
    /// none outside them.
    static func calls(in part: UnsafeRawBufferPointer, _ body: (Frame) -> Void) -> Int? {
        var offset = 0
        while offset + 4 <= part.count, part.loadUnaligned(fromByteOffset: offset, as: UInt32.self) != 0 {
            guard case .frame(let frame, let size) = read(UnsafeRawBufferPointer(rebasing: part[offset...])) else { return nil }
            body(frame)
            offset += size
        }
        return offset
    }
}

/// A C string the frame's field holds, for the length of `body` (NULL for nil).
package func withCString<R>(_ field: UnsafeRawBufferPointer?, _ body: (UnsafePointer<CChar>?) -> R) -> R {
    guard let field else { return body(nil) }
    var copy = [CChar](repeating: 0, count: field.count + 1)
    copy.withUnsafeMutableBytes { $0.copyMemory(from: field) }
    return copy.withUnsafeBufferPointer { body($0.baseAddress) }
}

/// Writes a frame's bytes one after the other at a place that has room for
/// them all (a call frame, whose size is known first), little-endian.
struct FrameCursor {
    private(set) var at: UnsafeMutableRawPointer

    init(at place: UnsafeMutableRawPointer) { at = place }

    mutating func write<T: FixedWidthInteger & BitwiseCopyable>(_ value: T) {
        at.storeBytes(of: value.littleEndian, as: T.self)
        at += MemoryLayout<T>.size
    }

    mutating func write(_ bytes: UnsafeRawBufferPointer) {
        if let start = bytes.baseAddress { at.copyMemory(from: start, byteCount: bytes.count) }
        at += bytes.count
    }

    /// Past `count` bytes written by other means.
    mutating func skip(_ count: Int) {
        at += count
    }

    /// A field of text, NULL for nil (``WorkerFrame/appendField(_:to:)``).
    mutating func write(field text: String?) {
        guard var text else { return write(UInt32.max) }
        text.withUTF8 { bytes in
            write(UInt32(bytes.count))
            write(UnsafeRawBufferPointer(bytes))
        }
    }

    /// The bytes a text field takes.
    static func size(ofField text: String?) -> Int { 4 + (text?.utf8.count ?? 0) }

    /// The header of a frame of `size` bytes in all.
    mutating func writeHeader(_ kind: WorkerFrame.FrameKind, size: Int, handler: UInt8, call: UInt64) {
        write(UInt32(size - 4))
        write(kind.rawValue)
        write(handler)
        write(UInt16(0))
        write(call)
        write(Int32(0))
    }

    /// Zeros up to `end`.
    mutating func pad(to end: UnsafeMutableRawPointer) {
        if at < end { at.initializeMemory(as: UInt8.self, repeating: 0, count: end - at) }
        at = end
    }
}
