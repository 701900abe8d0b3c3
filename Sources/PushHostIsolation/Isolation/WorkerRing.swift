#if canImport(Glibc)
import Glibc
#endif
import Synchronization
import PushHostMessage
import PushHostSystem

/// The memory a worker shares with the host (a memfd, handed to the worker
/// as its fd 4): two rings of bytes, the host's calls to the worker and the
/// worker's answers, so that neither side makes a system call while the
/// other is busy.
///
/// Each ring has one writer, which appends whole frames and then publishes
/// its write position, and one reader, which takes what lies between its
/// read position and that, and publishes how far it read: the host copies
/// the answers out first; the worker reads the calls in place, a message
/// as the host's image of it (no parse), and publishes after. A reader
/// that finds nothing asks for a wake-up before it sleeps (``Ring/requestWake()``),
/// and the writer's next frames then send one byte on the socket; a host
/// whose calls do not fit asks for room the same way. While both are busy
/// they only look at the rings.
///
/// An answer is the host's the moment it is written, before any system
/// call: a worker that crashes right after a batch of calls therefore loses
/// none of their answers, and the host knows exactly which call was under
/// way (``lastBegun``). A call that returned `PH_CONTINUE` without a
/// problem, as nearly all do, writes no frame: the worker only stores the
/// last call it returned from (``returnedThrough``).
///
/// The worker's plugin can still write anything into this memory, so the
/// host keeps its own positions (the shared ones are only for the worker to
/// see), checks every position it reads before it copies a byte or writes
/// one, checks every frame it copied (``WorkerAnswer``), never waits for
/// room, and seals the memfd's size, so that no worker can shrink it under
/// the host's mapping. The worker trusts the host's calls.
final class WorkerRing: @unchecked Sendable {
    /// The bytes of each ring (powers of two, at least ``smallestCapacity``):
    /// the answers', and the calls', which hold a message's image.
    let capacity: Int
    let callsCapacity: Int
    static let smallestCapacity = 1 << 20
    /// Where the call ring's page begins, after the answers.
    var callsOffset: Int { Self.page + capacity }
    private static let page = 4096

    /// The memfd (the host's; -1 in a worker, which keeps only the mapping).
    let fd: Int32
    private let base: UnsafeMutableRawPointer
    private let size: Int
    /// The worker's answers, and the host's calls.
    private let answers: Ring
    private let calls: Ring
    /// The host's copy of the answers it takes, so that the worker cannot
    /// change a frame between the host's checks and its use.
    private var scratch: UnsafeMutableRawPointer?

    /// The last call the worker began (on the answers' page).
    private var begun: UnsafeMutablePointer<Atomic<UInt64>> {
        (base + 256).assumingMemoryBound(to: Atomic<UInt64>.self)
    }

    /// The last call the worker returned from (on the answers' page, a
    /// cache line of its own): each call up to it returned, and those whose
    /// answer is other than `PH_CONTINUE` without a problem put a frame in
    /// the ring before it was stored. The others (nearly all) put nothing.
    private var returnedCall: UnsafeMutablePointer<Atomic<UInt64>> {
        (base + 384).assumingMemoryBound(to: Atomic<UInt64>.self)
    }
    /// The host's side: the last returned call it took, for its watcher
    /// thread too; and the same for the worker to see (its own cache line),
    /// as the host shows how far it read the frames.
    private let returnsTaken = Atomic<UInt64>(0)
    private var returnsTakenShown: UnsafeMutablePointer<Atomic<UInt64>> {
        (base + 448).assumingMemoryBound(to: Atomic<UInt64>.self)
    }

    /// Where the host tells the worker the call ring's capacity (on the answers' page).
    private static let callsCapacityOffset = 320

