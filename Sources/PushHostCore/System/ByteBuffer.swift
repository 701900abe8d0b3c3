#if canImport(Glibc)
import Glibc
#endif

/// Bytes written one after the other into memory of its own, for a writer
/// on the hot path: each write is a `memcpy` and a count, with no checks of
/// uniqueness or growth between them. The writer says beforehand how many
/// bytes at most it writes (`reserve`).
struct ByteBuffer: ~Copyable {
    private var base: UnsafeMutableRawPointer
    private var capacity: Int
    private(set) var count = 0

    init(capacity: Int) {
        self.capacity = max(capacity, 16)
        base = .allocate(byteCount: self.capacity, alignment: 8)
    }

    deinit {
        base.deallocate()
    }

    var isEmpty: Bool { count == 0 }

    /// The bytes written so far.
    var bytes: UnsafeRawBufferPointer { UnsafeRawBufferPointer(start: base, count: count) }

    /// Makes room for `more` bytes after those written.
    mutating func reserve(_ more: Int) {
        guard count + more > capacity else { return }
        capacity = max(capacity * 2, count + more)
        let grown = UnsafeMutableRawPointer.allocate(byteCount: capacity, alignment: 8)
        grown.copyMemory(from: base, byteCount: count)
        base.deallocate()
        base = grown
    }

    mutating func removeAll() {
        count = 0
    }

    /// Drops the first `bytes` bytes, moving the rest to the front.
    mutating func removeFirst(_ bytes: Int) {
        base.copyMemory(from: base + bytes, byteCount: count - bytes)
        count -= bytes
    }

    @inline(__always)
    mutating func write(_ text: StaticString) {
        write(UnsafeRawBufferPointer(start: text.utf8Start, count: text.utf8CodeUnitCount))
    }

    @inline(__always)
    mutating func write(_ bytes: UnsafeRawBufferPointer) {
        guard let start = bytes.baseAddress else { return }
        (base + count).copyMemory(from: start, byteCount: bytes.count)
        count += bytes.count
    }

    /// Stores `value`'s bytes at `offset`, among those written (unaligned).
    @inline(__always)
    mutating func store<T: BitwiseCopyable>(_ value: T, at offset: Int) {
        base.storeBytes(of: value, toByteOffset: offset, as: T.self)
    }

    @inline(__always)
    mutating func write(_ byte: UInt8) {
        base.storeBytes(of: byte, toByteOffset: count, as: UInt8.self)
        count += 1
    }

    /// Writes `value` (not negative) in decimal: at most 20 bytes.
    mutating func write(decimal value: Int) {
        count += DecimalDigits.write(value.magnitude, to: base + count)
    }

    /// Turns every byte `from` written since offset `start` into `to`.
    mutating func replace(_ from: UInt8, with to: UInt8, since start: Int) {
        var position = start
        while position < count, let found = memchr(base + position, Int32(from), count - position) {
            found.storeBytes(of: to, as: UInt8.self)
            position = found - base + 1
        }
    }
}
