#if canImport(Glibc)
import Glibc
#endif
import Synchronization

/// Where a worker puts its answers: a ring of bytes in memory it shares
/// with the host (a memfd, the worker's fd 4), so that an answer is the
/// host's the moment it is written, before any system call. A worker that
/// crashes right after a batch of calls therefore loses none of their
/// answers, and the host knows exactly which call was under way.
///
/// The worker appends whole frames and then publishes its write position;
/// the host's reader thread copies out what lies between its read position
/// and that, and publishes how far it read. A byte on the socket wakes the
/// reader; a worker that finds the ring full waits for room.
final class WorkerRing: @unchecked Sendable {
    /// The bytes of the ring, after a page of positions.
    static let capacity = 1 << 20
    private static let dataOffset = 4096

    let fd: Int32
    private let base: UnsafeMutableRawPointer

    private var written: UnsafeMutablePointer<Atomic<UInt64>> {
        base.assumingMemoryBound(to: Atomic<UInt64>.self)
    }
    private var read: UnsafeMutablePointer<Atomic<UInt64>> {
        (base + 64).assumingMemoryBound(to: Atomic<UInt64>.self)
    }
    private var data: UnsafeMutableRawPointer { base + Self.dataOffset }

    /// A new ring (the host's side); nil when the system refuses one.
    convenience init?() {
        typealias MemfdCreate = @convention(c) (UnsafePointer<CChar>, UInt32) -> Int32
        guard let symbol = dlsym(UnsafeMutableRawPointer(bitPattern: 0), "memfd_create") else { return nil }
        let fd = "pushhost-worker".withCString { unsafeBitCast(symbol, to: MemfdCreate.self)($0, 1 /* MFD_CLOEXEC */) }
        guard fd >= 0 else { return nil }
        guard ftruncate(fd, off_t(Self.dataOffset + Self.capacity)) == 0 else {
            close(fd)
            return nil
        }
        self.init(fd: fd)
    }

    /// The ring in `fd` (a worker's fd 4, or a new one).
    init?(fd: Int32) {
        let mapped = mmap(nil, Self.dataOffset + Self.capacity, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0)
        guard let mapped, mapped != MAP_FAILED else { return nil }
        self.fd = fd
        base = mapped
    }

    deinit {
        munmap(base, Self.dataOffset + Self.capacity)
        close(fd)
    }

    /// The worker's side: appends `bytes` (whole frames), waiting while the
    /// ring has no room; `wake` is called while it waits.
    func put(_ bytes: UnsafeRawBufferPointer, wake: () -> Void) {
        let position = written.pointee.load(ordering: .relaxed)
        while position &+ UInt64(bytes.count) &- read.pointee.load(ordering: .acquiring) > UInt64(Self.capacity) {
            wake()
            usleep(200)
        }
        let start = Int(position % UInt64(Self.capacity))
        let first = min(bytes.count, Self.capacity - start)
        (data + start).copyMemory(from: bytes.baseAddress!, byteCount: first)
        if first < bytes.count { data.copyMemory(from: bytes.baseAddress! + first, byteCount: bytes.count - first) }
        written.pointee.store(position &+ UInt64(bytes.count), ordering: .releasing)
    }

    /// The host's side: what the worker wrote since the last time, or nil.
    func take() -> [UInt8]? {
        let end = written.pointee.load(ordering: .acquiring)
        let position = read.pointee.load(ordering: .relaxed)
        guard end != position else { return nil }
        let count = Int(end &- position)
        let start = Int(position % UInt64(Self.capacity))
        let first = min(count, Self.capacity - start)
        let bytes = [UInt8](unsafeUninitializedCapacity: count) { buffer, initialized in
            UnsafeMutableRawPointer(buffer.baseAddress!).copyMemory(from: data + start, byteCount: first)
            if first < count { UnsafeMutableRawPointer(buffer.baseAddress! + first).copyMemory(from: data, byteCount: count - first) }
            initialized = count
        }
        read.pointee.store(end, ordering: .releasing)
        return bytes
    }
}