    /// A new memory for a worker whose records may be `largestFrame` bytes
    /// (normalized: the host's side); nil when the system refuses one. Its
    /// call ring holds the largest call (a message's image, ``Message/largestImage(bytes:)``),
    /// its answer ring two of the largest answers.
    init?(largestFrame: Int) {
        var capacity = Self.smallestCapacity
        while capacity < 2 * largestFrame { capacity <<= 1 }
        let largestCall = Message.largestImage(bytes: largestFrame) + (1 << 16)
        let callsCapacity = max(Self.smallestCapacity, (largestCall + Self.page - 1) / Self.page * Self.page)
        guard let fd = MemoryFile.make(name: "pushhost-worker") else { return nil }
        let size = 2 * Self.page + capacity + callsCapacity
        // Shrunk, the memory would fault the host where it reads past the end (SIGBUS).
        let seals: Int32 = 1 /* F_SEAL_SEAL */ | 2 /* F_SEAL_SHRINK */ | 4 /* F_SEAL_GROW */
        guard ftruncate(fd, off_t(size)) == 0, fcntl(fd, 1033 /* F_ADD_SEALS */, seals) == 0, let mapped = Self.map(fd, size: size) else {
            close(fd)
            return nil
        }
        self.fd = fd
        self.capacity = capacity
        self.callsCapacity = callsCapacity
        self.size = size
        base = mapped
        (mapped + Self.callsCapacityOffset).storeBytes(of: UInt64(callsCapacity), as: UInt64.self)
        answers = Ring(base: mapped, capacity: capacity)
        calls = Ring(base: mapped + Self.page + capacity, capacity: callsCapacity)
    }

    /// The worker's side: the memory it got as `fd` (its fd 4), its size the
    /// host's. The descriptor is closed once it is mapped, so its plugin has
    /// none to write into it through.
    init?(fd: Int32) {
        var status = stat()
        guard fstat(fd, &status) == 0 else { return nil }
        let size = Int(status.st_size)
        let mapped = size > 2 * Self.page ? Self.map(fd, size: size) : nil
        close(fd)
        let callsCapacity = mapped.map { Int(truncatingIfNeeded: $0.load(fromByteOffset: Self.callsCapacityOffset, as: UInt64.self)) } ?? 0
        let capacity = size - 2 * Self.page - callsCapacity
        guard let mapped, callsCapacity > 0, capacity > 0, callsCapacity % 8 == 0 else { return nil }
        self.fd = -1
        self.size = size
        self.capacity = capacity
        self.callsCapacity = callsCapacity
        base = mapped
        answers = Ring(base: mapped, capacity: capacity)
        calls = Ring(base: mapped + Self.page + capacity, capacity: callsCapacity)
    }

    private static func map(_ fd: Int32, size: Int) -> UnsafeMutableRawPointer? {
        let mapped = mmap(nil, size, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0)
        guard let mapped, mapped != MAP_FAILED else { return nil }
        return mapped
    }

    deinit {
        munmap(base, size)
        scratch?.deallocate()
        if fd >= 0 { close(fd) }
    }

    // MARK: Answers: the worker writes, the host reads

    /// The worker's side: appends `bytes` (whole frames), waiting while the
    /// ring has no room; `wake` is called when the host wants a wake-up.
    func put(_ bytes: UnsafeRawBufferPointer, wake: () -> Void) {
        while !answers.tryPut(bytes) {
            if answers.takeWakeRequest() { wake() }
            usleep(200)
        }
    }

    /// The worker's side: the call `id` begins (before its plugin runs).
    func noteBegun(_ id: UInt64) {
        begun.pointee.store(id, ordering: .releasing)
    }

    /// The worker's side: the call `id` returned, its answer (if it has a
    /// frame) already in the ring.
    func noteReturned(_ id: UInt64) {
        returnedCall.pointee.store(id, ordering: .releasing)
    }

    /// The host's side: the last call the worker says returned. Read before
    /// the frames are taken, so that every frame it put first is among them;
    /// its plugin could write anything here (``Worker`` checks it).
    var returnedThrough: UInt64 {
        returnedCall.pointee.load(ordering: .acquiring)
    }

