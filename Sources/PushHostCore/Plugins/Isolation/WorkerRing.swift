#if canImport(Glibc)
import Glibc
#endif
import PushHostSystem
import Synchronization

/// Where a worker puts its answers: a ring of bytes in memory it shares
/// with the host (a memfd, handed to the worker as its fd 4), so that an
/// answer is the host's the moment it is written, before any system call.
/// A worker that crashes right after a batch of calls therefore loses none
/// of their answers, and the host knows exactly which call was under way.
///
/// The worker appends whole frames and then publishes its write position;
/// the host's dispatch thread copies out what lies between its read
/// position and that, and publishes how far it read. While the host is
/// busy it looks at the ring on every turn, and no system call is made;
/// before it sleeps it asks for a wake-up (``requestWake()``), and the
/// worker's next answers then send one byte on the socket. A worker that
/// finds the ring full waits for room.
///
/// The worker's plugin can still write anything into the ring's memory, so
/// the host keeps its read position to itself (the shared one is only for
/// the worker to see), checks the write position before it copies a byte,
/// checks every frame it copied (``WorkerAnswer``), and seals the memfd's
/// size, so that no worker can shrink it under the host's mapping.
final class WorkerRing: @unchecked Sendable {
    /// The bytes of the ring, after a page of positions.
    static let capacity = 1 << 20
    private static let dataOffset = 4096

    /// The memfd (the host's; -1 in a worker, which keeps only the mapping).
    let fd: Int32
    private let base: UnsafeMutableRawPointer
    /// The host's read position: what it took so far.
    private var taken: UInt64 = 0
    /// The host's copy of what it takes, so that a worker's plugin cannot
    /// change a frame between the host's checks and its use.
    private var scratch: UnsafeMutableRawPointer?

    private var written: UnsafeMutablePointer<Atomic<UInt64>> {
        base.assumingMemoryBound(to: Atomic<UInt64>.self)
    }
    private var read: UnsafeMutablePointer<Atomic<UInt64>> {
        (base + 64).assumingMemoryBound(to: Atomic<UInt64>.self)
    }
    /// The last call the worker began.
    private var begun: UnsafeMutablePointer<Atomic<UInt64>> {
        (base + 128).assumingMemoryBound(to: Atomic<UInt64>.self)
    }
    /// 1 while the host sleeps until the worker answers: the worker sends a wake-up byte.
    private var wakeWanted: UnsafeMutablePointer<Atomic<UInt32>> {
        (base + 192).assumingMemoryBound(to: Atomic<UInt32>.self)
    }
    private var data: UnsafeMutableRawPointer { base + Self.dataOffset }

    /// A new ring (the host's side); nil when the system refuses one.
    init?() {
        guard let fd = MemoryFile.make(name: "pushhost-worker") else { return nil }
        // Shrunk, the ring would fault the host where it reads past the end (SIGBUS).
        let seals: Int32 = 1 /* F_SEAL_SEAL */ | 2 /* F_SEAL_SHRINK */ | 4 /* F_SEAL_GROW */
        guard ftruncate(fd, off_t(Self.dataOffset + Self.capacity)) == 0, fcntl(fd, 1033 /* F_ADD_SEALS */, seals) == 0,
            let mapped = Self.map(fd)
        else {
            close(fd)
            return nil
        }
        self.fd = fd
        base = mapped
    }

    /// The worker's side: the ring it got as `fd` (its fd 4). The descriptor
    /// is closed once the ring is mapped, so its plugin has none to write
    /// into the ring through.
    init?(fd: Int32) {
        let mapped = Self.map(fd)
        close(fd)
        guard let mapped else { return nil }
        self.fd = -1
        base = mapped
    }

    private static func map(_ fd: Int32) -> UnsafeMutableRawPointer? {
        let mapped = mmap(nil, dataOffset + capacity, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0)
        guard let mapped, mapped != MAP_FAILED else { return nil }
        return mapped
    }

    deinit {
        munmap(base, Self.dataOffset + Self.capacity)
        scratch?.deallocate()
        if fd >= 0 { close(fd) }
    }

