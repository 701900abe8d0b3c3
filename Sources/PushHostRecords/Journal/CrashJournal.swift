#if canImport(Glibc)
import Glibc
#endif
import CTicks
import PushHostSystem
import Synchronization

/// The plugin handler call under way, kept where a crash of the host cannot
/// lose it: a small file mapped shared (`DIR/journal` beside a spool's
/// folders), so each store lands in the kernel's page cache at once and a
/// process that dies by a signal (or SIGKILL) leaves it behind.
///
/// Before each handler call the dispatch thread notes the plugin, the
/// handler and the record (`enter`), and clears the note after (`leave`).
/// A crash signal adds its number (`CrashSignals`), the watchdog a timeout.
/// The next start finds the note (`recover`): the spool file under way gets
/// one more crash in the journal's table, and after `--crash-limit` of them
/// it goes to `failed/` instead of being tried again.
///
/// Without a spool the journal is anonymous memory: the watchdog still
/// watches the calls, and nothing outlives the process.
@usableFromInline package final class CrashJournal: @unchecked Sendable {
    /// Byte offsets in the journal; the file is `size` bytes.
    @usableFromInline enum Offset {
        static let magic = 0
        @usableFromInline static let inCall = 8
        @usableFromInline static let plugin = 12
        @usableFromInline static let handler = 16
        static let cause = 20
        @usableFromInline static let sourceKind = 24
        @usableFromInline static let sourceNumber = 32
        @usableFromInline static let sourceNameLength = 40
        @usableFromInline static let sourceName = 64  // 256 bytes
        static let pluginNames = 512  // 64 names of 64 bytes
        static let crashes = 8192  // 64 entries of 512 bytes
    }

    enum TableEntry {
        static let size = 512
        static let count = 0
        static let cause = 4
        static let fileLength = 8
        static let file = 16  // 256 bytes
        static let plugin = 272  // 64 bytes
        static let handler = 336  // 64 bytes
    }

    static let size = Offset.crashes + 64 * TableEntry.size
    static let magic: UInt64 = 0x3130_4c4e_524a_4850  // "PHJRNL01"
    @usableFromInline static let nameCapacity = 256
    static let pluginNameCapacity = 64
    package static let maxPlugins = 64
    static let maxEntries = 64

    /// The call under way on the dispatch thread, for the watchdog: even
    /// when none, odd during a call, with `firedBit` once the watchdog gave
    /// up on it.
    @usableFromInline package let call = Atomic<UInt64>(0)
    package static let firedBit: UInt64 = 1 << 63
    /// The number of the first call of a stop's drain (0 before): the calls
    /// from it on are the drain's own, which the stop's deadline does not end.
    package let drainFrom = Atomic<UInt64>(0)

    /// The mapped journal.
    @usableFromInline let base: UnsafeMutableRawPointer
    /// Whether it is a file that outlives the process.
    package let isDurable: Bool
    var nextEntry = 0
    /// With `--metrics`: where each call's duration goes.
    package var durations: HandlerDurations.Observer? {
        get { calls.pointee.durations }
        set {
            calls.pointee.durations = newValue
            calls.pointee.timing = newValue != nil
        }
    }
    /// Whether each call's duration is measured (`--metrics`).
    @inlinable package var isTiming: Bool { calls.pointee.timing }

    /// What the dispatch thread keeps from call to call, in memory of the
    /// journal's own: `enter` and `leave` are inlined in the stages of other
    /// targets, and a stored property of a class that another module writes
    /// costs a dynamic exclusivity check at each access.
    @usableFromInline let calls: UnsafeMutablePointer<Calls>

    @usableFromInline struct Calls {
        /// The call counter as the dispatch thread last set it.
        @usableFromInline var number: UInt64 = 0
        /// The spool file or plugin whose name is in the journal now.
        @usableFromInline var notedName: String?
        /// With `--metrics`: where each call's duration goes (and whether
        /// it does: one byte to test per call), and the call under way.
        @usableFromInline var durations: HandlerDurations.Observer?
        @usableFromInline var timing = false
        @usableFromInline var callStart: UInt64 = 0
        @usableFromInline var callSeries = 0
    }

    /// The journal in `path` (created 0600 when missing; a symlink is
    /// refused), or in memory when `path` is nil.
    package init(path: String?) throws(SetupError) {
        calls = .allocate(capacity: 1)
        calls.initialize(to: Calls())
        guard let path else {
            let memory = mmap(nil, Self.size, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0)
            guard let memory, memory != MAP_FAILED else { throw SetupError("crash journal: mmap: \(String(cString: strerror(errno)))") }
            base = memory
            isDurable = false
            base.storeBytes(of: Self.magic, toByteOffset: Offset.magic, as: UInt64.self)
            return
        }
        let fd = open(path, O_RDWR | O_CREAT | O_NOFOLLOW | O_CLOEXEC, 0o600)
        guard fd >= 0 else { throw SetupError("crash journal \(path): \(String(cString: strerror(errno)))") }
        defer { close(fd) }
        var info = stat()
        guard fstat(fd, &info) == 0, (info.st_mode & S_IFMT) == S_IFREG else {
            throw SetupError("crash journal \(path): not a regular file")
        }
        if info.st_size != Self.size, ftruncate(fd, off_t(Self.size)) != 0 {
            throw SetupError("crash journal \(path): \(String(cString: strerror(errno)))")
        }
        let memory = mmap(nil, Self.size, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0)
        guard let memory, memory != MAP_FAILED else { throw SetupError("crash journal \(path): mmap: \(String(cString: strerror(errno)))") }
        base = memory
        isDurable = true
        if base.load(fromByteOffset: Offset.magic, as: UInt64.self) != Self.magic {
            memset(base, 0, Self.size)
            base.storeBytes(of: Self.magic, toByteOffset: Offset.magic, as: UInt64.self)
        }
    }

    deinit {
        munmap(base, Self.size)
        calls.deinitialize(count: 1)
        calls.deallocate()
    }

    // MARK: The call under way

    /// Notes that `handler` of plugin number `plugin` is called on a record from `source`.
    @inline(__always)
    @inlinable package func enter(_ handler: PluginHandler, plugin: Int32, source: RecordSource) {
        note(source)
        begin(handler, plugin: plugin)
    }

    /// Notes that `handler` of plugin number `plugin` is called at the end
    /// of the run (a source's `stop`, `destroy`), for no record.
    package func enterStop(_ handler: PluginHandler, plugin: Int32) {
        base.storeBytes(of: Self.atTheStop, toByteOffset: Offset.sourceKind, as: Int32.self)
        begin(handler, plugin: plugin)
    }

    @inline(__always)
    @inlinable func begin(_ handler: PluginHandler, plugin: Int32) {
        base.storeBytes(of: plugin, toByteOffset: Offset.plugin, as: Int32.self)
        base.storeBytes(of: handler.rawValue, toByteOffset: Offset.handler, as: Int32.self)
        base.storeBytes(of: 1, toByteOffset: Offset.inCall, as: Int32.self)
        calls.pointee.number &+= 1
        call.store(calls.pointee.number, ordering: .releasing)
        if calls.pointee.timing {
            calls.pointee.callSeries = HandlerDurations.series(plugin: plugin, handler: handler)
            calls.pointee.callStart = pushhost_ticks()
        }
    }

    /// The source kind of a call made at the end of the run, for no record.
    static let atTheStop: Int32 = 4

    /// Whether the call under way is one `enterStop` noted.
    package var isAtTheStop: Bool {
        base.load(fromByteOffset: Offset.sourceKind, as: Int32.self) == Self.atTheStop
    }

    /// [dispatch thread, between calls] Notes that a stop's deadline passed
    /// and its drain begins: the calls from here on are the drain's own.
    package func beginDrain() {
        drainFrom.store(calls.pointee.number &+ 1, ordering: .releasing)
    }

    /// Notes that the call returned. When the watchdog gave up on it
    /// meanwhile, the host is on its way out: this thread stops here.
    @inline(__always)
    @inlinable package func leave() {
        calls.pointee.number &+= 1
        let number = calls.pointee.number
        let (returned, _) = call.compareExchange(expected: number &- 1, desired: number, ordering: .acquiringAndReleasing)
        guard returned else { Self.parkForever() }
        base.storeBytes(of: 0, toByteOffset: Offset.inCall, as: Int32.self)
        if calls.pointee.timing, let durations = calls.pointee.durations {
            durations.observe(series: calls.pointee.callSeries, ticks: pushhost_ticks() &- calls.pointee.callStart)
        }
    }

    @usableFromInline static func parkForever() -> Never {
        while true { pause() }
    }

    /// Writes where the record comes from: a spool file's or a plugin's
    /// name only when it changed since the last call.
    @inline(__always)
    @inlinable func note(_ source: RecordSource) {
        let (kind, number, name): (Int32, Int, String?) = switch source {
        case .stdin(let line): (1, line, nil)
        case .spool(let file, let line): (2, line ?? 0, file)
        case .plugin(let plugin, let record): (3, record, plugin)
        }
        base.storeBytes(of: kind, toByteOffset: Offset.sourceKind, as: Int32.self)
        base.storeBytes(of: Int64(number), toByteOffset: Offset.sourceNumber, as: Int64.self)
        if let name, name != calls.pointee.notedName {
            write(name, at: Offset.sourceName, length: Offset.sourceNameLength, capacity: Self.nameCapacity)
            calls.pointee.notedName = name
        }
    }

    /// Forgets the call under way: the next start does not count it.
    package func clearCall() {
        base.storeBytes(of: 0, toByteOffset: Offset.inCall, as: Int32.self)
    }

    /// Notes the cause of the end: a signal number, or `Cause.timeoutCode`.
    package func noteCause(_ code: Int32) {
        causeSlot.pointee = code
    }

    /// Where the cause is noted, for a signal handler (one store, nothing else).
    var causeSlot: UnsafeMutablePointer<Int32> {
        (base + Offset.cause).assumingMemoryBound(to: Int32.self)
    }

    /// Notes the plugins' names, in load order (a call names its plugin by number).
    package func name(plugins: [String]) {
        for (index, plugin) in plugins.prefix(Self.maxPlugins).enumerated() {
            let offset = Offset.pluginNames + index * Self.pluginNameCapacity
            memset(base + offset, 0, Self.pluginNameCapacity)
            var bytes = Array(plugin.utf8.prefix(Self.pluginNameCapacity - 1))
            bytes.withUnsafeMutableBytes { (base + offset).copyMemory(from: $0.baseAddress!, byteCount: $0.count) }
        }
    }

    /// The plugin and handler of the call under way (for the watchdog's line).
    package func callUnderWay() -> (plugin: String, handler: String, place: String) {
        let plugin = base.load(fromByteOffset: Offset.plugin, as: Int32.self)
        let handler = PluginHandler(rawValue: base.load(fromByteOffset: Offset.handler, as: Int32.self))
        return (pluginName(plugin), handler?.name ?? "a handler", place())
    }

    // MARK: Bytes

    /// Writes `text`'s bytes (cut to `capacity`, NUL-terminated when shorter),
    /// and their count at `length` when given.
    @usableFromInline func write(_ text: String, at offset: Int, length: Int?, capacity: Int) {
        var text = text
        text.withUTF8 { bytes in
            let count = min(bytes.count, capacity - 1)
            if count > 0 { (base + offset).copyMemory(from: bytes.baseAddress!, byteCount: count) }
            (base + offset + count).storeBytes(of: 0, as: UInt8.self)
            if let length { base.storeBytes(of: Int32(count), toByteOffset: length, as: Int32.self) }
        }
    }

    func read(at offset: Int, length: Int) -> String {
        let count = max(0, min(Int(base.load(fromByteOffset: length, as: Int32.self)), Self.nameCapacity - 1))
        return String(decoding: UnsafeRawBufferPointer(start: base + offset, count: count), as: UTF8.self)
    }

    func cString(at offset: Int) -> String {
        String(cString: (base + offset).assumingMemoryBound(to: CChar.self))
    }

    func pluginName(_ index: Int32) -> String {
        guard index >= 0, index < Self.maxPlugins else { return "#\(index)" }
        let name = cString(at: Offset.pluginNames + Int(index) * Self.pluginNameCapacity)
        return name.isEmpty ? "#\(index)" : name
    }

    /// The record under way, in words.
    func place() -> String {
        let number = base.load(fromByteOffset: Offset.sourceNumber, as: Int64.self)
        switch base.load(fromByteOffset: Offset.sourceKind, as: Int32.self) {
        case 1: return "standard input, line \(number)"
        case 2:
            let file = read(at: Offset.sourceName, length: Offset.sourceNameLength)
            return number > 0 ? "spool file \(file), line \(number)" : "spool file \(file)"
        case 3: return "plugin \(read(at: Offset.sourceName, length: Offset.sourceNameLength)), record \(number)"
        case Self.atTheStop: return "the stop"
        default: return "an unknown record"
        }
    }
}