    /// The host's side: it took the returns through the call `id`.
    func tookReturns(through id: UInt64) {
        returnsTaken.store(id, ordering: .relaxed)
        returnsTakenShown.pointee.store(id, ordering: .relaxed)
    }

    /// The host's side: the last returned call it took.
    var returnsTakenThrough: UInt64 { returnsTaken.load(ordering: .relaxed) }

    /// Whether the worker returned from calls the host has not taken.
    private var hasReturns: Bool {
        returnedCall.pointee.load(ordering: .relaxed) != returnsTaken.load(ordering: .relaxed)
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
        answers.takeWakeRequest()
    }

    /// The host's side, before it sleeps: asks for a wake-up at the next
    /// answers; true when answers came already (it must not sleep).
    func requestWake() -> Bool {
        answers.requestWake() || hasReturns
    }

    /// The host's side: whether the worker wrote, or returned, since the last take.
    var hasAnswers: Bool { answers.hasBytes || hasReturns }

    /// The host's side, from any thread: whether the ring holds answers the
    /// host has not taken yet (the worker is not the one behind).
    var isWaitingForHost: Bool { answers.isWaitingForReader || hasReturns }

    /// The host's side: hands `body` a copy of what the worker wrote since
    /// the last time; false when it wrote nothing.
    func take(_ body: (UnsafeRawBufferPointer) -> Void) throws(MalformedAnswer) -> Bool {
        try answers.take(into: &scratch, body)
    }

    /// How many answer bytes lie between the host's read position `taken`
    /// and the worker's write position `written`, in a ring of `capacity`.
    static func span(from taken: UInt64, to written: UInt64, capacity: Int) throws(MalformedAnswer) -> Int {
        try Ring.span(from: taken, to: written, capacity: capacity)
    }

    // MARK: Calls: the host writes, the worker reads

    /// The host's side: puts the whole frames at the start of `bytes` that
    /// fit, without waiting, and publishes them: how many bytes it took.
    /// When not all fit, the worker is asked to wake the host once it took
    /// some. A worker that lies about how far it read has its ring read as
    /// full, or is malformed.
    func putCalls(_ bytes: UnsafeRawBufferPointer) throws(MalformedAnswer) -> Int {
        var taken = 0
        while taken < bytes.count, case .frame(_, let size) = WorkerFrame.read(UnsafeRawBufferPointer(rebasing: bytes[taken...])),
            let place = try calls.reserve(size)
        {
            place.copyMemory(from: bytes.baseAddress! + taken, byteCount: size)
            calls.advance(size)
            taken += size
        }
        if taken > 0 { calls.publish() }
        if taken < bytes.count { calls.requestRoom() }
        return taken
    }

    /// The host's side: where a call frame of `count` bytes (a multiple of
    /// 8) goes, whole, in place (never across the ring's end), without
    /// waiting; nil when it does not fit now. A worker that lies about how far it read has its ring read as
    /// full, or is malformed.
    func placeCall(_ count: Int) throws(MalformedAnswer) -> UnsafeMutableRawPointer? {
        try calls.reserve(count)
    }

    /// The host's side: the frame written where ``placeCall(_:)`` said is
    /// published (a plain store: the worker may begin it while the host goes on).
    func commitCall(_ count: Int) {
        calls.advance(count)
        calls.publish()
    }

    /// The host's side, after it put calls: whether the worker sleeps and
    /// asked for a wake-up (the request is then taken).
    func takeCallWakeRequest() -> Bool {
        calls.takeWakeRequest()
    }

    /// The worker's side: hands `body` the calls the host wrote since the
    /// last time, in place (whole frames, each 8-aligned; in two parts
    /// when they run past the ring's end, whose unused tail starts with a
    /// zero length), and only then tells the host it may write over them;
    /// false when it wrote none.
    func takeCalls(_ body: (UnsafeRawBufferPointer) -> Void) -> Bool {
        calls.takeInPlace(body)
    }

