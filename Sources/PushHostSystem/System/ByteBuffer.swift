#if canImport(Glibc)
import Glibc
#endif

/// Bytes written one after the other into memory of its own, for a writer
/// on the hot path: each `write` is a `memcpy` and a count, with no checks
/// of uniqueness or growth between them, the writer saying beforehand how
/// many bytes at most it writes (`reserve`). As a ``ByteSink`` (a JSON line
/// whose length is not known beforehand), each `append` checks for room
/// first, and nothing else.
@usableFromInline package struct ByteBuffer: ~Copyable, ByteSink {
    @usableFromInline var base: UnsafeMutableRawPointer
    @usableFromInline var capacity: Int
    @usableFromInline package internal(set) var count = 0

    package init(capacity: Int) {
        self.capacity = max(capacity, 16)
        base = .allocate(byteCount: self.capacity, alignment: 8)
    }

    /// An empty buffer that holds no memory until its first append.
    @inlinable package init() {
        capacity = 0
        base = UnsafeMutableRawPointer(bitPattern: 16).unsafelyUnwrapped
    }

    deinit {
        if capacity > 0 { base.deallocate() }
    }

    @inlinable package var isEmpty: Bool { count == 0 }

    /// The bytes written so far.
    @inlinable package var bytes: UnsafeRawBufferPointer { UnsafeRawBufferPointer(start: base, count: count) }

    /// Makes room for `more` bytes after those written.
    @usableFromInline package mutating func reserve(_ more: Int) {
        guard count + more > capacity else { return }
        let held = capacity
        capacity = max(capacity * 2, count + more, 64)
        let grown = UnsafeMutableRawPointer.allocate(byteCount: capacity, alignment: 8)
        grown.copyMemory(from: base, byteCount: count)
        if held > 0 { base.deallocate() }
        base = grown
    }

    @inlinable package mutating func removeAll() {
        count = 0
    }

    /// Drops the bytes written after the first `count`.
    package mutating func truncate(to count: Int) {
        self.count = min(self.count, count)
    }

    /// Drops the first `bytes` bytes, moving the rest to the front.
    package mutating func removeFirst(_ bytes: Int) {
        base.copyMemory(from: base + bytes, byteCount: count - bytes)
        count -= bytes
    }

    @inline(__always)
    @inlinable package mutating func write(_ text: StaticString) {
        write(UnsafeRawBufferPointer(start: text.utf8Start, count: text.utf8CodeUnitCount))
    }

    @inline(__always)
    @inlinable package mutating func write(_ bytes: UnsafeRawBufferPointer) {
        guard let start = bytes.baseAddress else { return }
        (base + count).copyMemory(from: start, byteCount: bytes.count)
        count += bytes.count
    }

    /// Reads at most `most` bytes from `fd` after those written: what
    /// `read` returned (the bytes read, 0 at the end, -1 with `errno`).
    package mutating func read(from fd: Int32, atMost most: Int) -> Int {
        reserve(most)
        let read = Glibc.read(fd, base + count, most)
        if read > 0 { count += read }
        return read
    }

    /// Counts `count` more bytes, which the caller writes at once at the
    /// address returned.
    package mutating func extend(by count: Int) -> UnsafeMutableRawPointer {
        reserve(count)
        defer { self.count += count }
        return base + self.count
    }

    /// Stores `value`'s bytes at `offset`, among those written (unaligned).
    @inline(__always)
    @inlinable package mutating func store<T: BitwiseCopyable>(_ value: T, at offset: Int) {
        base.storeBytes(of: value, toByteOffset: offset, as: T.self)
    }

    @inline(__always)
    @inlinable package mutating func write(_ byte: UInt8) {
        base.storeBytes(of: byte, toByteOffset: count, as: UInt8.self)
        count += 1
    }

    // MARK: As a ByteSink: room made first

    @inline(__always)
    @inlinable package mutating func append(_ byte: UInt8) {
        if count == capacity { reserve(1) }
        write(byte)
    }

    @inline(__always)
    @inlinable package mutating func append(bytes: UnsafeRawBufferPointer) {
        if count + bytes.count > capacity { reserve(bytes.count) }
        write(bytes)
    }

    @inlinable package mutating func appendDecimal(_ value: Int) {
        if value < 0 { append(UInt8(ascii: "-")) }
        if count + 20 > capacity { reserve(20) }
        write(decimal: value)
    }

    /// Writes `value` (not negative) in decimal: at most 20 bytes.
    @usableFromInline package mutating func write(decimal value: Int) {
        count += DecimalDigits.write(value.magnitude, to: base + count)
    }

    /// Turns every byte `from` written since offset `start` into `to`.
    package mutating func replace(_ from: UInt8, with to: UInt8, since start: Int) {
        var position = start
        while position < count, let found = memchr(base + position, Int32(from), count - position) {
            found.storeBytes(of: to, as: UInt8.self)
            position = found - base + 1
        }
    }
}
