#if canImport(Glibc)
import Glibc
#endif
import Synchronization

/// Watches a spool's `new/` with inotify (`IN_MOVED_TO`) on a thread of its
/// own, and hands the names that arrive to the run loop, which polls `fd`.
///
/// When the kernel's event queue overflows, events were lost: the watcher
/// then asks for a full rescan of `new/` instead.
final class SpoolWatcher: Sendable {
    /// What arrived since the last `take()`.
    struct Arrivals {
        var names: [String] = []
        var rescan = false
    }

    /// The environment variable that names a file whose presence holds the
    /// watcher back from reading events, so tests can overflow the queue.
    static let holdSwitch = "PUSHHOST_TEST_HOLD_WATCH"

    private let inotify: Int32
    private let wakePipe = WakePipe()
    private let arrivals = Mutex(Arrivals())
    private let hold: String?

    /// Readable when something arrived.
    var fd: Int32 { wakePipe.readEnd }

    /// Arms the watch on `directory` and starts the thread that reads it.
    init(directory: String) throws(SetupError) {
        inotify = inotify_init1(Int32(IN_CLOEXEC))
        guard inotify >= 0 else { throw SetupError("inotify: \(String(cString: strerror(errno)))") }
        guard inotify_add_watch(inotify, directory, UInt32(IN_MOVED_TO | IN_ONLYDIR)) >= 0 else {
            throw SetupError("cannot watch \(directory): \(String(cString: strerror(errno)))")
        }
        hold = getenv(Self.holdSwitch).map { String(cString: $0) }
        var thread = pthread_t()
        let context = Unmanaged.passRetained(self).toOpaque()
        let started = pthread_create(&thread, nil, { context in
            Unmanaged<SpoolWatcher>.fromOpaque(context!).takeRetainedValue().readEvents()
            return nil
        }, context)
        guard started == 0 else { throw SetupError("cannot start the spool watcher thread") }
        pthread_detach(thread)
    }

    /// Everything that arrived since the last call.
    func take() -> Arrivals {
        wakePipe.drain()
        return arrivals.withLock { arrivals in
            defer { arrivals = Arrivals() }
            return arrivals
        }
    }

    /// The watcher thread: reads events for as long as the process lives.
    private func readEvents() {
        let capacity = 64 * (MemoryLayout<inotify_event>.size + Int(NAME_MAX) + 1)
        let buffer = UnsafeMutableRawPointer.allocate(byteCount: capacity, alignment: 8)
        while true {
            if let hold { while access(hold, F_OK) == 0 { usleep(10_000) } }
            let count = read(inotify, buffer, capacity)
            if count < 0 && errno == EINTR { continue }
            guard count > 0 else { return }
            var found = Arrivals()
            var offset = 0
            while offset < count {
                let event = buffer.load(fromByteOffset: offset, as: inotify_event.self)
                let length = Int(event.len)
                if event.mask & UInt32(IN_Q_OVERFLOW) != 0 { found.rescan = true }
                if event.mask & UInt32(IN_MOVED_TO) != 0 && length > 0 {
                    let name = String(cString: (buffer + offset + MemoryLayout<inotify_event>.size).assumingMemoryBound(to: CChar.self))
                    if Spool.takes(name) { found.names.append(name) }
                }
                offset += MemoryLayout<inotify_event>.size + length
            }
            arrivals.withLock { arrivals in
                arrivals.names += found.names
                arrivals.rescan = arrivals.rescan || found.rescan
            }
            wakePipe.wake()
        }
    }
}