    /// The worker's side, before it sleeps: asks for a wake-up at the next
    /// calls; true when calls came already (it must not sleep).
    func requestCallWake() -> Bool {
        calls.requestWake()
    }

    /// The worker's side, after it took calls: whether the host waits for
    /// room for more (the request is then taken).
    func takeRoomRequest() -> Bool {
        calls.takeRoomRequest()
    }
}

/// One ring of a ``WorkerRing``: a page of positions and flags, then the
/// bytes. The writer's and the reader's own positions are kept apart from
/// the shared ones, which only tell the other side.
private final class Ring {
    let base: UnsafeMutableRawPointer
    let capacity: Int
    /// The writer's position, and the reader's, as each side keeps it.
    private var wrote: UInt64 = 0
    private var took: UInt64 = 0

    init(base: UnsafeMutableRawPointer, capacity: Int) {
        self.base = base
        self.capacity = capacity
    }

    private var written: UnsafeMutablePointer<Atomic<UInt64>> { base.assumingMemoryBound(to: Atomic<UInt64>.self) }
    private var read: UnsafeMutablePointer<Atomic<UInt64>> { (base + 64).assumingMemoryBound(to: Atomic<UInt64>.self) }
    /// 1 while the reader sleeps until the writer writes: the writer sends a wake-up byte.
    private var wakeWanted: UnsafeMutablePointer<Atomic<UInt32>> { (base + 128).assumingMemoryBound(to: Atomic<UInt32>.self) }
    /// 1 while the writer waits for room: the reader sends a wake-up byte once it took some.
    private var roomWanted: UnsafeMutablePointer<Atomic<UInt32>> { (base + 192).assumingMemoryBound(to: Atomic<UInt32>.self) }
    private var data: UnsafeMutableRawPointer { base + 4096 }

    // MARK: The writer

    /// How many bytes the writer may append: malformed when the reader's
    /// published position is past the writer's, or further behind than the ring.
    func room() throws(MalformedAnswer) -> Int {
        let reader = read.pointee.load(ordering: .acquiring)
        let behind = wrote &- reader
        guard behind <= UInt64(capacity) else {
            throw MalformedAnswer(
                reader > wrote
                    ? "its call ring's read position \(reader) is past the host's write position \(wrote)"
                    : "its call ring's read position is \(behind) bytes behind the host's, more than the ring's \(capacity)")
        }
        return capacity - Int(behind)
    }

    /// Appends `bytes`, which fit, and publishes them.
    func append(_ bytes: UnsafeRawBufferPointer) {
        let position = wrote
        let start = Int(position % UInt64(capacity))
        let first = min(bytes.count, capacity - start)
        (data + start).copyMemory(from: bytes.baseAddress!, byteCount: first)
        if first < bytes.count { data.copyMemory(from: bytes.baseAddress! + first, byteCount: bytes.count - first) }
        wrote = position &+ UInt64(bytes.count)
        known = max(0, known - bytes.count)
        publish()
    }

    /// The room the writer last found, less what it wrote since: the
    /// reader's position is read again only when that is too little.
    private var known = 0

    /// Where `count` more bytes go, whole, or nil when they do not fit now.
    /// When they would run past the ring's end, the rest of the ring is
    /// skipped (a zero length there tells the reader) and they go at its start.
    func reserve(_ count: Int) throws(MalformedAnswer) -> UnsafeMutableRawPointer? {
        let offset = Int(wrote % UInt64(capacity))
        let skipped = count <= capacity - offset ? 0 : capacity - offset
        if known < skipped + count { known = try room() }
        guard known >= skipped + count else { return nil }
        guard skipped > 0 else { return data + offset }
        (data + offset).storeBytes(of: 0, as: UInt32.self)
        advance(skipped)
        return data
    }

    /// After `count` bytes were written where ``reserve(_:)`` said.
    func advance(_ count: Int) {
        wrote &+= UInt64(count)
        known -= count
    }

    /// Shows the reader what was written.
    func publish() {
        written.pointee.store(wrote, ordering: .releasing)
    }

