#if canImport(Glibc)
import Glibc
#endif

/// Watches a spool's `new/` with inotify (`IN_MOVED_TO`). The run loop
/// polls `fd` itself, so an arrival wakes the dispatch thread directly,
/// with no other thread in between.
///
/// When the kernel's event queue overflows, events were lost: the watcher
/// then asks for a full rescan of `new/` instead.
final class SpoolWatcher {
    /// What arrived since the last `take()`.
    struct Arrivals {
        var names: [String] = []
        var rescan = false
    }

    /// The environment variable that names a file whose presence holds the
    /// watcher back from reading events, so tests can overflow the queue.
    static let holdSwitch = "PUSHHOST_TEST_HOLD_WATCH"

    /// The inotify descriptor (non-blocking): readable when something arrived.
    let fd: Int32
    private let hold: String?
    private let buffer: UnsafeMutableRawBufferPointer

    /// Arms the watch on `directory`.
    init(directory: String) throws(SetupError) {
        fd = inotify_init1(Int32(IN_CLOEXEC | IN_NONBLOCK))
        guard fd >= 0 else { throw SetupError("inotify: \(String(cString: strerror(errno)))") }
        guard inotify_add_watch(fd, directory, UInt32(IN_MOVED_TO | IN_ONLYDIR)) >= 0 else {
            close(fd)
            throw SetupError("cannot watch \(directory): \(String(cString: strerror(errno)))")
        }
        hold = getenv(Self.holdSwitch).map { String(cString: $0) }
        buffer = .allocate(byteCount: 64 * (MemoryLayout<inotify_event>.size + Int(NAME_MAX) + 1), alignment: 8)
    }

    deinit {
        close(fd)
        buffer.deallocate()
    }

    /// Everything that arrived since the last call, without blocking.
    func take() -> Arrivals {
        var found = Arrivals()
        if let hold, access(hold, F_OK) == 0 {
            usleep(10_000)  // Held: leave the events queued, and do not spin on the readable fd.
            return found
        }
        while true {
            let count = read(fd, buffer.baseAddress, buffer.count)
            if count < 0 && errno == EINTR { continue }
            guard count > 0 else { return found }
            var offset = 0
            while offset < count {
                let event = buffer.load(fromByteOffset: offset, as: inotify_event.self)
                let length = Int(event.len)
                if event.mask & UInt32(IN_Q_OVERFLOW) != 0 { found.rescan = true }
                if event.mask & UInt32(IN_MOVED_TO) != 0 && length > 0 {
                    let name = String(cString: (buffer.baseAddress! + offset + MemoryLayout<inotify_event>.size).assumingMemoryBound(to: CChar.self))
                    if Spool.takes(name) { found.names.append(name) }
                }
                offset += MemoryLayout<inotify_event>.size + length
            }
        }
    }
}