    /// The worker's side: appends `bytes` (whole frames), waiting while the
    /// ring has no room; `wake` is called when the host wants a wake-up.
    func put(_ bytes: UnsafeRawBufferPointer, wake: () -> Void) {
        let position = written.pointee.load(ordering: .relaxed)
        while position &+ UInt64(bytes.count) &- read.pointee.load(ordering: .acquiring) > UInt64(Self.capacity) {
            if takeWakeRequest() { wake() }
            usleep(200)
        }
        let start = Int(position % UInt64(Self.capacity))
        let first = min(bytes.count, Self.capacity - start)
        (data + start).copyMemory(from: bytes.baseAddress!, byteCount: first)
        if first < bytes.count { data.copyMemory(from: bytes.baseAddress! + first, byteCount: bytes.count - first) }
        written.pointee.store(position &+ UInt64(bytes.count), ordering: .releasing)
    }

    /// The worker's side: the call `id` begins (before its plugin runs).
    func noteBegun(_ id: UInt64) {
        begun.pointee.store(id, ordering: .releasing)
    }

    /// The host's side, once the worker ended: the last call it said it
    /// began. Its plugin could write anything there: a call it says it did
    /// not begin goes to the next worker, which its crash limit bounds.
    var lastBegun: UInt64 {
        begun.pointee.load(ordering: .acquiring)
    }

    /// The worker's side, after it published answers: whether the host
    /// asked for a wake-up (the request is then taken).
    func takeWakeRequest() -> Bool {
        // Its write position first, then the request: the host sets them in the other order.
        atomicMemoryFence(ordering: .sequentiallyConsistent)
        guard wakeWanted.pointee.load(ordering: .relaxed) != 0 else { return false }
        return wakeWanted.pointee.exchange(0, ordering: .acquiringAndReleasing) != 0
    }

    /// The host's side, before it sleeps: asks for a wake-up at the next
    /// answers; true when answers came already (it must not sleep).
    func requestWake() -> Bool {
        wakeWanted.pointee.store(1, ordering: .relaxed)
        atomicMemoryFence(ordering: .sequentiallyConsistent)
        return hasAnswers
    }

    /// The host's side: whether the worker wrote since the last take.
    var hasAnswers: Bool {
        written.pointee.load(ordering: .relaxed) != taken
    }

    /// The host's side, from any thread: whether the ring holds answers the
    /// host has not taken yet (the worker is not the one behind).
    var isWaitingForHost: Bool {
        written.pointee.load(ordering: .relaxed) != read.pointee.load(ordering: .relaxed)
    }

    /// The host's side: hands `body` a copy of what the worker wrote since
    /// the last time; false when it wrote nothing.
    func take(_ body: (UnsafeRawBufferPointer) -> Void) throws(MalformedAnswer) -> Bool {
        let end = written.pointee.load(ordering: .acquiring)
        let count = try Self.span(from: taken, to: end)
        guard count > 0 else { return false }
        let start = Int(taken % UInt64(Self.capacity))
        let first = min(count, Self.capacity - start)
        let copy = scratch ?? .allocate(byteCount: Self.capacity, alignment: 8)
        scratch = copy
        copy.copyMemory(from: data + start, byteCount: first)
        if first < count { (copy + first).copyMemory(from: data, byteCount: count - first) }
        taken = end
        read.pointee.store(end, ordering: .releasing)
        body(UnsafeRawBufferPointer(start: copy, count: count))
        return true
    }

    /// How many bytes lie between the host's read position `taken` and the
    /// worker's write position `written`: at most the ring's capacity, or
    /// the write position is malformed.
    static func span(from taken: UInt64, to written: UInt64) throws(MalformedAnswer) -> Int {
        let count = written &- taken
        guard count <= UInt64(capacity) else {
            throw MalformedAnswer(
                written < taken
                    ? "its ring's write position went back from \(taken) to \(written)"
                    : "its ring's write position is \(count) bytes past the host's read position, more than the ring's \(capacity)")
        }
        return Int(count)
    }
}