    /// Appends `bytes` when they fit (trusting the reader's position).
    func tryPut(_ bytes: UnsafeRawBufferPointer) -> Bool {
        guard wrote &+ UInt64(bytes.count) &- read.pointee.load(ordering: .acquiring) <= UInt64(capacity) else { return false }
        append(bytes)
        return true
    }

    /// After publishing: whether the reader asked for a wake-up (taken).
    func takeWakeRequest() -> Bool {
        // The write position first, then the request: the reader sets them in the other order.
        atomicMemoryFence(ordering: .sequentiallyConsistent)
        guard wakeWanted.pointee.load(ordering: .relaxed) != 0 else { return false }
        return wakeWanted.pointee.exchange(0, ordering: .acquiringAndReleasing) != 0
    }

    /// The writer found too little room: asks the reader for a wake-up once it took some.
    func requestRoom() {
        roomWanted.pointee.store(1, ordering: .relaxed)
        atomicMemoryFence(ordering: .sequentiallyConsistent)
    }

    // MARK: The reader

    /// Before it sleeps: asks for a wake-up at the next bytes; true when
    /// some came already (it must not sleep).
    func requestWake() -> Bool {
        wakeWanted.pointee.store(1, ordering: .relaxed)
        atomicMemoryFence(ordering: .sequentiallyConsistent)
        return hasBytes
    }

    /// Whether the writer wrote since the last take.
    var hasBytes: Bool {
        written.pointee.load(ordering: .relaxed) != took
    }

    /// From any thread: whether the ring holds bytes the reader has not taken.
    var isWaitingForReader: Bool {
        written.pointee.load(ordering: .relaxed) != read.pointee.load(ordering: .relaxed)
    }

    /// After it took bytes: whether the writer waits for room (taken).
    func takeRoomRequest() -> Bool {
        atomicMemoryFence(ordering: .sequentiallyConsistent)
        guard roomWanted.pointee.load(ordering: .relaxed) != 0 else { return false }
        return roomWanted.pointee.exchange(0, ordering: .acquiringAndReleasing) != 0
    }

    /// Hands `body` a copy (in `scratch`, made once) of what the writer
    /// wrote since the last time; false when it wrote nothing.
    func take(into scratch: inout UnsafeMutableRawPointer?, _ body: (UnsafeRawBufferPointer) -> Void) throws(MalformedAnswer) -> Bool {
        let end = written.pointee.load(ordering: .acquiring)
        let count = try Self.span(from: took, to: end, capacity: capacity)
        guard count > 0 else { return false }
        let start = Int(took % UInt64(capacity))
        let first = min(count, capacity - start)
        let copy = scratch ?? .allocate(byteCount: capacity, alignment: 8)
        scratch = copy
        copy.copyMemory(from: data + start, byteCount: first)
        if first < count { (copy + first).copyMemory(from: data, byteCount: count - first) }
        took = end
        read.pointee.store(end, ordering: .releasing)
        body(UnsafeRawBufferPointer(start: copy, count: count))
        return true
    }

    /// Hands `body` what the writer wrote since the last time, in place, in
    /// two parts when it runs past the ring's end, trusting the writer's
    /// position; then publishes that it was read. False when it wrote nothing.
    func takeInPlace(_ body: (UnsafeRawBufferPointer) -> Void) -> Bool {
        let end = written.pointee.load(ordering: .acquiring)
        guard end != took else { return false }
        var position = took
        while position != end {
            let offset = Int(position % UInt64(capacity))
            let count = min(Int(end &- position), capacity - offset)
            body(UnsafeRawBufferPointer(start: data + offset, count: count))
            position &+= UInt64(count)
        }
        took = end
        read.pointee.store(end, ordering: .releasing)
        return true
    }

    /// How many bytes lie between the read position `taken` and the write
    /// position `written`: at most `capacity`, or a position is malformed.
    static func span(from taken: UInt64, to written: UInt64, capacity: Int) throws(MalformedAnswer) -> Int {
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
